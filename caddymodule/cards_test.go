package caddymodule

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// TestModelInfoCaddyfile: a model_info block becomes the card the JSON
// config spells, in the order written.
func TestModelInfoCaddyfile(t *testing.T) {
	var h Handler
	err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(`thinkgate openai {
	model claude-sonnet-* gpt-4.1
	model_info claude-sonnet-4-5 {
		display_name "GPT-4.1 (via gateway)"
		max_input_tokens 1047576
		max_tokens 32768
		effort low medium high
		thinking enabled adaptive
		input image pdf
		structured_outputs
		created_at 2025-04-14T00:00:00Z
	}
	model_info claude-* {
		max_input_tokens 128000
		max_tokens 16384
	}
}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(h.ModelInfo)
	want := `[{"model":"claude-sonnet-4-5","display_name":"GPT-4.1 (via gateway)","created_at":"2025-04-14T00:00:00Z","max_input_tokens":1047576,"max_tokens":32768,"effort":["low","medium","high"],"thinking":["enabled","adaptive"],"input":["image","pdf"],"structured_outputs":true},` +
		`{"model":"claude-*","max_input_tokens":128000,"max_tokens":16384}]`
	if string(got) != want {
		t.Errorf("cards\n got %s\nwant %s", got, want)
	}
	if c := h.cardFor("claude-sonnet-4-5"); c == nil || c.MaxTokens != 32768 {
		t.Errorf("claude-sonnet-4-5's card: %+v", c)
	}
	if c := h.cardFor("claude-haiku-4-5"); c == nil || c.MaxTokens != 16384 {
		t.Errorf("claude-haiku-4-5's card (the glob's): %+v", c)
	}
	if c := h.cardFor("gpt-4.1"); c != nil {
		t.Errorf("gpt-4.1 has a card: %+v", c)
	}
}

// TestModelInfoCaddyfileErrors: every mistake is refused at load, naming
// the card and the option; an unknown option lists the valid ones.
func TestModelInfoCaddyfileErrors(t *testing.T) {
	const head = "thinkgate openai {\n model_info m {\n max_input_tokens 1000\n max_tokens 100\n"
	for _, c := range []struct{ input, want string }{
		{head + " context 5\n}\n}", `model_info m: unknown option "context"; valid: display_name, created_at, max_input_tokens, max_tokens, effort, thinking, input, structured_outputs`},
		{head + " effort low extreme\n}\n}", `model_info m: effort: unknown value "extreme"; valid: low, medium, high, xhigh, max`},
		{head + " effort low low\n}\n}", `model_info m: effort: "low" is listed twice`},
		{head + " thinking between_tools\n}\n}", `model_info m: thinking: unknown value "between_tools"; valid: enabled, adaptive`},
		{head + " input audio\n}\n}", `model_info m: input: unknown value "audio"; valid: image, pdf`},
		{head + " effort\n}\n}", "model_info m: effort: expected at least one value"},
		{head + " structured_outputs yes\n}\n}", "model_info m: structured_outputs takes no value"},
		{head + " created_at yesterday\n}\n}", `model_info m: created_at: "yesterday" is not an RFC 3339 time such as 2025-09-29T00:00:00Z`},
		{head + " max_tokens 200\n}\n}", "model_info m: max_tokens is set twice"},
		{head + " display_name a b\n}\n}", "model_info m: display_name: expected one value, got 2"},
		{"thinkgate openai {\n model_info m {\n max_input_tokens lots\n}\n}", `model_info m: max_input_tokens: "lots" is not a positive whole number of tokens`},
		{"thinkgate openai {\n model_info m {\n max_input_tokens 1000\n}\n}", "model_info m: max_tokens is required, a positive number of tokens"},
		{"thinkgate openai {\n model_info m {\n max_tokens 1000\n}\n}", "model_info m: max_input_tokens is required, a positive number of tokens"},
		{"thinkgate openai {\n model_info m\n}", "model_info m: max_input_tokens is required"},
		{"thinkgate openai {\n model_info\n}", "model_info: expected a model name or pattern, then a block"},
		{"thinkgate openai {\n model_info [ {\n max_tokens 1\n}\n}", `model_info [: bad pattern`},
		{"thinkgate openai {\n model_info a b {\n max_tokens 1\n}\n}", `model_info a: expected a block after the name, got "b"`},
	} {
		var h Handler
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(c.input))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.input, err, c.want)
		}
	}
}

// TestModelInfoValidate: the JSON config's cards are checked as the
// Caddyfile's are.
func TestModelInfoValidate(t *testing.T) {
	h := Handler{ModelInfo: []ModelCard{{Model: "m", MaxInputTokens: 10, MaxTokens: 5, Input: []string{"video"}}}}
	if err := h.Validate(); err == nil || err.Error() != `model_info m: input: unknown value "video"; valid: image, pdf` {
		t.Errorf("Validate: %v", err)
	}
}

// TestApplyCard: the card's limits and controls on the request's bytes:
// exactly the changed members are rewritten, the typed fields follow, and
// a request within the card is the same slice.
func TestApplyCard(t *testing.T) {
	h := &Handler{ModelInfo: []ModelCard{
		{Model: "small", MaxInputTokens: 1000, MaxTokens: 4096, Effort: []string{"low", "medium", "high"}, Input: []string{"image"}},
		{Model: "open", MaxInputTokens: 1000, MaxTokens: 8192, Effort: []string{"low", "max"}, Input: []string{"image", "pdf"}, StructuredOutputs: true},
		{Model: "plain", MaxInputTokens: 1000, MaxTokens: 8192},
	}}
	const msgs = `"messages":[{"role":"user","content":"hi"}]`
	for _, c := range []struct {
		name, body, want  string
		maxTokens, budget int
	}{
		{"lowered", `{"model":"small","max_tokens":128000,` + msgs + `}`, `{"model":"small","max_tokens":4096,` + msgs + `}`, 4096, 0},
		{"within", `{"model":"small","max_tokens":100,` + msgs + `}`, "", 100, 0},
		{"budget lowered below it", `{"model":"small", "max_tokens" : 128000 ,"thinking":{"type":"enabled","budget_tokens":64000},` + msgs + `}`,
			`{"model":"small", "max_tokens" : 4096 ,"thinking":{"type":"enabled","budget_tokens":4095},` + msgs + `}`, 4096, 4095},
		{"budget below it kept", `{"model":"small","max_tokens":128000,"thinking":{"type":"enabled","budget_tokens":2000},` + msgs + `}`,
			`{"model":"small","max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":2000},` + msgs + `}`, 4096, 2000},
		{"max becomes the highest listed", `{"model":"small","max_tokens":10,"output_config":{"effort":"max"},` + msgs + `}`,
			`{"model":"small","max_tokens":10,"output_config":{"effort":"high"},` + msgs + `}`, 10, 0},
		{"max listed stays", `{"model":"open","max_tokens":10,"output_config":{"effort":"max","format":{"type":"json_schema","schema":{}}},` + msgs + `}`, "", 10, 0},
		{"no card", `{"model":"other","max_tokens":128000,"output_config":{"effort":"max"},` + msgs + `}`, "", 128000, 0},
		{"folded name as encoding/json reads it", `{"model":"small","Max_Tokens":128000,` + msgs + `}`, `{"model":"small","Max_Tokens":4096,` + msgs + `}`, 4096, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := []byte(c.body)
			req, err := wire.ParseRequest(body)
			if err != nil {
				t.Fatal(err)
			}
			got, e := h.applyCard(req, body, func(n int) []byte { return make([]byte, 0, n) })
			if e != nil {
				t.Fatal(e)
			}
			want := c.want
			if want == "" {
				want = c.body
				if &got[0] != &body[0] {
					t.Errorf("an unchanged request was copied")
				}
			}
			if string(got) != want {
				t.Errorf("body\n got %s\nwant %s", got, want)
			}
			if req.MaxTokens != c.maxTokens || req.Thinking.BudgetTokens != c.budget {
				t.Errorf("typed max_tokens %d budget %d, want %d %d", req.MaxTokens, req.Thinking.BudgetTokens, c.maxTokens, c.budget)
			}
			again, err := req.MarshalFields()
			if err != nil {
				t.Fatal(err)
			}
			if reparsed, err := wire.ParseRequest(again); err != nil || reparsed.MaxTokens != c.maxTokens || reparsed.Thinking.BudgetTokens != c.budget {
				t.Errorf("fields written again: %s (%v)", again, err)
			}
		})
	}

	for _, c := range []struct{ name, body, want string }{
		{"unlisted effort", `{"model":"small","output_config":{"effort":"xhigh"},` + msgs + `}`,
			`output_config.effort: "xhigh" is not supported by model small; allowed levels: low, medium, high`},
		{"no effort on the card", `{"model":"plain","output_config":{"effort":"low"},` + msgs + `}`,
			`output_config.effort: model plain does not support effort on this gateway (its model card lists no effort levels)`},
		{"format without structured_outputs", `{"model":"small","output_config":{"format":{"type":"json_schema","schema":{}}},` + msgs + `}`,
			`output_config.format: model small does not support structured outputs on this gateway (its model card does not list structured_outputs)`},
		{"pdf", `{"model":"small","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":[{"type":"text","text":"read"},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}}]}]}`,
			`messages.2.content.1: model small does not take PDF input on this gateway (its model card's input lists image)`},
		{"pdf url", `{"model":"small","messages":[{"role":"user","content":[{"type":"document","source":{"type":"url","url":"https://example.com/a.pdf"}}]}]}`,
			`messages.0.content.0: model small does not take PDF input on this gateway (its model card's input lists image)`},
		{"image in a tool result", `{"model":"plain","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO"}}]}]}]}`,
			`messages.0.content.0.content.1: model plain does not take image input on this gateway (its model card's input lists text only)`},
		{"image type spelt with escapes", `{"model":"plain","messages":[{"role":"user","content":[{"type":"\u0069mage","source":{"type":"base64","media_type":"image/png","data":"iVBO"}}]}]}`,
			`messages.0.content.0: model plain does not take image input on this gateway (its model card's input lists text only)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := []byte(c.body)
			req, err := wire.ScanRequest(body)
			if err != nil {
				t.Fatal(err)
			}
			_, e := h.applyCard(req, body, func(n int) []byte { return make([]byte, 0, n) })
			if e == nil || e.Status != 400 || e.Type != "invalid_request_error" || e.Message != c.want {
				t.Errorf("error %+v, want 400 %s", e, c.want)
			}
		})
	}
	// A text document is not a PDF; an image the card takes passes.
	body := []byte(`{"model":"small","messages":[{"role":"user","content":[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"x"}},{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}}]}]}`)
	req, err := wire.ParseRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	if _, e := h.applyCard(req, body, nil); e != nil {
		t.Errorf("text document and image refused: %v", e)
	}
}
