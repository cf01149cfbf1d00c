package gemini

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// TestRewriteGolden: each Anthropic request in testdata/requests converts to
// exactly the Gemini body, path and query pinned beside it.
func TestRewriteGolden(t *testing.T) {
	cases := []struct {
		name, path, query string
		countTokens       bool
	}{
		{"basic", "/v1beta/models/gemini-2.5-flash:streamGenerateContent", "alt=sse", false},
		{"turns", "/v1beta/models/gemini-2.5-flash:generateContent", "", false},
		{"media", "/v1beta/models/gemini-2.5-flash:generateContent", "", false},
		{"tools", "/v1beta/models/gemini-2.5-flash:generateContent", "", false},
		{"schema_refs", "/v1beta/models/gemini-2.5-flash:generateContent", "", false},
		{"tool_history", "/v1beta/models/gemini-3-pro-preview:generateContent", "", false},
		{"count_tokens", "/v1beta/models/gemini-2.5-flash:countTokens", "", true},
	}
	p := New(Config{APIKey: "gem-key"})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := exchange(t, testSettings(), string(readTestdata(t, "requests/"+c.name+".json")))
			x.CountTokens = c.countTokens
			if c.countTokens {
				x.Streaming = false
			}
			out, err := rewrite(t, p, x, nil)
			if err != nil {
				t.Fatal(err)
			}
			if out.Path != c.path || out.RawQuery != c.query {
				t.Errorf("target %s?%s, want %s?%s", out.Path, out.RawQuery, c.path, c.query)
			}
			golden.JSON(t, "requests/"+c.name+".gemini.json", out.Body)
		})
	}
}

func TestAPIVersion(t *testing.T) {
	p := New(Config{APIVersion: VersionV1})
	x := exchange(t, testSettings(), `{"model":"models/gemini-2.0-flash","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`)
	out, err := rewrite(t, p, x, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Path != "/v1/models/gemini-2.0-flash:generateContent" || out.RawQuery != "" {
		t.Errorf("target %s?%s", out.Path, out.RawQuery)
	}
}

// TestHeaders: the client's Anthropic credentials and headers never reach
// Gemini; the configured key does, or else the client's own key.
func TestHeaders(t *testing.T) {
	client := func() http.Header {
		return http.Header{
			"X-Api-Key":         {"client-key"},
			"Authorization":     {"Bearer bearer-key"},
			"Anthropic-Version": {"2023-06-01"},
			"Anthropic-Beta":    {"interleaved-thinking-2025-05-14", "other"},
			"Anthropic-Dangerous-Direct-Browser-Access": {"true"},
			"User-Agent":       {"claude-cli/1.0"},
			"X-Stainless-Lang": {"js"},
		}
	}
	body := `{"model":"gemini-2.5-flash","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`
	cases := []struct {
		name, key string
		header    http.Header
		want      string
	}{
		{"configured key", "gem-key", client(), "gem-key"},
		{"client x-api-key", "", client(), "client-key"},
		{"client bearer", "", http.Header{"Authorization": {"Bearer bearer-key"}}, "bearer-key"},
		{"no key at all", "", http.Header{}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := rewrite(t, New(Config{APIKey: c.key}), exchange(t, testSettings(), body), c.header)
			if err != nil {
				t.Fatal(err)
			}
			h := out.Header
			if got := h.Get("X-Goog-Api-Key"); got != c.want {
				t.Errorf("x-goog-api-key %q, want %q", got, c.want)
			}
			for k := range h {
				if k == "X-Api-Key" || k == "Authorization" || strings.HasPrefix(k, "Anthropic-") {
					t.Errorf("header %s forwarded", k)
				}
			}
			if len(c.header) > 2 && (h.Get("User-Agent") != "claude-cli/1.0" || h.Get("X-Stainless-Lang") != "js") {
				t.Errorf("unrelated headers lost: %v", h)
			}
		})
	}
}

