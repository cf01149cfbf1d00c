package azure

import (
	"bytes"
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/requestshapes"
	"github.com/thinkgate/thinkgate/providers"
)

// unsignedThinking is a block the cleaner drops: a thinking block without
// a signature.
const unsignedThinking = `{"type":"thinking","thinking":"t"}`

// withUnsignedThinking returns shape with one unsigned thinking block in
// it, which makes the cleaner walk the whole history, and what the
// cleaner makes of it: in the first content list, the block goes and
// leaves shape; in a history of strings only, the first turn becomes an
// assistant turn of that block alone, and goes.
func withUnsignedThinking(t *testing.T, shape []byte) (body, want []byte) {
	t.Helper()
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	if at := bytes.Index(shape, []byte(`"content":[`)); at >= 0 {
		at += len(`"content":[`)
		return join(shape[:at], []byte(unsignedThinking+","), shape[at:]), shape
	}
	at := bytes.Index(shape, []byte(`"messages":[{`))
	if at < 0 {
		t.Fatal("shape without messages")
	}
	at += len(`"messages":[`)
	end := at + bytes.IndexByte(shape[at:], '}') + 1
	body = join(shape[:at], []byte(`{"role":"assistant","content":[`+unsignedThinking+`]}`), shape[end:])
	if shape[end] == ',' {
		end++
	}
	return body, join(shape[:at], shape[end:])
}

// TestCleanWalkCostsItsBytes holds the cleaner's walk of every request
// shape with one unsigned thinking block in it (so that the history is
// walked and rewritten, not sent whole) to the body it writes and a
// quarter of the client's in allocations (a thousand tools' members read
// take the tenth of it), and to the bytes of the shape without the block.
// Before, the walk kept a slice per kept block of a message (5.9× the
// body on tiny blocks), and a body whose top-level names the scan could
// not order was cleaned into a buffer of its own first (2×).
func TestCleanWalkCostsItsBytes(t *testing.T) {
	p := New(Config{APIKey: "k"})
	for _, shape := range requestshapes.Shapes {
		t.Run(shape.Name, func(t *testing.T) {
			body, want := withUnsignedThinking(t, shape.Build(4<<20))
			req, err := providers.ParseRequestFor(p, body)
			if err != nil {
				t.Fatal(err)
			}
			x := providers.NewExchange(testSettings(), req, body, providers.ExchangeOptions{})
			var ch Changes
			out, alloc := providertest.Allocated(t, func() (out []byte, err error) {
				out, ch, err = p.Clean(x)
				return out, err
			})
			if !bytes.Equal(out, want) {
				t.Errorf("Clean wrote %d bytes, not the shape's %d without the thinking block (%+v)", len(out), len(want), ch)
			}
			if ch.Thinking != 1 {
				t.Errorf("dropped %d thinking blocks, want 1", ch.Thinking)
			}
			t.Logf("body %d, upstream body %d, allocated %d (%.2f× the body)", len(body), len(out), alloc, float64(alloc)/float64(len(body)))
			if bound := len(out) + len(body)/4; !providertest.RaceEnabled && alloc > uint64(bound) {
				t.Errorf("cleaning %d bytes into %d allocated %d, want at most the upstream body and a quarter of the client's (%d)", len(body), len(out), alloc, bound)
			}
		})
	}
}
