package amazonq

import (
	"runtime"
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/requestshapes"
	"github.com/thinkgate/thinkgate/providers"
)

// TestHistoryCostsItsBytes holds the conversion of the history-heavy
// shapes (docs/performance.md, "Memory on every request shape") to the
// upstream body's bytes and three quarters of the client's in allocations
// (the bound on memory beyond the body is twice the body): the history's
// room is sized for the messages before the last with their entries'
// framing, a current message too long for the head is written into a body
// of its own size, and the turn's stage grows by doubling. Before, a
// request of one long turn held a history room the size of the whole
// body, and many short turns grew the history's buffer by a quarter while
// holding the old one.
func TestHistoryCostsItsBytes(t *testing.T) {
	p := testProvider(Config{})
	for _, shape := range []struct {
		name  string
		build func(int) []byte
	}{
		{"tiny_blocks", requestshapes.TinyBlocks},
		{"many_messages", requestshapes.ManyMessages},
		{"nested_inputs", requestshapes.NestedInputs},
		{"empty_strings", requestshapes.EmptyStrings},
	} {
		t.Run(shape.name, func(t *testing.T) {
			body := shape.build(4 << 20)
			out, alloc := convertAllocs(t, p, body)
			t.Logf("body %d, upstream body %d, allocated %d", len(body), len(out), alloc)
			if !providertest.RaceEnabled && alloc > uint64(len(out))+uint64(len(body))*3/4 {
				t.Errorf("converting %d bytes to %d allocated %d bytes, want at most the upstream body and three quarters of the client's", len(body), len(out), alloc)
			}
		})
	}
}

// convertAllocs converts body (a request shape) after checking the
// converters agree on it, and returns the upstream body and the bytes the
// conversion allocated.
func convertAllocs(t *testing.T, p *Provider, body []byte) ([]byte, uint64) {
	t.Helper()
	checkFastMatchesTyped(t, p, testSettings(), body)
	req, err := providers.ScanRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	x := providers.NewExchange(testSettings(), req, body, providers.ExchangeOptions{Path: "/v1/messages"})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, _, err := p.convert(x)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	return out, after.TotalAlloc - before.TotalAlloc
}
