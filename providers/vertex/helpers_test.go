package vertex

import (
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
)

// fixedTokens hands out one token and counts the requests for it.
type fixedTokens struct {
	asked atomic.Int32
	err   error
}

const testToken = "ya29.unit-test-token"

func (f *fixedTokens) AccessToken() (string, error) {
	f.asked.Add(1)
	if f.err != nil {
		return "", f.err
	}
	return testToken, nil
}

func testSettings() *providers.Settings {
	return &providers.Settings{DefaultThinking: true, Signer: emit.NewSigner([]byte("test-signing-key"))}
}

func newTestProvider(cfg Config) (*Provider, *fixedTokens) {
	if cfg.Project == "" {
		cfg.Project = "my-project"
	}
	if cfg.Location == "" {
		cfg.Location = "us-east5"
	}
	tokens := &fixedTokens{}
	return New(cfg, tokens), tokens
}

// rewrite parses body as the handler does for p and runs Rewrite on the
// client's headers.
func rewrite(t testing.TB, p *Provider, s *providers.Settings, path, body string, header http.Header) (*providers.Outbound, providers.Translator, error) {
	t.Helper()
	req, err := providers.ParseRequestFor(p, []byte(body))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	x := providers.NewExchange(s, req, []byte(body), providers.ExchangeOptions{Path: path, RawQuery: "beta=true", NewBody: providertest.DirtyBody})
	if header == nil {
		header = http.Header{}
	}
	out := &providers.Outbound{Path: path, RawQuery: "beta=true", Header: header}
	tr, err := p.Rewrite(x, out)
	return out, tr, err
}

// clientHeader is what a Claude Code-like client sends.
func clientHeader() http.Header {
	return http.Header{
		"X-Api-Key":         {"client-key"},
		"Authorization":     {"Bearer client-oauth"},
		"Anthropic-Version": {"2023-06-01"},
		"Anthropic-Beta":    {"claude-code-20250219,interleaved-thinking-2025-05-14", "files-api-2025-04-14, advanced-tool-use-2025-11-20"},
		"Cookie":            {"session=1"},
		"User-Agent":        {"claude-cli/2.0"},
	}
}
