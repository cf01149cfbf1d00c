package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// unsignSettings are the settings the byte path is compared under: the
// seeds' key, that key as the previous one of a new key, and no key.
var unsignSettings = []*providers.Settings{
	{Signer: scanSigner},
	{Signer: emit.NewSigner([]byte("the key after the rotation"), []byte("scan-test-key"))},
	{Signer: scanSigner, Models: []providers.ModelRule{{From: "claude-*", To: "claude-y"}}},
	{},
}

// rewriteWith rewrites body read with ScanRequest (scanned) or
// ParseRequest (as after a thinkgate matcher), with RewriteBody or the
// typed rewrite, and returns what it returns and what MarshalFields
// writes after it (as vertex does).
func rewriteWith(s *providers.Settings, body []byte, scanned, typed bool) (out, again []byte, err error) {
	read := wire.ParseRequest
	if scanned {
		read = wire.ScanRequest
	}
	req, err := read(body)
	if err != nil {
		return nil, nil, err
	}
	rewrite := RewriteBody
	if typed {
		rewrite = typedRewriteBody
	}
	out, err = rewrite(providers.NewExchange(s, req, body, providers.ExchangeOptions{NewBody: providertest.DirtyBody}))
	if err != nil {
		return nil, nil, err
	}
	again, err = req.MarshalFields()
	return out, again, err
}

// rewriteScanned is rewriteWith for a scanned body.
func rewriteScanned(s *providers.Settings, body []byte, fromBytes bool) (out, again []byte, err error) {
	return rewriteWith(s, body, true, !fromBytes)
}

// unsignBothWays checks that the rewrite writes what the typed rewrite
// writes, and fails as it fails, however the request was read.
func unsignBothWays(t *testing.T, body []byte) {
	t.Helper()
	sent := string(body)
	for i, s := range unsignSettings {
		want, wantAgain, errRef := rewriteWith(s, body, false, true)
		for _, scanned := range []bool{true, false} {
			got, gotAgain, err := rewriteWith(s, body, scanned, false)
			if string(body) != sent {
				t.Fatalf("settings %d: the client's body changed:\n%s\nwas\n%s", i, body, sent)
			}
			if (err == nil) != (errRef == nil) || err != nil && err.Error() != errRef.Error() {
				t.Fatalf("settings %d, scanned %v, %s:\nbytes error %v\ntyped error %v", i, scanned, body, err, errRef)
			}
			if string(got) != string(want) {
				t.Fatalf("settings %d, scanned %v, %s:\nbytes %s\ntyped %s", i, scanned, body, got, want)
			}
			if string(gotAgain) != string(wantAgain) {
				t.Fatalf("settings %d, scanned %v, %s, MarshalFields after:\nbytes %s\ntyped %s", i, scanned, body, gotAgain, wantAgain)
			}
		}
	}
}

// signedSeeds are the fuzz seeds with each assistant thinking block signed
// by the gateway (for tag-derived thinking, then as Gemini's), so that
// their signatures verify.
func signedSeeds() []string {
	var out []string
	for _, origin := range []emit.Origin{emit.OriginTags, emit.OriginGemini} {
		for _, seed := range append(append([]string(nil), scanSeeds...), fuzzcheck.Seeds...) {
			var req map[string]any
			if json.Unmarshal([]byte(seed), &req) != nil {
				continue
			}
			msgs, _ := req["messages"].([]any)
			signed := false
			for _, m := range msgs {
				m, _ := m.(map[string]any)
				blocks, _ := m["content"].([]any)
				if m["role"] != "assistant" {
					continue
				}
				for _, b := range blocks {
					b, _ := b.(map[string]any)
					if b["type"] == "thinking" {
						text, _ := b["thinking"].(string)
						b["signature"] = scanSigner.Sign(origin, "", text)
						signed = true
					}
				}
			}
			if signed {
				body, _ := json.Marshal(req)
				out = append(out, string(body))
			}
		}
	}
	return out
}

