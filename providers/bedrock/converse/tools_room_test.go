package converse

import (
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/requestshapes"
)

// TestToolsCostTheirBytes: many tools with large schemas, or schemas
// nested deep, are encoded into one buffer with room for the body and
// Converse's framing, each schema the client's bytes: the conversion
// allocates little more than the upstream body (2.25 times it when the
// buffer, sized at the body, grew by a quarter once the framing
// overflowed it).
func TestToolsCostTheirBytes(t *testing.T) {
	providertest.ConversionCost{
		Prepare: convertShape,
		Bound:   func(_, out int) int { return out * 5 / 4 },
		Want:    "1.25 times the upstream body",
	}.Check(t, providertest.ToolShapes, 4<<20)
}

// TestShapesCostTheirBytes: on every hostile request shape (a million tiny
// blocks, a hundred thousand turns, deep inputs, a tool call of millions
// of empty strings sent as text, many tools), the conversion converts the
// request and allocates at most the body again, and the growth of one
// buffer: what it holds beyond the body stays within twice the body. The
// typed converter it replaced allocated 27 times the body on tiny blocks
// (which a bound on blocks refused) and 6.8 times it on empty strings.
func TestShapesCostTheirBytes(t *testing.T) {
	providertest.ConversionCost{
		Prepare: convertShape,
		Bound:   func(body, _ int) int { return body * 2 },
		Want:    "twice the body",
	}.Check(t, requestshapes.Shapes, 4<<20)
}

// convertShape readies body as the handler does and returns its
// conversion, for providertest.ConversionCost.
func convertShape(t *testing.T, body []byte) func() ([]byte, error) {
	t.Helper()
	x := exchange(t, nil, "", string(body))
	return func() ([]byte, error) {
		out, _, err := ConvertRequest(x, Options{}, nil)
		return out, err
	}
}
