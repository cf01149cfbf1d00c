package gemini

import (
	"testing"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
)

// FuzzRewriteLevels: with every model taking thinkingLevel, the request
// converter never panics, rejects input only with an Anthropic 4xx error,
// and otherwise builds a well-formed upstream request.
func FuzzRewriteLevels(f *testing.F) {
	for _, s := range fuzzcheck.Seeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"model":"gemini-3-pro","max_tokens":9000,"thinking":{"type":"enabled","budget_tokens":8193},"messages":[{"role":"user","content":"q"}]}`))
	f.Add([]byte(`{"model":"gemini-3-pro","max_tokens":9,"thinking":false,"messages":[{"role":"user","content":"q"}]}`))
	p := New(Config{APIKey: "k", Conversion: Conversion{ThinkingLevelModels: []string{"*"}}})
	f.Fuzz(func(t *testing.T, body []byte) { fuzzcheck.Rewrite(t, p, body) })
}
