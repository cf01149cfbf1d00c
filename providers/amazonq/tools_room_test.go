package amazonq

import (
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
)

// TestToolsCostTheirBytes: many tools with large schemas, or schemas
// nested deep, are encoded into the current message's room, each schema
// the client's bytes, and the room is sized from the tools: the
// conversion allocates little more than the upstream body (over five
// times the body when the tools were encoded into a buffer of their own
// and the room was twice the tools, with the whole body again for the
// history). The body is the typed converter's.
func TestToolsCostTheirBytes(t *testing.T) {
	p := testProvider(Config{})
	providertest.ConversionCost{
		Prepare: func(t *testing.T, body []byte) func() ([]byte, error) { return conversion(t, p, body) },
		Bound:   func(_, out int) int { return out * 5 / 4 },
		Want:    "1.25 times the upstream body",
	}.Check(t, providertest.ToolShapes, 4<<20)
}
