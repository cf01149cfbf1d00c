package anthropic

import (
	"testing"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// scanSigner signs the seeds' gateway thinking.
var scanSigner = emit.NewSigner([]byte("scan-test-key"))

// scanSeeds hold the gateway's signatures, valid and stale, beside
// Anthropic's own.
var scanSeeds = []string{
	`{"model":"claude-x","thinking":{"type":"enabled","budget_tokens":1024},"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"` + scanSigner.Sign(emit.OriginTags, "", "t") + `"},{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"r"}]}]}`,
	`{"model":"claude-x","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"g","signature":"` + scanSigner.Sign(emit.OriginGemini, "CiQB", "g") + `"}]},{"role":"user","content":"q"}]}`,
	`{"model":"claude-x","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"tg1t.c3RhbGU.bWFj"},{"type":"text","text":"a"}]}]}`,
	`{"model":"claude-x","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"EqQBCkgIARAB"},{"type":"text","text":"a \u00e9 \ud800"}]}]}`,
	// Messages the scan reads by encoding/json's rules.
	`{"model":"claude-x","messages":[{"Role":"assistant","CONTENT":[{"type":"thinking","thinking":"t","signature":"` + scanSigner.Sign(emit.OriginTags, "", "t") + `"}]},{"r\u006fle":"user","content":"q"}]}`,
	`{"model":"claude-x","messages":[{"role":"user","role":"assistant","content":"x","content":[{"type":"thinking","thinking":"t","signature":"` + scanSigner.Sign(emit.OriginTags, "", "t") + `"}]}]}`,
	`{"model":"claude-x","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"` + scanSigner.Sign(emit.OriginTags, "", "t") + `"}],"role":"user"}]}`,
	`{"model":"claude-x","messages":[{"role":"assistant","role":null,"content":[{"type":"thinking","thinking":"t","signature":"` + scanSigner.Sign(emit.OriginTags, "", "t") + `"}],"content":null}]}`,
	`{"model":"claude-x","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"` + scanSigner.Sign(emit.OriginTags, "", "t") + `"}]},{"role":"bot","content":"q"}]}`,
	`{"model":"claude-x","messages":[null,{"content":"q"}]}`,
	// Blocks and top-level members the scan reads by encoding/json's rules.
	`{"model":"claude-x","messages":[{"role":"assistant","content":[{"Type":"thinking","THINKING":"t","signature":null,"Signature":"` + scanSigner.Sign(emit.OriginTags, "", "t") + `"},{"type":"text","text":"a","text":null}]}]}`,
	`{"model":"claude-x","messages":[{"role":"assistant","content":[{"type":"text","type":"thinking","thinking":"t","signature":"` + scanSigner.Sign(emit.OriginTags, "", "t") + `"}]}]}`,
	`{"Model":"claude-x","model":null,"stream":null,"Stream":false,"max_tokens":1,"MAX_TOKENS":2,"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"` + scanSigner.Sign(emit.OriginTags, "", "t") + `"}]}]}`,
	`{"model":"claude-x","messages":null,"Messages":[{"role":"user","content":"q"}],"MESSAGES":null,"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"` + scanSigner.Sign(emit.OriginTags, "", "t") + `"}]}]}`,
	"{\"model\":\"claude-\xff\\ud800\",\"messages\":[{\"role\":\"user\",\"content\":\"q\"}],\"tools\":[{\"Name\":\"f\",\"name\":null,\"input_schema\":{}}]}",
}

// rewriteBothWays rewrites body read with ScanRequest and with
// ParseRequest, with and without a model to map.
func rewriteBothWays(t *testing.T, body []byte) {
	t.Helper()
	for _, models := range [][]providers.ModelRule{nil, {{From: "claude-*", To: "claude-y"}}} {
		s := &providers.Settings{Signer: scanSigner, Models: models}
		rewrite := func(read func([]byte) (*wire.Request, error)) ([]byte, error) {
			req, err := read(body)
			if err != nil {
				return nil, err
			}
			return RewriteBody(providers.NewExchange(s, req, body, providers.ExchangeOptions{NewBody: providertest.DirtyBody}))
		}
		got, err := rewrite(wire.ScanRequest)
		want, errRef := rewrite(wire.ParseRequest)
		if string(got) != string(want) || (err == nil) != (errRef == nil) || (err != nil && err.Error() != errRef.Error()) {
			t.Fatalf("RewriteBody(%s):\nscanned: %s %v\nparsed:  %s %v", body, got, err, want, errRef)
		}
	}
}

// TestRewriteScanned: a request read with ScanRequest goes upstream as one
// read with ParseRequest does, its gateway-signed history rewritten.
func TestRewriteScanned(t *testing.T) {
	for _, s := range append(append([]string(nil), scanSeeds...), fuzzcheck.Seeds...) {
		rewriteBothWays(t, []byte(s))
	}
	// The seeds do exercise the rewrite (from the client's bytes: the
	// request stays scanned).
	req, _ := wire.ScanRequest([]byte(scanSeeds[0]))
	got, err := RewriteBody(providers.NewExchange(&providers.Settings{Signer: scanSigner}, req, []byte(scanSeeds[0]), providers.ExchangeOptions{}))
	if err != nil || string(got) == scanSeeds[0] {
		t.Fatalf("signed history not rewritten: %s %v", got, err)
	}
}

// FuzzRewriteScanned: TestRewriteScanned for any request.
func FuzzRewriteScanned(f *testing.F) {
	for _, s := range append(append([]string(nil), scanSeeds...), fuzzcheck.Seeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(rewriteBothWays)
}
