package anthropic

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

func TestSetAuth(t *testing.T) {
	cases := []struct {
		name string
		key  string
		in   http.Header
		want http.Header
	}{
		{"key replaces x-api-key", "upstream-key",
			http.Header{"X-Api-Key": {"client-key"}, "Anthropic-Version": {"2023-06-01"}},
			http.Header{"X-Api-Key": {"upstream-key"}, "Anthropic-Version": {"2023-06-01"}}},
		{"key replaces a bearer token", "upstream-key",
			http.Header{"Authorization": {"Bearer sk-ant-oat01-client"}},
			http.Header{"X-Api-Key": {"upstream-key"}}},
		{"key replaces both", "upstream-key",
			http.Header{"X-Api-Key": {"client-key"}, "Authorization": {"Bearer client-token"}},
			http.Header{"X-Api-Key": {"upstream-key"}}},
		{"no key: x-api-key untouched", "",
			http.Header{"X-Api-Key": {"client-key"}},
			http.Header{"X-Api-Key": {"client-key"}}},
		{"no key: bearer untouched", "",
			http.Header{"Authorization": {"Bearer sk-ant-oat01-client"}},
			http.Header{"Authorization": {"Bearer sk-ant-oat01-client"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := c.in.Clone()
			SetAuth(h, c.key)
			if !reflect.DeepEqual(h, c.want) {
				t.Errorf("headers = %v, want %v", h, c.want)
			}
		})
	}
}

var testSigner = emit.NewSigner([]byte("test-signing-key"))

func sig(origin emit.Origin, thinking string) string {
	return testSigner.Sign(origin, "foreign", thinking)
}

// TestRewriteBody: gateway-signed history goes back as Anthropic accepts
// it; everything else is the client's.
func TestRewriteBody(t *testing.T) {
	tagSig := sig(emit.OriginTags, "Need the weather.")
	gemSig := sig(emit.OriginGemini, "Gemini's thought.")
	cases := []struct {
		name   string
		models []providers.ModelRule
		body   string
		want   string // "" means byte for byte the body
	}{
		{name: "untouched",
			body: `{"model":"claude-x","max_tokens":5,"messages":[{"role":"user","content":"a <b> & c"},{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"EqQBCkgIBxAB"},{"type":"text","text":"x"}]}],"unknown":{"k":[1, 2]}}`},
		{name: "model mapped", models: []providers.ModelRule{{From: "claude-*", To: "up-model"}},
			body: `{"model":"claude-x","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"unknown":true}`,
			want: `{"model":"up-model","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"unknown":true}`},
		{name: "tag thinking back in place",
			body: `{"model":"m","messages":[{"role":"user","content":"weather?"},{"role":"assistant","content":[{"type":"text","text":"Intro. "},{"type":"thinking","thinking":"Need the weather.","signature":"` + tagSig + `"},{"type":"text","text":"Checking."},{"type":"tool_use","id":"toolu_1","name":"w","input":{"city":"Paris"}}]}]}`,
			want: `{"model":"m","messages":[{"role":"user","content":"weather?"},{"role":"assistant","content":[{"type":"text","text":"Intro. "},{"type":"text","text":"<thinking>Need the weather.</thinking>"},{"type":"text","text":"Checking."},{"type":"tool_use","id":"toolu_1","name":"w","input":{"city":"Paris"}}]}]}`},
		{name: "foreign thinking dropped, empty turn dropped",
			body: `{"model":"m","messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"thinking","thinking":"Gemini's thought.","signature":"` + gemSig + `"}]},{"role":"assistant","content":[{"type":"thinking","thinking":"Gemini's thought.","signature":"` + gemSig + `"},{"type":"text","text":"Done."}]},{"role":"user","content":"ok"}]}`,
			want: `{"model":"m","messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"text","text":"Done."}]},{"role":"user","content":"ok"}]}`},
		{name: "tool turn whose thinking became text: thinking off",
			body: `{"model":"m","thinking":{"type":"adaptive"},"messages":[{"role":"user","content":"weather?"},{"role":"assistant","content":[{"type":"thinking","thinking":"Need the weather.","signature":"` + tagSig + `"},{"type":"tool_use","id":"toolu_1","name":"w","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"sun"}]}]}`,
			want: `{"model":"m","messages":[{"role":"user","content":"weather?"},{"role":"assistant","content":[{"type":"text","text":"<thinking>Need the weather.</thinking>"},{"type":"tool_use","id":"toolu_1","name":"w","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"sun"}]}]}`},
		{name: "no tool call: thinking stays",
			body: `{"model":"m","thinking":{"type":"enabled","budget_tokens":2048},"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"Need the weather.","signature":"` + tagSig + `"},{"type":"text","text":"a"}]},{"role":"user","content":"more"}]}`,
			want: `{"model":"m","thinking":{"type":"enabled","budget_tokens":2048},"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"<thinking>Need the weather.</thinking>"},{"type":"text","text":"a"}]},{"role":"user","content":"more"}]}`},
		{name: "user turns never touched",
			body: `{"model":"m","messages":[{"role":"user","content":[{"type":"thinking","thinking":"Need the weather.","signature":"` + tagSig + `"},{"type":"text","text":"odd but the client's"}]}]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &providers.Settings{Models: c.models, Signer: testSigner}
			req, err := wire.ParseRequest([]byte(c.body))
			if err != nil {
				t.Fatal(err)
			}
			x := providers.NewExchange(s, req, []byte(c.body), providers.ExchangeOptions{})
			got, err := RewriteBody(x)
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				if string(got) != c.body {
					t.Errorf("rewritten:\n%s", got)
				}
				return
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("%v: %s", err, got)
			}
			_ = json.Unmarshal([]byte(c.want), &w)
			if !reflect.DeepEqual(g, w) {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
			if strings.Contains(string(got), "tg1") {
				t.Errorf("a gateway signature went upstream: %s", got)
			}
		})
	}
}

// TestCountTokensUntouched: a count_tokens answer is never translated, even
// with split_tags; a split_tags Message is; without split_tags nothing is,
// and errors pass as they are unless every error must be mapped.
func TestCountTokensUntouched(t *testing.T) {
	sse := http.Header{"Content-Type": {"text/event-stream"}}
	for _, c := range []struct {
		name                 string
		split, count, stream bool
		mapErrors            bool
		status               int
		want                 string
	}{
		{"count_tokens", true, true, false, false, 200, "pass"},
		{"count_tokens error", true, true, false, false, 400, "pass"},
		{"split message", true, false, false, false, 200, "body"},
		{"split stream", true, false, true, false, 200, "stream"},
		{"split error", true, false, true, false, 529, "error"},
		{"no split", false, false, true, false, 200, "pass"},
		{"no split error", false, false, true, false, 429, "pass"},
		{"no split error mapped", false, false, true, true, 429, "error upstream header"},
	} {
		path := "/v1/messages"
		if c.count {
			path += "/count_tokens"
		}
		x := providers.NewExchange(&providers.Settings{SplitTags: c.split}, &wire.Request{Model: "m", Stream: c.stream}, nil,
			providers.ExchangeOptions{Path: path, MapErrors: c.mapErrors})
		tr, err := New(Config{}).Rewrite(x, &providers.Outbound{Header: http.Header{}})
		if err != nil {
			t.Fatal(err)
		}
		if got := handling(tr.Handle(c.status, sse)); got != c.want {
			t.Errorf("%s: handled as %q, want %q", c.name, got, c.want)
		}
	}
}

// handling names what a Handling does, for tests.
func handling(h providers.Handling) string {
	s := "pass"
	switch {
	case h.NewStream != nil:
		s = "stream"
	case h.Body != nil:
		s = "body"
	case h.Error != nil:
		s = "error"
	}
	if h.UpstreamHeader {
		s += " upstream header"
	}
	return s
}
