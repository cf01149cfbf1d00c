package bedrock

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/thinkgate/thinkgate/internal/eventstreamtest"
	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// Test credentials, set in the environment for the SDK's chain.
const (
	testAccessKey = "AKIDBEDROCKUNIT"
	testSecretKey = "bedrock-unit-secret"
	testToken     = "bedrock-unit-session-token"
)

// signingTime is the clock of every signed request in the unit tests.
var signingTime = time.Date(2025, 11, 7, 21, 16, 1, 0, time.UTC)

func testSettings(split bool) *providers.Settings {
	return &providers.Settings{SplitTags: split, DefaultThinking: true, Signer: emit.NewSigner([]byte("test-signing-key"))}
}

// isolateAWS points the SDK's chain at test-only sources: the environment
// variables given (pairs) and no shared files or instance metadata.
func isolateAWS(t *testing.T, env ...string) {
	dir := t.TempDir()
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
		"AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_BEARER_TOKEN_BEDROCK"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	for i := 0; i+1 < len(env); i += 2 {
		t.Setenv(env[i], env[i+1])
	}
}

// sigV4Provider is a provider signing with the test credentials.
func sigV4Provider(t *testing.T, cfg Config) *Provider {
	t.Helper()
	isolateAWS(t, "AWS_ACCESS_KEY_ID", testAccessKey, "AWS_SECRET_ACCESS_KEY", testSecretKey, "AWS_SESSION_TOKEN", testToken)
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	p, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	p.SetClock(func() time.Time { return signingTime })
	return p
}

// keyProvider is a provider with an API key (no AWS configuration).
func keyProvider(t testing.TB, cfg Config) *Provider {
	t.Helper()
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	cfg.APIKey = "bedrock-key"
	p, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func exchange(t testing.TB, s *providers.Settings, body string, path string) *providers.Exchange {
	t.Helper()
	req, err := wire.ScanRequest([]byte(body))
	if err != nil {
		t.Fatalf("ScanRequest: %v", err)
	}
	x := providers.NewExchange(s, req, []byte(body), providers.ExchangeOptions{Path: path, NewBody: providertest.DirtyBody})
	x.MessageID = "msg_test"
	return x
}

// clientHeader is what a client of the SDK sends, credentials and AWS
// headers of its own included.
func clientHeader() http.Header {
	return http.Header{
		"Content-Type":                       {"application/json"},
		"Accept":                             {"application/json"},
		"Anthropic-Version":                  {"2023-06-01"},
		"Anthropic-Beta":                     {"claude-code-20250219,interleaved-thinking-2025-05-14", "fine-grained-tool-streaming-2025-05-14"},
		"X-Api-Key":                          {"client-key"},
		"Authorization":                      {"Bearer client-token"},
		"X-Amz-Security-Token":               {"client-amz-token"},
		"X-Amzn-Bedrock-Guardrailidentifier": {"client-guardrail"},
		"X-Amz-Date":                         {"20000101T000000Z"},
		"User-Agent":                         {"Anthropic/Go 1.0"},
	}
}

// chunk is a chunk frame carrying one Anthropic event.
func chunk(t testing.TB, event string) []byte {
	payload := fmt.Sprintf(`{"bytes":%q,"p":"abcd"}`, base64.StdEncoding.EncodeToString([]byte(event)))
	return eventstreamtest.Event("chunk", []byte(payload))
}

func exception(t testing.TB, name, message string) []byte {
	return eventstreamtest.Exception(name, message)
}

// translate runs an InvokeModelWithResponseStream body through the
// translator of x, in pieces cut at cuts, and returns what the client got:
// the events, or the HTTP error of a stream that failed before any.
func translate(t testing.TB, x *providers.Exchange, body []byte, cuts ...int) ([]byte, *wire.Error) {
	t.Helper()
	h := NewTranslator(x).Handle(200, http.Header{"Content-Type": {"application/vnd.amazon.eventstream"}})
	if h.NewStream == nil {
		t.Fatal("no stream handling")
	}
	var out []byte
	st := providertest.OpenStream(x, h.NewStream, func(ev []byte) { out = append(out, ev...) }, 16<<10)
	prev := 0
	var err error
	for _, c := range append(cuts, len(body)) {
		if err = st.Write(body[prev:c]); err != nil {
			break
		}
		prev = c
	}
	if err == nil {
		err = st.Close()
	}
	if err != nil {
		if e := st.Fail(err); e != nil {
			return out, e
		}
	}
	return out, nil
}

func summary(t testing.TB, sse []byte) []string {
	t.Helper()
	return providertest.Lines(t, sse, ssetest.Usage|ssetest.MaskSignatures)
}

func writeFile(t testing.TB, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}
