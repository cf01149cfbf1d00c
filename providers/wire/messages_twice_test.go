package wire_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/requestshapes"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// TestMessagesGivenTwice: a body that gives messages as two arrays with
// no null between them, under any names encoding/json takes for the
// field, is refused by ScanRequest and ParseRequest alike with a 400 that
// names the rule, whatever else is wrong after it, and only JSON that is
// not valid or too many messages in the array encoding/json would keep
// are worded first. One null between the arrays, or one array, is a
// request.
func TestMessagesGivenTwice(t *testing.T) {
	const twice = "messages: given more than once; a request gives it once"
	for _, c := range []struct{ body, err string }{
		{`{"model":"m","messages":[{"role":"user","content":"x"}],"messages":[{"content":"y"}]}`, twice},
		{`{"model":"m","messages":[{"role":"user","content":"x"}],"MESSAGES":[]}`, twice},
		{`{"model":"m","Messages":[],"m\u0065ssages":[{"role":"user","content":"x"}]}`, twice},
		{`{"model":"m","messages":[],"messages":null,"messages":[{"role":"user","content":"x"}],"messages":[]}`, twice},
		{`{"model":"m","messages":[],"messages":[],"messages":null}`, twice},
		{`{"model":"m","messages":[{"role":"bot","content":"x"}],"messages":[{"role":"user"}]}`, twice},
		{`{"model":"m","messages":[],"messages":[],"max_tokens":"x"}`, twice},
		{`{"model":"m","messages":[],"messages":[],"x":[}`, "request body is not valid JSON"},
		{`{"model":"m","messages":[],"messages":[{"role":"user","content":"x"}],"messages":null,"messages":[{"role":"user","content":"y"}]}`, twice},
		{`{"model":"m","messages":[{"role":"user","content":"x"}],"Messages":null,"messages":[{"role":"user","content":"y"}]}`, ""},
		{`{"model":"m","messages":null,"messages":[{"role":"user","content":"y"}],"messages":"x"}`, "invalid request"},
	} {
		for name, read := range map[string]func([]byte) (*wire.Request, error){
			"ScanRequest": wire.ScanRequest, "ParseRequest": wire.ParseRequest,
		} {
			_, err := read([]byte(c.body))
			var pe *wire.Error
			switch {
			case c.err == "" && err != nil:
				t.Errorf("%s(%s): %v, want a request", name, c.body, err)
			case c.err == twice && (!errors.As(err, &pe) || pe.Status != 400 || pe.Type != "invalid_request_error" || pe.Message != twice):
				t.Errorf("%s(%s): %#v, want 400 invalid_request_error %q", name, c.body, err, twice)
			case c.err != "" && (err == nil || !bytes.HasPrefix([]byte(err.Error()), []byte("invalid_request_error: "+c.err))):
				t.Errorf("%s(%s): %v, want %q", name, c.body, err, c.err)
			}
		}
	}
}

// TestScanMemoryOnMessagesTwice: refusing a 4 MiB tiny_blocks history
// given twice costs the scan less than the body; before, the scan handed
// it to the full typed parse (~27× the body), which merged the two.
func TestScanMemoryOnMessagesTwice(t *testing.T) {
	tiny := requestshapes.TinyBlocks(4 << 20)
	at := bytes.Index(tiny, []byte(`"messages":[`))
	if at < 0 || !bytes.HasSuffix(tiny, []byte(`]}`)) {
		t.Fatal("tiny_blocks is no longer a messages array at the end")
	}
	history := tiny[at : len(tiny)-1]
	body := append(append(append([]byte(nil), tiny[:len(tiny)-1]...), ','), history...)
	body = append(body, '}')
	var err error
	allocated := providertest.AllocatedBy(func() { _, err = wire.ScanRequest(body) })
	if err == nil || err.Error() != "invalid_request_error: messages: given more than once; a request gives it once" {
		t.Fatalf("ScanRequest: %v", err)
	}
	t.Logf("%d bytes allocated for a %d-byte body (%.3f×)", allocated, len(body), float64(allocated)/float64(len(body)))
	if allocated > uint64(len(body)) {
		t.Errorf("ScanRequest allocated %d bytes for a %d-byte body, want less than the body", allocated, len(body))
	}
}
