package azure

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// oneBufferSeeds put thinking, tools and the dropped fields on either side
// of messages.
var oneBufferSeeds = []string{
	`{"model":"claude-x","messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"tg1t.a.b"},{"type":"text","text":"a"}]}],"thinking":{"type":"enabled","budget_tokens":2048},"tools":[{"type":"function","function":{"name":"f","parameters":{}}}],"context_management":{}}`,
	`{"thinking":{"type":"enabled"},"model":"claude-x","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t"}]},{"role":"user","content":"q"}]}`,
	`{"messages":[{"role":"user","content":"q"}],"model":"claude-x","thinking":{"type":"enabled"}}`,
	`{"messages":[{"role":"user","content":"q"}],"model":"other"}`,
	`{ "model" : "other" , "messages" : [ {"role":"user","content":"q"} , {"role":"user","content":" "} ] , "stream" : true }`,
	`{"model":"claude-x","thinking":{"type":"enabled"},"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"a"}]}],"stream":true}`,
	`{"model":"x","Model":"claude-x","thinking":null,"messages":[{"role":"user","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"a"}]}],"thinking":{"type":"enabled"}}`,
	`{"messages":[{"role":"user","content":"\u0020\t"},{"role":"user","content":" \n"},{"role":"user","content":"\u00e9"}],"model":"claude-x"}`,
}

// cleanBothBuffers cleans body with the messages written straight into the
// body and into a buffer of their own, with and without a model to map.
func cleanBothBuffers(t *testing.T, body []byte) {
	t.Helper()
	if req, err := wire.ParseRequest(body); err == nil {
		cleanToggled(t, req, body, &oneBuffer, "one buffer", "two")
	}
}

// cleanToggled cleans req (of body) with *flag on and off, with and without
// a model to map, and fails on any difference in the body, the changes or
// whether it failed.
func cleanToggled(t *testing.T, req *wire.Request, body []byte, flag *bool, on, off string) {
	t.Helper()
	p := New(Config{APIKey: "k"})
	for _, models := range [][]providers.ModelRule{nil, {{From: "claude-*", To: "gpt-5"}}} {
		s := &providers.Settings{Models: models}
		clean := func(v bool) ([]byte, Changes, error) {
			*flag = v
			defer func() { *flag = true }()
			r := *req
			r.Fields = make(map[string]json.RawMessage, len(req.Fields))
			for k, v := range req.Fields {
				r.Fields[k] = v
			}
			return p.Clean(providers.NewExchange(s, &r, body, providers.ExchangeOptions{NewBody: providertest.DirtyBody}))
		}
		got, ch, err := clean(true)
		want, chRef, errRef := clean(false)
		if string(got) != string(want) || !reflect.DeepEqual(ch, chRef) || (err == nil) != (errRef == nil) {
			t.Fatalf("Clean(%s):\n%s: %s %+v %v\n%s: %s %+v %v", body, on, got, ch, err, off, want, chRef, errRef)
		}
	}
}

// TestCleanOneBuffer: writing the cleaned messages straight into the body
// gives the body, and the changes, of cleaning them apart.
func TestCleanOneBuffer(t *testing.T) {
	for _, s := range append(append(append([]string(nil), oneBufferSeeds...), cleanSeeds...), fuzzcheck.Seeds...) {
		cleanBothBuffers(t, []byte(s))
	}
}

// FuzzCleanOneBuffer: TestCleanOneBuffer for any request.
func FuzzCleanOneBuffer(f *testing.F) {
	for _, s := range append(append(append([]string(nil), oneBufferSeeds...), cleanSeeds...), fuzzcheck.Seeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(cleanBothBuffers)
}
