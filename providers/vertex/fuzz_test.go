package vertex

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/oauth2"

	"github.com/thinkgate/thinkgate/internal/providertest"
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
		x := providers.NewExchange(testSettings(), req, []byte(body), providers.ExchangeOptions{Path: path, NewBody: providertest.DirtyBody})
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

// FuzzTokenError: whatever the token endpoint answers, the client's error
// says the credential failed, in valid UTF-8 of bounded length, with one
// of the three statuses.
func FuzzTokenError(f *testing.F) {
	f.Add(400, []byte(`{"error":"invalid_grant","error_description":"Invalid JWT Signature."}`))
	f.Add(503, []byte(`<html>unavailable</html>`))
	f.Add(403, []byte(`{"error":"\xff\xfe","error_description":123}`))
	f.Add(401, []byte("{\"error\":\""+strings.Repeat("\xffa", 300)+"\",\"error_description\":\""+strings.Repeat("é", 300)+"\"}"))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		e := TokenError(&oauth2.RetrieveError{Response: &http.Response{StatusCode: status}, Body: body})
		switch {
		case !strings.HasPrefix(e.Message, credentialFailed):
			t.Fatalf("message %q", e.Message)
		case !utf8.ValidString(e.Message) || len(e.Message) > len(credentialFailed)+64+2*maxErrorText:
			t.Fatalf("message of %d bytes: %q", len(e.Message), e.Message)
		case e.Status != 401 && e.Status != 403 && e.Status != 502:
			t.Fatalf("status %d", e.Status)
		case !json.Valid(e.Body()):
			t.Fatalf("body %s", e.Body())
		}
	})
}
