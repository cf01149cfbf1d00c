package openai

import (
	"github.com/thinkgate/thinkgate/providers/wire"
)

// State is what the response translation needs to know about the request.
type State struct {
	// toolNames maps the names sent upstream back to the client's, for the
	// names that had to be shortened.
	toolNames wire.ToolNames
}

// shorten returns the name to send upstream for a client tool name,
// remembering how to map it back.
func (s *State) shorten(name string) string { return s.toolNames.Shorten(name) }

// original maps an upstream tool name back to the client's.
func (s *State) original(name []byte) string {
	if s == nil {
		return string(name)
	}
	return s.toolNames.Original(name)
}
