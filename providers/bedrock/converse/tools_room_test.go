package converse

import (
	"runtime"
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
	for _, shape := range []struct {
		name  string
		build func(int) []byte
	}{{"many_tools", requestshapes.ManyTools}, {"deep_schemas", requestshapes.DeepSchemas}} {
		t.Run(shape.name, func(t *testing.T) {
			body := shape.build(4 << 20)
			x := exchange(t, nil, "", string(body))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			out, _, err := ConvertRequest(x, Options{}, nil)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			if !providertest.RaceEnabled && alloc > uint64(len(out))*5/4 {
				t.Errorf("converting %d bytes to %d allocated %d bytes, want at most 1.25 times the upstream body", len(body), len(out), alloc)
			}
		})
	}
}

// TestShapesCostTheirBytes: on every hostile request shape (a million tiny
// blocks, a hundred thousand turns, deep inputs, a tool call of millions
// of empty strings sent as text, many tools), the conversion converts the
// request and allocates at most the body again, and the growth of one
// buffer: what it holds beyond the body stays within twice the body. The
// typed converter it replaced allocated 27 times the body on tiny blocks
// (which a bound on blocks refused) and 6.8 times it on empty strings.
func TestShapesCostTheirBytes(t *testing.T) {
	for _, shape := range requestshapes.Shapes {
		t.Run(shape.Name, func(t *testing.T) {
			body := shape.Build(4 << 20)
			x := exchange(t, nil, "", string(body))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			out, _, err := ConvertRequest(x, Options{}, nil)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			if !providertest.RaceEnabled && alloc > uint64(len(body))*2 {
				t.Errorf("converting %d bytes to %d allocated %d bytes, want at most twice the body", len(body), len(out), alloc)
			}
		})
	}
}
