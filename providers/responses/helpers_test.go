package responses

import (
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
)

const testSigningKey = "test-signing-key"

var testSigner = emit.NewSigner([]byte(testSigningKey))

func testSettings() *providers.Settings {
	return &providers.Settings{DefaultThinking: true, Signer: testSigner}
}

// exchange parses body as the handler does and prepares an exchange.
func exchange(t testing.TB, s *providers.Settings, body string) *providers.Exchange {
	t.Helper()
	if s == nil {
		s = testSettings()
	}
	return providertest.Exchange(t, s, body)
}

const streamRequest = `{"model":"claude-test","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`

// runStream drives a StreamTranslator as the response writer does
// (providertest.RunStream).
func runStream(t testing.TB, tr *Translator, upstream []byte, chunk int) ([]byte, error) {
	t.Helper()
	em := emit.NewEmitter(tr.x.Settings.Form, tr.x.Settings.Signer)
	return providertest.RunStream(t, em, tr.NewStream(em), upstream, chunk)
}

// summary renders events one per line and accumulates them with the
// official SDK (providertest.Summary).
func summary(t testing.TB, out []byte) ([]string, anthropic.Message) {
	t.Helper()
	return providertest.Summary(t, out, ssetest.StopSequence|ssetest.Usage)
}

var diff = providertest.Diff

// q is s as the summary writes a text.
func q(s string) string { return ssetest.Quote(s) }

// respSig is the gateway's signature of a thinking block from a reasoning item.
func respSig(id, encrypted, thinking string) string {
	return testSigner.Sign(emit.OriginResponses, id+"\n"+encrypted, thinking)
}

func line(s ...string) []string { return s }

func jsonValid(b []byte) bool { return json.Valid(b) }