// TestModelName: the model goes into the URL path, so anything that could
// leave its path segment is refused with a 400 before the upstream is asked.
func TestModelName(t *testing.T) {
	for _, ok := range []string{"gemini-2.5-flash", "models/gemini-3-pro-preview", "gemini-2.0-flash-001", "learnlm_1.5"} {
		if _, err := ModelName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "models/", "a/b", "../../v1/files", "x..y", "m?key=1", "m#f", "m:countTokens", "m%2F", `m\n`, "m\x00", "m n", "mé"} {
		_, err := ModelName(bad)
		var e *wire.Error
		if !errors.As(err, &e) || e.Status != 400 || e.Type != "invalid_request_error" || !strings.Contains(e.Message, "not a valid Gemini model name") {
			t.Errorf("%q: got %v", bad, err)
		}
	}
	// Through Rewrite: the same 400.
	x := exchange(t, testSettings(), `{"model":"../admin","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`)
	if _, err := rewrite(t, New(Config{}), x, nil); err == nil || wire.AsError(err).Status != 400 {
		t.Errorf("Rewrite accepted a bad model: %v", err)
	}
}

func TestRequestErrors(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"unknown tool_use_id",
			`{"model":"gemini-2.5-flash","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_nope","content":"x"}]}]}`,
			`messages.0.content.0: tool_result for tool_use_id "toolu_nope" has no matching tool_use block in an earlier assistant message`},
		{"no content",
			`{"model":"gemini-2.5-flash","max_tokens":5,"messages":[{"role":"user","content":""},{"role":"assistant","content":[]}]}`,
			`messages: at least one message with content is required`},
		{"bad schema",
			`{"model":"gemini-2.5-flash","max_tokens":5,"tools":[{"name":"t","input_schema":[1]}],"messages":[{"role":"user","content":"hi"}]}`,
			`tools.0.input_schema: must be a JSON Schema object`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := rewrite(t, New(Config{}), exchange(t, testSettings(), c.body), nil)
			e := wire.AsError(err)
			if err == nil || e.Status != 400 || e.Type != "invalid_request_error" || e.Message != c.want {
				t.Errorf("got %v, want 400 %q", err, c.want)
			}
		})
	}
}

// TestThinkingConfig: the documented thinking mapping, with the configured
// default budget.
func TestThinkingConfig(t *testing.T) {
	cases := []struct {
		thinking  string // the request's thinking field, "" for absent
		defaultOn bool
		want      string
	}{
		{"", true, `{"includeThoughts":true,"thinkingBudget":2048}`},
		{"", false, `{"includeThoughts":false}`},
		{"null", true, `{"includeThoughts":true,"thinkingBudget":2048}`},
		{"true", true, `{"includeThoughts":true,"thinkingBudget":2048}`},
		{"true", false, `{"includeThoughts":true,"thinkingBudget":2048}`},
		{"false", true, `{"includeThoughts":false,"thinkingBudget":0}`},
		{`{"type":"enabled","budget_tokens":5000}`, true, `{"includeThoughts":true,"thinkingBudget":5000}`},
		{`{"type":"enabled"}`, true, `{"includeThoughts":true,"thinkingBudget":2048}`},
		{`{"budget_tokens":3000}`, true, `{"includeThoughts":true,"thinkingBudget":3000}`},
		{`{"type":"enabled","budget_tokens":4000,"display":"omitted"}`, true, `{"includeThoughts":false,"thinkingBudget":4000}`},
		{`{"type":"disabled"}`, true, `{"includeThoughts":false,"thinkingBudget":0}`},
		{`{"type":"adaptive"}`, false, `{"includeThoughts":true,"thinkingBudget":-1}`},
	}
	for _, c := range cases {
		body := `{"model":"gemini-2.5-flash","max_tokens":5,"messages":[{"role":"user","content":"hi"}]`
		if c.thinking != "" {
			body += `,"thinking":` + c.thinking
		}
		body += "}"
		s := testSettings()
		s.DefaultThinking = c.defaultOn
		out, err := rewrite(t, New(Config{Conversion: Conversion{ThinkingBudget: 2048}}), exchange(t, s, body), nil)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			GenerationConfig struct {
				ThinkingConfig json.RawMessage `json:"thinkingConfig"`
			} `json:"generationConfig"`
		}
		_ = json.Unmarshal(out.Body, &got)
		if string(got.GenerationConfig.ThinkingConfig) != c.want {
			t.Errorf("thinking %s (default %v): got %s, want %s", c.thinking, c.defaultOn, got.GenerationConfig.ThinkingConfig, c.want)
		}
	}
	// The default budget is 1024 (docs/providers/gemini.md).
	out, _ := rewrite(t, New(Config{}), exchange(t, testSettings(), `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`), nil)
	if !strings.Contains(string(out.Body), `"thinkingConfig":{"includeThoughts":true,"thinkingBudget":1024}`) {
		t.Errorf("default budget: %s", out.Body)
	}
}

