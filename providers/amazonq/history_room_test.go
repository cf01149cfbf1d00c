package amazonq

import (
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
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
	providertest.ConversionCost{
		Prepare: func(t *testing.T, body []byte) func() ([]byte, error) { return conversion(t, p, body) },
		Bound:   func(body, out int) int { return out + body*3/4 },
		Want:    "the upstream body and three quarters of the client's",
	}.Check(t, providertest.HistoryShapes, 4<<20)
}

// conversion readies body (a request shape) as the handler does after
// checking the converters agree on it, and returns the conversion, for
// providertest.ConversionCost.
func conversion(t *testing.T, p *Provider, body []byte) func() ([]byte, error) {
	t.Helper()
	checkFastMatchesTyped(t, p, testSettings(), body)
	req, err := wire.ScanRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	x := providers.NewExchange(testSettings(), req, body, providers.ExchangeOptions{Path: "/v1/messages"})
	return func() ([]byte, error) {
		out, _, err := p.convert(x)
		return out, err
	}
}
