package converse

import (
	"fmt"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
)

var testSigner = emit.NewSigner([]byte("test-signing-key"))

func testSettings() *providers.Settings {
	return &providers.Settings{DefaultThinking: true, Signer: testSigner}
}

// exchange parses body as the handler does and prepares an exchange.
func exchange(t testing.TB, s *providers.Settings, path, body string) *providers.Exchange {
	t.Helper()
	if s == nil {
		s = testSettings()
	}
	if path == "" {
		path = "/v1/messages"
	}
	return providertest.ExchangeAt(t, s, path, body)
}

// bedrockSig is the gateway's signature of a thinking block from Bedrock.
func bedrockSig(signature, thinking string) string {
	return testSigner.Sign(emit.OriginBedrock, signature, thinking)
}

// summary renders events one per line and accumulates them with the
// official SDK, which must accept every event.
func summary(t testing.TB, out []byte) ([]string, anthropic.Message) {
	t.Helper()
	return providertest.Summary(t, out, ssetest.StopSequence|ssetest.Usage)
}

func q(s string) string { return ssetest.Quote(s) }

func usageJSON(in, out, cacheWrite, cacheRead int) string {
	return fmt.Sprintf(`{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d}`, in, cacheWrite, cacheRead, out)
}

func line(s ...string) []string { return s }
