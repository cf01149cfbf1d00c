package responses

import (
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// State is what the response translation needs to know about the request:
// the tool names that had to be shortened, to map back.
type State = wire.ToolNames

// toolUseID returns a call_id in the form Anthropic demands of tool_use ids;
// OpenAI's call_… ids already are. A missing one gets a fresh id.
func toolUseID(id []byte) string {
	if len(id) == 0 {
		return providers.NewID("toolu_")
	}
	return wire.ToolUseID(id)
}
