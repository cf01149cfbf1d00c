package azure

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
	"github.com/thinkgate/thinkgate/providers"
)

// oneBufferSeeds put thinking, tools and the dropped fields on either side
// of messages.
var oneBufferSeeds = []string{
	`{"model":"claude-x","messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"tg1t.a.b"},{"type":"text","text":"a"}]}],"thinking":{"type":"enabled","budget_tokens":2048},"tools":[{"type":"function","function":{"name":"f","parameters":{}}}],"context_management":{}}`,
	`{"thinking":{"type":"enabled"},"model":"claude-x","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t"}]},{"role":"user","content":"q"}]}`,
	`{"messages":[{"role":"user","content":"q"}],"model":"claude-x","thinking":{"type":"enabled"}}`,
	`{"messages":[{"role":"user","content":"q"}],"model":"other"}`,
	`{ "model" : "other" , "messages" : [ {"role":"user","content":"q"} , {"role":"user","content":" "} ] , "stream" : true }`,
}

// cleanBothBuffers cleans body with the messages written straight into the
// body and into a buffer of their own, with and without a model to map.
func cleanBothBuffers(t *testing.T, body []byte) {
	t.Helper()
	req, err := providers.ParseRequest(body)
	if err != nil {
		return
	}
	p := New(Config{APIKey: "k"})
	for _, models := range [][]providers.ModelRule{nil, {{From: "claude-*", To: "gpt-5"}}} {
		s := &providers.Settings{Models: models}
		clean := func(one bool) ([]byte, Changes, error) {
			oneBuffer = one
			defer func() { oneBuffer = true }()
			r := *req
			r.Fields = make(map[string]json.RawMessage, len(req.Fields))
			for k, v := range req.Fields {
				r.Fields[k] = v
			}
			return p.Clean(providers.NewExchange(s, &r, body, providers.ExchangeOptions{}))
		}
		got, ch, err := clean(true)
		want, chRef, errRef := clean(false)
		if string(got) != string(want) || !reflect.DeepEqual(ch, chRef) || (err == nil) != (errRef == nil) {
			t.Fatalf("Clean(%s):\none buffer: %s %+v %v\ntwo:        %s %+v %v", body, got, ch, err, want, chRef, errRef)
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