// TestSignedHistory: history thinking blocks and tool_use ids the gateway
// issued go back to Gemini with their signatures on the right parts; what
// Gemini did not issue does not.
func TestSignedHistory(t *testing.T) {
	s := testSettings()
	sign := func(origin emit.Origin, foreign, thinking string) string {
		return s.Signer.Sign(origin, foreign, thinking)
	}
	callID := encodeToolID(s.Signer, []byte("Q2FsbFNpZw=="), []byte("call-7"))
	plainID := encodeToolID(s.Signer, nil, nil)
	foreignKeyID := encodeToolID(emit.NewSigner([]byte("other key")), []byte("U0lH"), nil)
	blocks := []map[string]any{
		{"type": "thinking", "thinking": "Gemini thought.", "signature": sign(emit.OriginGemini, "VGhvdWdodFNpZw==", "Gemini thought.")},
		{"type": "thinking", "thinking": "Gemini thought, unsigned by Gemini.", "signature": sign(emit.OriginGemini, "", "Gemini thought, unsigned by Gemini.")},
		{"type": "thinking", "thinking": "Altered text.", "signature": sign(emit.OriginGemini, "U0lH", "Original text.")},
		{"type": "thinking", "thinking": "From tags.", "signature": sign(emit.OriginTags, "", "From tags.")},
		{"type": "thinking", "thinking": "From Amazon Q.", "signature": sign(emit.OriginAmazonQ, "cQ==", "From Amazon Q.")},
		{"type": "text", "text": "Calling."},
		{"type": "tool_use", "id": callID, "name": "get_weather", "input": map[string]any{"city": "Paris"}},
		{"type": "tool_use", "id": plainID, "name": "get_weather", "input": map[string]any{"city": "Rome"}},
		{"type": "tool_use", "id": foreignKeyID, "name": "get_weather", "input": map[string]any{"city": "Oslo"}},
		// A signed empty thought: its signature rides on the next part.
		{"type": "thinking", "thinking": "", "signature": sign(emit.OriginGemini, "RW1wdHk=", "")},
		{"type": "text", "text": "Done."},
		{"type": "thinking", "thinking": "", "signature": sign(emit.OriginGemini, "TGFzdA==", "")},
	}
	req := map[string]any{
		"model": "gemini-3-pro-preview", "max_tokens": 100,
		"messages": []any{
			map[string]any{"role": "user", "content": "Weather?"},
			map[string]any{"role": "assistant", "content": blocks},
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": callID, "content": "sunny"},
				map[string]any{"type": "tool_result", "tool_use_id": plainID, "content": "cloudy"},
				map[string]any{"type": "tool_result", "tool_use_id": foreignKeyID, "content": "snow"},
			}},
		},
	}
	body, _ := json.Marshal(req)
	out, err := rewrite(t, New(Config{}), exchange(t, s, string(body)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Contents json.RawMessage `json:"contents"`
	}
	_ = json.Unmarshal(out.Body, &got)
	want := `[
	  {"role":"user","parts":[{"text":"Weather?"}]},
	  {"role":"model","parts":[
	    {"text":"Gemini thought.","thought":true,"thoughtSignature":"VGhvdWdodFNpZw=="},
	    {"text":"Gemini thought, unsigned by Gemini.","thought":true},
	    {"text":"<thinking>From tags.</thinking>"},
	    {"text":"Calling."},
	    {"functionCall":{"id":"call-7","name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"Q2FsbFNpZw=="},
	    {"functionCall":{"name":"get_weather","args":{"city":"Rome"}}},
	    {"functionCall":{"name":"get_weather","args":{"city":"Oslo"}}},
	    {"text":"Done.","thoughtSignature":"RW1wdHk="},
	    {"text":"","thoughtSignature":"TGFzdA=="}
	  ]},
	  {"role":"user","parts":[
	    {"functionResponse":{"id":"call-7","name":"get_weather","response":{"output":"sunny"}}},
	    {"functionResponse":{"name":"get_weather","response":{"output":"cloudy"}}},
	    {"functionResponse":{"name":"get_weather","response":{"output":"snow"}}}
	  ]}
	]`
	if !golden.EqualJSON(t, got.Contents, []byte(want)) {
		t.Errorf("contents:\n%s\nwant\n%s", got.Contents, want)
	}
}

