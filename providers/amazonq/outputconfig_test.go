package amazonq

import (
	"bytes"
	"testing"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// TestOutputConfig: a json_schema format is refused with a 400 naming the
// provider, before anything is sent; an effort changes nothing of the
// upstream body (Amazon Q has no effort to set).
func TestOutputConfig(t *testing.T) {
	p := testProvider(Config{})
	const plain = `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"Hi"}]}`
	format := `{"model":"m","max_tokens":100,"output_config":{"format":{"type":"json_schema","schema":{"type":"object"}}},"messages":[{"role":"user","content":"Hi"}]}`
	_, err := p.Rewrite(exchange(t, testSettings(), format), &providers.Outbound{Header: map[string][]string{}})
	e, ok := err.(*wire.Error)
	if !ok || e.Status != 400 || e.Type != "invalid_request_error" ||
		e.Message != "output_config.format: structured outputs are not supported by the amazonq provider" {
		t.Fatalf("format: %v", err)
	}
	effort := `{"model":"m","max_tokens":100,"output_config":{"effort":"high"},"messages":[{"role":"user","content":"Hi"}]}`
	want, _, err := p.convert(exchange(t, testSettings(), plain))
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := p.convert(exchange(t, testSettings(), effort))
	if err != nil {
		t.Fatal(err)
	}
	// The conversation id is random per request without a session: compare
	// the bodies with it cut out.
	cut := func(b []byte) []byte {
		if i := bytes.Index(b, []byte(`"conversationId":"`)); i >= 0 {
			j := bytes.IndexByte(b[i+18:], '"')
			return append(append([]byte(nil), b[:i]...), b[i+18+j:]...)
		}
		return b
	}
	if !bytes.Equal(cut(got), cut(want)) {
		t.Errorf("with effort:\n%s\nwithout:\n%s", got, want)
	}
}
