package anthropic

import (
	"testing"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// TestStaleEnvelopeDropped: a history thinking block whose signature is a
// gateway envelope that does not verify (signed under a key the gateway no
// longer has, as after a restart without signing_key, or altered) is
// dropped, as Azure drops it, instead of reaching Anthropic, which would
// refuse the whole request. Anthropic's own signatures stay.
func TestStaleEnvelopeDropped(t *testing.T) {
	old := emit.NewSigner([]byte("the key before the restart"))
	stale := old.Sign(emit.OriginTags, "", "Need the weather.")
	altered := testSigner.Sign(emit.OriginTags, "", "Need the weather.")
	cases := []struct{ name, body, want string }{
		{"another key's envelope, thinking off for the tool turn",
			`{"model":"m","thinking":{"type":"enabled","budget_tokens":1024},"messages":[{"role":"user","content":"weather?"},{"role":"assistant","content":[{"type":"thinking","thinking":"Need the weather.","signature":"` + stale + `"},{"type":"tool_use","id":"toolu_1","name":"w","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"sun"}]}]}`,
			`{"messages":[{"role":"user","content":"weather?"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"w","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"sun"}]}],"model":"m"}`},
		{"altered text, empty turn dropped, Anthropic's signature kept",
			`{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"Need the weather!","signature":"` + altered + `"}]},{"role":"assistant","content":[{"type":"thinking","thinking":"real","signature":"EqQBCkgIBxAB"},{"type":"thinking","thinking":"x","signature":"tg1t.junk"},{"type":"text","text":"a"}]},{"role":"user","content":"more"}]}`,
			`{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"real","signature":"EqQBCkgIBxAB"},{"type":"text","text":"a"}]},{"role":"user","content":"more"}],"model":"m"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, signer := range []*emit.Signer{testSigner, nil} {
				s := &providers.Settings{Signer: signer}
				req, err := wire.ParseRequest([]byte(c.body))
				if err != nil {
					t.Fatal(err)
				}
				got, err := RewriteBody(providers.NewExchange(s, req, []byte(c.body), providers.ExchangeOptions{}))
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != c.want {
					t.Errorf("signer %v:\ngot  %s\nwant %s", signer != nil, got, c.want)
				}
			}
		})
	}
}
