package amazonq

import (
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/requestshapes"
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
	for _, shape := range []struct {
		name  string
		build func(int) []byte
	}{{"many_tools", requestshapes.ManyTools}, {"deep_schemas", requestshapes.DeepSchemas}} {
		t.Run(shape.name, func(t *testing.T) {
			body := shape.build(4 << 20)
			out, alloc := convertAllocs(t, p, body)
			if !providertest.RaceEnabled && alloc > uint64(len(out))*5/4 {
				t.Errorf("converting %d bytes to %d allocated %d bytes, want at most 1.25 times the upstream body", len(body), len(out), alloc)
			}
		})
	}
}
