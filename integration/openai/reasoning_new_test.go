package openai_test

import (
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/caddymodule"
	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/internal/testgw"
	"github.com/thinkgate/thinkgate/providers/openai/openaitest"
)

// TestReasoningEffort: with thinking_mode effort the request's budget
// becomes reasoning_effort by the configured table, no hint is added, and
// history thinking is not sent back as tags; the answer streams through the
// SDK as usual.
func TestReasoningEffort(t *testing.T) {
	up := streaming(t, openaitest.New().Content("A, B, C.", 3).Finish("stop").Usage(20, 90, 0).Done().Bytes(), 5)
	gw := testgw.Start(t, testgw.SlotOpenAI, site("\tthinking_mode effort\n\tefforts low:2048 high\n\tmax_tokens_field max_completion_tokens", up))
	for _, tc := range []struct {
		thinking anthropic.ThinkingConfigParamUnion
		effort   string
	}{
		{anthropic.ThinkingConfigParamOfEnabled(2048), `"reasoning_effort":"low",`},
		{anthropic.ThinkingConfigParamOfEnabled(2049), `"reasoning_effort":"high",`},
		{anthropic.ThinkingConfigParamUnion{OfDisabled: &anthropic.ThinkingConfigDisabledParam{}}, ""},
	} {
		params := userParams()
		params.MaxTokens = 8000
		params.Thinking = tc.thinking
		params.Messages = append(params.Messages,
			anthropic.NewAssistantMessage(anthropic.NewThinkingBlock(sig("plan"), "plan"), anthropic.NewTextBlock("A")),
			anthropic.NewUserMessage(anthropic.NewTextBlock("More")))
		msg, _ := gw.Stream(params)
		if len(msg.Content) != 1 || msg.Content[0].Text != "A, B, C." || msg.StopReason != "end_turn" || msg.Usage.OutputTokens != 90 {
			t.Errorf("message %+v", msg)
		}
		want := `{"model":"claude-test","messages":[{"role":"user","content":"What are the first three letters of the alphabet?"},` +
			`{"role":"assistant","content":"A"},{"role":"user","content":"More"}],"max_completion_tokens":8000,` + tc.effort +
			`"stream":true,"stream_options":{"include_usage":true}}`
		if body := up.Last(t).Body; !golden.EqualJSON(t, body, []byte(want)) {
			t.Errorf("upstream body %s\nwant %s", body, want)
		}
	}
}

// TestReasoningOptionsCaddyfile: the reasoning options parse into the JSON
// config; bad values are rejected with the option's name.
func TestReasoningOptionsCaddyfile(t *testing.T) {
	var h caddymodule.Handler
	d := caddyfile.NewTestDispenser(`thinkgate openai {
		thinking_mode both
		efforts minimal:1024 medium:8192 high
		reasoning_history openrouter
	}`)
	if err := h.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	want := `{"efforts":[{"effort":"minimal","max_budget":1024},{"effort":"medium","max_budget":8192},{"effort":"high"}],"name":"openai","reasoning_history":"openrouter","thinking_mode":"both"}`
	if !golden.EqualJSON(t, h.ProviderRaw, []byte(want)) {
		t.Errorf("provider JSON %s", h.ProviderRaw)
	}
	for cfg, wantErr := range map[string]string{
		"thinkgate openai {\n\tthinking_mode tags\n}":      `thinking_mode: must be hint, effort, both, openrouter or none, got "tags"`,
		"thinkgate openai {\n\tefforts\n}":                 "wrong argument count",
		"thinkgate openai {\n\tefforts low high:10\n}":     "efforts: step 0 (low): only the last step may be without a budget",
		"thinkgate openai {\n\tefforts low:x\n}":           `efforts: "low:x": the budget after the colon must be a positive number of tokens`,
		"thinkgate openai {\n\tefforts turbo\n}":           `efforts: step 0: effort must be one of minimal, low, medium, high, got "turbo"`,
		"thinkgate openai {\n\treasoning_history mistr\n}": `reasoning_history: must be content, reasoning_content, openrouter or mistral, got "mistr"`,
	} {
		var h caddymodule.Handler
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(cfg))
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%q: error %v, want %q", cfg, err, wantErr)
		}
	}
}