// unsignShapes are histories shaped to take each branch of the byte path:
// members in any order and spacing, a content before its role (guessed
// right and wrong), absent and string contents, escapes in a block's type
// and signature, what json.Marshal escapes (<, &, U+2028) in kept content.
func unsignShapes() []string {
	sig := scanSigner.Sign(emit.OriginTags, "", "t")
	esc := strings.Replace(sig, "tg1", `tg\u0031`, 1)
	return []string{
		`{"model":"claude-x","messages":[{"content":"first","role":"user"},{"content":[{"type":"thinking","thinking":"t","signature":"` + sig + `"}],"role":"assistant"},{"content":[{"type":"text","text":"x < y & z ` + "\u2028" + `"}],"role":"user"}]}`,
		`{"model":"claude-x","messages":[{"role":"user"},{"content":[{"type":"thinking","thinking":"t","signature":"` + sig + `"},{"type":"text","text":"a"}],"role":"assistant"},{"content":"b","role":"assistant"},{"content":[ {"type" : "text" , "text":"c"} ],"role":"user"},{"role":"system","content":"s"}]}`,
		` { "messages" : [ { "role" : "assistant" , "content" : [ { "type" : "thinkin\u0067" , "signature" : "` + esc + `" , "thinking" : "t" } , { "type":"tool_use","id":"toolu_1","name":"f","input": { "a" : [1, 2] } } ] , "x": null } ] , "model" : "claude-x", "thinking": true } `,
		`{"model":"claude-x","thinking":{"type":"enabled","budget_tokens":1024},"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"r"}]},{"role":"assistant","content":[{"type":"redacted_thinking","data":"` + sig + `"},{"type":"text","text":"<b>"}]},{"role":"assistant"}]}`,
		`{"model":"claude-x","thinking":{"type":"disabled"},"messages":[{"role":"assistant","content":[{"type":"thinking","signature":"` + scanSigner.Sign(emit.OriginTags, "", "") + `"},{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]}]}`,
		`{"model":"claude-x","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"` + sig + `"},{"type":"thinking","thinking":"\u0075","signature":"` + strings.Replace(scanSigner.Sign(emit.OriginTags, "", "u"), "tg1", `tg\u0031`, 1) + `"},{"type":"thinking","thinking":"t","signature":"` + sig + `"}]}]}`,
		`{"model":"claude-x","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"caf\u00e9 \ud83d\ude00 \ud800 \/","signature":"` + scanSigner.Sign(emit.OriginTags, "", "café 😀 \uFFFD /") + `"}]},{"role":"user","content":"caf\u00e9 \u003c"}]}`,
		// What encoding/json reads by its own rules: names in another case
		// or escaped, repeated members, nulls, a null block, the messages
		// given again after a null.
		`{"model":"claude-x","messages":[{"ROLE":"assistant","Content":[null,{"TYPE":"thinking","Thinking":"t","thinking":null,"SIGNATURE":"` + sig + `"},{"type":"text","text":"a"}]},{"r\u006fle":"user","content":"b","content":null}]}`,
		`{"model":"claude-x","Messages":[{"role":"user","content":"q"}],"MESSAGES":null,"messages":[{"role":"user","content":"r"},{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"x","signature":"` + sig + `"}]}]}`,
		`{"model":"claude-x","messages":[{"role":"assistant","content":[{"type":"redacted_thinking","data":null,"Data":"` + sig + `"},{"type":"thinking","thinking":"t","signature":"` + sig + `"}]},{"role":"user","content":[{"type":"text","text":"\ud800"}]}]}`,
	}
}

// unsignSeeds are the bodies of the exact tests below and the signed seeds.
func unsignSeeds() []string {
	seeds := append(append([]string(nil), scanSeeds...), unsignShapes()...)
	for _, c := range unsignCases() {
		seeds = append(seeds, c.body)
	}
	return append(seeds, signedSeeds()...)
}

