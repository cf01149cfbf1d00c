package gemini

import (
	"testing"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
)

// FuzzRewrite: the request converter never panics, rejects input only with
// an Anthropic 4xx error, and otherwise builds a well-formed upstream request.
func FuzzRewrite(f *testing.F) {
	for _, s := range fuzzcheck.Seeds {
		f.Add([]byte(s))
	}
	p := New(Config{APIKey: "k"})
	f.Fuzz(func(t *testing.T, body []byte) { fuzzcheck.Rewrite(t, p, body) })
}

// FuzzTranslate: the stream translator never panics and writes only
// well-formed events, for any upstream bytes split anywhere.
func FuzzTranslate(f *testing.F) {
	f.Add([]byte("data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"plan\",\"thought\":true,\"thoughtSignature\":\"c2ln\"}]}}]}\r\n\r\ndata: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"hi\"},{\"functionCall\":{\"name\":\"f\",\"args\":{\"a\":1}},\"thoughtSignature\":\"c2ln\"}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":3,\"candidatesTokenCount\":2,\"thoughtsTokenCount\":1}}\r\n\r\n"), []byte{3, 1, 7})
	p := New(Config{APIKey: "k"})
	f.Fuzz(func(t *testing.T, upstream, splits []byte) { fuzzcheck.Stream(t, p, upstream, splits) })
}
