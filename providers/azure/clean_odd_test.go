package azure

import (
	"bytes"
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/requestshapes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// TestOddMembersSentWhole: a history of tiny blocks each with a member in
// another case, a null one and a repeated one, and odd top-level members
// (requestshapes.OddMembers), is read by the scan itself and, since the
// cleaner's walk can take none of its blocks for thinking, sent as it
// came: reading and cleaning it allocate less than the body. Before, the
// scan handed it to the full typed parse (~18× the body) and the cleaner
// walked it (4× the body at the peak).
func TestOddMembersSentWhole(t *testing.T) {
	body := requestshapes.OddMembers(4 << 20)
	p := New(Config{APIKey: "k"})
	out, alloc := providertest.Allocated(t, func() ([]byte, error) {
		req, err := wire.ScanRequest(body)
		if err != nil {
			return nil, err
		}
		out, _, err := p.Clean(providers.NewExchange(testSettings(), req, body, providers.ExchangeOptions{}))
		return out, err
	})
	if !bytes.Equal(out, body) {
		t.Errorf("Clean changed the body (%d bytes, the client's %d)", len(out), len(body))
	}
	t.Logf("body %d, allocated %d", len(body), alloc)
	if !providertest.RaceEnabled && alloc > uint64(len(body)) {
		t.Errorf("reading and cleaning %d bytes allocated %d, want less than the body", len(body), alloc)
	}
}