// TestUnsignBytesMatchesTyped: FuzzUnsignBytesMatchesTyped on its seeds.
func TestUnsignBytesMatchesTyped(t *testing.T) {
	seeds := unsignSeeds()
	if len(seeds) < 10 {
		t.Fatalf("only %d seeds", len(seeds))
	}
	for _, s := range seeds {
		unsignBothWays(t, []byte(s))
	}
	// The shapes are written from the bytes: the history stays undecoded.
	for _, body := range unsignShapes() {
		req, err := wire.ScanRequest([]byte(body))
		if err != nil || !req.GatewayThinking {
			t.Fatalf("%s: %v, gateway thinking %v", body, err, err == nil && req.GatewayThinking)
		}
		scanned := req.Scanned() // not for what the scan leaves to ParseRequest
		if _, err := RewriteBody(providers.NewExchange(&providers.Settings{Signer: scanSigner}, req, []byte(body), providers.ExchangeOptions{})); err != nil || scanned && !req.Scanned() {
			t.Errorf("decoded (err %v): %s", err, body)
		}
	}
}

// FuzzUnsignBytesMatchesTyped: the history rewrite from the client's bytes
// writes exactly the typed path's body, for any body.
func FuzzUnsignBytesMatchesTyped(f *testing.F) {
	for _, s := range unsignSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(unsignBothWays)
}

type unsignCase struct{ name, body, want string }

// unsignCases are requests with gateway-signed history and the exact body
// Anthropic gets for each.
func unsignCases() []unsignCase {
	tags := func(text string) string { return scanSigner.Sign(emit.OriginTags, "", text) }
	gemini := scanSigner.Sign(emit.OriginGemini, "CiQB", "Gemini thought.")
	stale := emit.NewSigner([]byte("another instance")).Sign(emit.OriginTags, "", "Old thought.")
	return []unsignCase{
		{"tag-origin thinking becomes text in place, thinking off for the tool turn, model kept",
			`{"model":"claude-x", "thinking":{"type":"enabled","budget_tokens":1024},"max_tokens":100,
			 "messages":[{"role":"user","content":"weather?"},
			  {"role":"assistant","content":[{"type":"text","text":"Let me see."},{"type":"thinking","thinking":"Need the weather.","signature":"` + tags("Need the weather.") + `"},{"type":"tool_use","id":"toolu_1","name":"w","input":{"city": "Paris"}}]},
			  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"sun"}]}]}`,
			`{"max_tokens":100,"messages":[{"role":"user","content":"weather?"},{"role":"assistant","content":[{"type":"text","text":"Let me see."},{"type":"text","text":"\u003cthinking\u003eNeed the weather.\u003c/thinking\u003e"},{"type":"tool_use","id":"toolu_1","name":"w","input":{"city":"Paris"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"sun"}]}],"model":"claude-x"}`},
		{"foreign-origin thinking dropped, emptied turn dropped, thinking kept when the tool turn opens with thinking",
			`{"model":"claude-x","thinking":{"type":"enabled","budget_tokens":1024},"messages":[{"role":"user","content":"q"},
			  {"role":"assistant","content":[{"type":"thinking","thinking":"Gemini thought.","signature":"` + gemini + `"}]},
			  {"role":"user","content":"go on"},
			  {"role":"assistant","content":[{"type":"thinking","thinking":"Mine.","signature":"EqQBCkgIBxAB"},{"type":"redacted_thinking","data":"` + gemini + `"},{"type":"tool_use","id":"toolu_2","name":"f","input":{}}]},
			  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"ok"}]}]}`,
			`{"messages":[{"role":"user","content":"q"},{"role":"user","content":"go on"},{"role":"assistant","content":[{"type":"thinking","thinking":"Mine.","signature":"EqQBCkgIBxAB"},{"type":"tool_use","id":"toolu_2","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"ok"}]}],"model":"claude-x","thinking":{"type":"enabled","budget_tokens":1024}}`},
		{"stale envelope dropped, its text not kept",
			`{"model":"claude-x","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"Old thought.","signature":"` + stale + `"},{"type":"text","text":"a"}]},{"role":"user","content":"b"}]}`,
			`{"messages":[{"role":"assistant","content":[{"type":"text","text":"a"}]},{"role":"user","content":"b"}],"model":"claude-x"}`},
		{"escapes in the thinking text written as encoding/json writes them",
			`{"model":"claude-x","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"a\/b caf\u00e9 \"q\" x<y & \u2028 tab\t","signature":"` + tags("a/b café \"q\" x<y & \u2028 tab\t") + `"}]},{"role":"user","content":"c\/d <e>"}]}`,
			`{"messages":[{"role":"assistant","content":[{"type":"text","text":"\u003cthinking\u003ea/b café \"q\" x\u003cy \u0026 \u2028 tab\t\u003c/thinking\u003e"}]},{"role":"user","content":"c/d \u003ce\u003e"}],"model":"claude-x"}`},
		{"thinking deleted when the last tool turn lacks thinking; other members as MarshalFields writes them",
			`{"stream":true,"model":"claude-x","thinking":{"type":"adaptive"},"system":[{"type":"text","text":"be <brief>"}],"metadata":{"user_id":"u"},
			  "messages":[{"content":[{"type":"text","text":"q"}],"role":"user","extra":1},
			  {"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"` + tags("t") + `"},{"type":"tool_use","id":"toolu_3","name":"f","input":{ }}]},
			  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_3","content":"r"}]}]}`,
			`{"messages":[{"role":"user","content":[{"type":"text","text":"q"}]},{"role":"assistant","content":[{"type":"text","text":"\u003cthinking\u003et\u003c/thinking\u003e"},{"type":"tool_use","id":"toolu_3","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_3","content":"r"}]}],"metadata":{"user_id":"u"},"model":"claude-x","stream":true,"system":[{"type":"text","text":"be \u003cbrief\u003e"}]}`},
	}
}

