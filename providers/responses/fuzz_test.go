package responses

import (
	"testing"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
	"github.com/thinkgate/thinkgate/providers/emit"
	rt "github.com/thinkgate/thinkgate/providers/responses/responsestest"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// FuzzRewrite: the request converter never panics, rejects input only with
// an Anthropic 4xx error, and otherwise builds a well-formed upstream request.
func FuzzRewrite(f *testing.F) {
	for _, s := range fuzzcheck.Seeds {
		f.Add([]byte(s))
	}
	history := `{"model":"m","max_tokens":9,"thinking":{"type":"enabled","budget_tokens":5000},"messages":[{"role":"assistant","content":[` +
		`{"type":"thinking","thinking":"t","signature":"` + emit.NewSigner([]byte("k")).Sign(emit.OriginResponses, "rs_1\nenc", "t") + `"},` +
		`{"type":"redacted_thinking","data":"` + emit.NewSigner([]byte("k")).Sign(emit.OriginResponses, "rs_2\nenc", "") + `"},` +
		`{"type":"tool_use","id":"call_1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":[{"type":"image","source":{"type":"url","url":"u"}}]}]}]}`
	f.Add([]byte(history))
	p := New(Config{APIKey: "k"})
	f.Fuzz(func(t *testing.T, body []byte) { fuzzcheck.Rewrite(t, p, body) })
}

// FuzzTranslate: the stream translator never panics and writes only
// well-formed events, for any upstream bytes split anywhere.
func FuzzTranslate(f *testing.F) {
	f.Add(rt.New("r", "m").Reasoning("rs_1", "enc", []string{"a", "b"}, 1).Message("msg_1", "x <thinking>y</thinking>", 2).
		Call("fc_1", "call_1", "f", `{"a":`, `1}`).Reasoning("rs_2", "enc2", nil, 0).Completed(rt.Usage(3, 1, 4, 2)).Bytes(), []byte{3, 1, 7})
	f.Add(rt.New("r", "m").Message("msg_1", "cut", 1).Failed("server_error", "x").Bytes(), []byte{5})
	f.Add(rt.New("r", "m").Error("rate_limit_exceeded", "slow").Bytes(), []byte{})
	p := New(Config{APIKey: "k"})
	f.Fuzz(func(t *testing.T, upstream, splits []byte) { fuzzcheck.Stream(t, p, upstream, splits) })
}

// FuzzMessage: the non-streaming converter never panics, and answers
// either a Message or an Anthropic error.
func FuzzMessage(f *testing.F) {
	f.Add(rt.New("r", "m").Reasoning("rs_1", "enc", []string{"a"}, 0).Message("msg_1", "x", 0).Call("fc_1", "c", "f", "{}").Response("completed", rt.Usage(1, 0, 1, 0)))
	f.Add([]byte(`{"status":"failed","error":{"code":"server_error","message":"m"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		x := exchange(t, nil, messageRequest)
		out, err := NewTranslator(x, nil).Message(body)
		if err != nil {
			if _, ok := err.(*wire.Error); !ok {
				t.Fatalf("error is not an Anthropic error: %#v", err)
			}
			return
		}
		if !jsonValid(out) {
			t.Fatalf("Message is not JSON: %s", out)
		}
	})
}