// TestSkipSignature: a turn whose first call has no recoverable signature
// (history from another model) gets Gemini's documented skip value on that
// call only; a turn whose first call is signed is left alone.
func TestSkipSignature(t *testing.T) {
	s := testSettings()
	signed := encodeToolID(s.Signer, []byte("U0lH"), nil)
	body := `{"model":"gemini-3-pro-preview","max_tokens":5,"messages":[
	  {"role":"user","content":"go"},
	  {"role":"assistant","content":[{"type":"tool_use","id":"toolu_01X","name":"a","input":{}},{"type":"tool_use","id":"toolu_01Y","name":"a","input":{}}]},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01X","content":"1"},{"type":"tool_result","tool_use_id":"toolu_01Y","content":"2"}]},
	  {"role":"assistant","content":[{"type":"tool_use","id":"` + signed + `","name":"a","input":{}},{"type":"tool_use","id":"toolu_01Z","name":"a","input":{}}]},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":"` + signed + `","content":"3"},{"type":"tool_result","tool_use_id":"toolu_01Z","content":"4"}]}
	]}`
	out, err := rewrite(t, New(Config{}), exchange(t, s, body), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Contents []struct {
			Parts []struct {
				ThoughtSignature string `json:"thoughtSignature"`
			} `json:"parts"`
		} `json:"contents"`
	}
	_ = json.Unmarshal(out.Body, &got)
	sigs := [][]string{}
	for _, c := range got.Contents {
		var l []string
		for _, p := range c.Parts {
			l = append(l, p.ThoughtSignature)
		}
		sigs = append(sigs, l)
	}
	want := [][]string{{""}, {SkipSignature, ""}, {"", ""}, {"U0lH", ""}, {"", ""}}
	if b, w := mustMarshal(sigs), mustMarshal(want); b != w {
		t.Errorf("signatures %s, want %s", b, w)
	}
}

func mustMarshal(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestCountTokensMessage: {"totalTokens":N} becomes {"input_tokens":N}.
func TestCountTokensMessage(t *testing.T) {
	x := exchange(t, testSettings(), `{"model":"gemini-2.5-flash","messages":[{"role":"user","content":"hi"}]}`)
	x.CountTokens = true
	for _, c := range []struct{ body, want string }{
		{`{"totalTokens": 31, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 31}]}`, `{"input_tokens":31}`},
		{`{}`, `{"input_tokens":0}`},
	} {
		got, err := Message(x, []byte(c.body))
		if err != nil || string(got) != c.want {
			t.Errorf("%s: got %s %v, want %s", c.body, got, err, c.want)
		}
	}
	if _, err := Message(x, []byte(`<html>`)); err == nil || wire.AsError(err).Status != 502 {
		t.Errorf("non-JSON answer: %v", err)
	}
}