// TestUnsignBytes: the exact body Anthropic gets for gateway-signed
// history, from the client's bytes (the request stays undecoded) and from
// the typed path alike.
func TestUnsignBytes(t *testing.T) {
	for _, c := range unsignCases() {
		t.Run(c.name, func(t *testing.T) {
			for _, fromBytes := range []bool{true, false} {
				got, _, err := rewriteScanned(&providers.Settings{Signer: scanSigner}, []byte(c.body), fromBytes)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != c.want {
					t.Errorf("from bytes %v:\ngot  %s\nwant %s", fromBytes, got, c.want)
				}
			}
			req, _ := wire.ScanRequest([]byte(c.body))
			if _, err := RewriteBody(providers.NewExchange(&providers.Settings{Signer: scanSigner}, req, []byte(c.body), providers.ExchangeOptions{})); err != nil || !req.Scanned() {
				t.Errorf("the history was decoded (err %v): the byte path did not write it", err)
			}
		})
	}
}

// TestUnsignBytesModelReplaced: the upstream model replaces the client's
// in the rewritten body.
func TestUnsignBytesModelReplaced(t *testing.T) {
	body := `{"model":"claude-x","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"` +
		scanSigner.Sign(emit.OriginTags, "", "t") + `"},{"type":"text","text":"a"}]}]}`
	s := &providers.Settings{Signer: scanSigner, Models: []providers.ModelRule{{From: "claude-*", To: "claude-y-<1>"}}}
	got, _, err := rewriteScanned(s, []byte(body), true)
	want := `{"messages":[{"role":"assistant","content":[{"type":"text","text":"\u003cthinking\u003et\u003c/thinking\u003e"},{"type":"text","text":"a"}]}],"model":"claude-y-\u003c1\u003e"}`
	if err != nil || string(got) != want {
		t.Fatalf("got  %s %v\nwant %s", got, err, want)
	}
	if strings.Contains(string(got), "claude-x") {
		t.Fatal("client's model forwarded")
	}
}
