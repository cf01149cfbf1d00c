package amazonq

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
