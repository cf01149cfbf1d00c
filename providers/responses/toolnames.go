package responses

import "github.com/thinkgate/thinkgate/providers"

// State is what the response translation needs to know about the request.
type State struct {
	// toolNames maps shortened upstream names back to the client's.
	toolNames providers.ToolNames
}

// shorten returns the name to send upstream for a client tool name.
func (s *State) shorten(name string) string { return s.toolNames.Shorten(name) }

// original maps an upstream tool name back to the client's.
func (s *State) original(name []byte) string {
	if s == nil {
		return string(name)
	}
	return s.toolNames.Original(name)
}

// toolUseID returns a call_id in the form Anthropic demands of tool_use ids;
// OpenAI's call_… ids already are. A missing one gets a fresh id.
func toolUseID(id []byte) string {
	if len(id) == 0 {
		return providers.NewID("toolu_")
	}
	return providers.ToolUseID(id)
}
