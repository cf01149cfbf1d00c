package gemini

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

const testKey = "test-signing-key"

func testSettings() *providers.Settings {
	return &providers.Settings{
		DefaultThinking: true,
		Signer:          emit.NewSigner([]byte(testKey)),
	}
}

// exchange parses body as the handler would.
func exchange(t testing.TB, s *providers.Settings, body string) *providers.Exchange {
	t.Helper()
	return providertest.Exchange(t, s, body)
}

// rewrite runs the provider's Rewrite on a fresh outbound request.
func rewrite(t testing.TB, p *Provider, x *providers.Exchange, header http.Header) (*providers.Outbound, error) {
	t.Helper()
	if header == nil {
		header = http.Header{}
	}
	out := &providers.Outbound{Path: "/v1/messages", RawQuery: "beta=true", Header: header}
	_, err := p.Rewrite(x, out)
	return out, err
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var toolIDPattern = regexp.MustCompile(`toolu_[A-Za-z0-9_-]+`)

// normalizeToolIDs replaces the random tool_use ids in out by what they
// carry, so output with generated ids can be compared with a golden file.
func normalizeToolIDs(t testing.TB, s *emit.Signer, out []byte) []byte {
	t.Helper()
	return toolIDPattern.ReplaceAllFunc(out, func(id []byte) []byte {
		if !validToolID.Match(id) {
			t.Errorf("tool_use id %q is not in the Anthropic id alphabet", id)
		}
		sig, callID, ok := decodeToolID(s, string(id))
		if !ok {
			if len(id) != toolIDRandom {
				t.Errorf("tool_use id %q is neither plain nor decodable", id)
			}
			return []byte("toolu_PLAIN")
		}
		return []byte("toolu_SIG[" + sig + "]ID[" + callID + "]")
	})
}

var validToolID = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// streamResult is what a client would get from a translated stream.
type streamResult struct {
	events   []byte
	writeErr error
	closeErr error
}

// runStream feeds body to a new StreamTranslator in writes of n bytes, handling errors
// the way caddymodule's response writer does.
func runStream(t testing.TB, x *providers.Exchange, body []byte, n int) streamResult {
	t.Helper()
	em := emit.NewEmitter(x.Settings.Form, x.Settings.Signer)
	s := NewTranslator(x).NewStream(em)
	var r streamResult
	var out []byte
	for len(body) > 0 {
		k := min(n, len(body))
		if err := s.Write(body[:k]); err != nil {
			r.writeErr = err
			e := wire.AsError(err)
			em.Fail(e.Type, e.Message)
			break
		}
		body = body[k:]
		out = append(out, em.Events()...)
		em.Flush()
		if em.Finished() {
			break
		}
	}
	if r.writeErr == nil && !em.Finished() {
		if err := s.Close(); err != nil {
			r.closeErr = err
			e := wire.AsError(err)
			em.Fail(e.Type, e.Message)
		}
	}
	out = append(out, em.Events()...)
	r.events = out
	return r
}
