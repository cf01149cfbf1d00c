package vertex

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/providers"
)

// FuzzRewrite: whatever the client sends, the upstream target stays under
// the project's publisher path with one of Vertex's methods, and a Claude
// body is JSON with anthropic_version and without model (but for
// count_tokens).
func FuzzRewrite(f *testing.F) {
	f.Add(`{"model":"claude-sonnet-4@20250514","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, false, "interleaved-thinking-2025-05-14,files-api-2025-04-14")
	f.Add(`{"model":"gemini-2.5-pro","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, true, "")
	f.Add(`{"model":"claude-x/../../y?z#","max_tokens":5,"messages":[]}`, false, " , ,")
	p, _ := newTestProvider(Config{})
	f.Fuzz(func(t *testing.T, body string, countTokens bool, betas string) {
		req, err := providers.ParseRequestFor(p, []byte(body))
		if err != nil {
			return
		}
		path := "/v1/messages"
		if countTokens {
			path += "/count_tokens"
		}
		x := providers.NewExchange(testSettings(), req, []byte(body), providers.ExchangeOptions{Path: path})
		out := &providers.Outbound{Path: path, Header: http.Header{"Anthropic-Beta": {betas}}}
		if _, err := p.Rewrite(x, out); err != nil {
			return
		}
		prefix := "/v1/projects/my-project/locations/us-east5/publishers/"
		rest, ok := strings.CutPrefix(out.Path, prefix)
		if !ok || strings.ContainsAny(rest, "?#%\\") || strings.Contains(rest, "..") || strings.Count(rest, "/") != 2 {
			t.Fatalf("path %q", out.Path)
		}
		if p.PublisherFor(x.UpstreamModel) != PublisherAnthropic {
			return
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(out.Body, &fields); err != nil {
			t.Fatalf("body is not a JSON object: %v: %s", err, out.Body)
		}
		if string(fields["anthropic_version"]) != `"vertex-2023-10-16"` {
			t.Fatalf("anthropic_version %s", fields["anthropic_version"])
		}
		if _, has := fields["model"]; has != countTokens {
			t.Fatalf("model in body: %v, count_tokens: %v", has, countTokens)
		}
		for _, v := range strings.Split(out.Header.Get("Anthropic-Beta"), ",") {
			if v == "files-api-2025-04-14" || (v == "" && out.Header.Get("Anthropic-Beta") != "") {
				t.Fatalf("anthropic-beta %q", out.Header.Get("Anthropic-Beta"))
			}
		}
	})
}
