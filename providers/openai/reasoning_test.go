package openai

import (
	"encoding/json"
	"testing"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/providers"
)

// TestThinkingModeGolden: each thinking_mode asks for thinking as it says —
// the hint in the system prompt, reasoning_effort, OpenRouter's reasoning
// object — and nothing else.
func TestThinkingModeGolden(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		cfg      Config
	}{
		{name: "effort_budget", in: "thinking_budget", cfg: Config{ThinkingMode: ModeEffort, MaxTokensField: MaxCompletionTokens}},
		{name: "effort_both", in: "thinking_budget", cfg: Config{ThinkingMode: ModeBoth}},
		{name: "effort_disabled", in: "thinking_disabled", cfg: Config{ThinkingMode: ModeEffort}},
		{name: "effort_adaptive", in: "claude_code", cfg: Config{ThinkingMode: ModeEffort}},
		{name: "effort_table", in: "thinking_budget", cfg: Config{ThinkingMode: ModeEffort,
			Efforts: []providers.EffortStep{{Effort: "minimal", MaxBudget: 1024}, {Effort: "high"}}}},
		{name: "openrouter_budget", in: "thinking_budget", cfg: Config{ThinkingMode: ModeOpenRouter}},
		{name: "openrouter_adaptive", in: "claude_code", cfg: Config{ThinkingMode: ModeOpenRouter}},
		{name: "openrouter_disabled", in: "thinking_disabled", cfg: Config{ThinkingMode: ModeOpenRouter}},
		{name: "mode_none", in: "thinking_budget", cfg: Config{ThinkingMode: ModeNone}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			x := exchange(t, nil, readFile(t, "requests/"+tc.in+".in.json"))
			body, _, err := ConvertRequest(x, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			golden.JSON(t, "requests/"+tc.name+".out.json", body)
		})
	}
}

// TestThinkingModeFields checks the asked-for fields directly, independently
// of the golden files.
func TestThinkingModeFields(t *testing.T) {
	budget := func(n int) string {
		b, _ := json.Marshal(n)
		return `{"model":"m","max_tokens":32000,"thinking":{"type":"enabled","budget_tokens":` + string(b) + `},"messages":[{"role":"user","content":"q"}]}`
	}
	type fields struct {
		ReasoningEffort string          `json:"reasoning_effort"`
		Reasoning       json.RawMessage `json:"reasoning"`
		Messages        []struct{ Role string }
	}
	for _, tc := range []struct {
		body      string
		cfg       Config
		effort    string
		reasoning string
		system    bool
	}{
		{body: budget(1024), cfg: Config{ThinkingMode: ModeEffort}, effort: "low"},
		{body: budget(8000), cfg: Config{ThinkingMode: ModeEffort}, effort: "medium"},
		{body: budget(20000), cfg: Config{ThinkingMode: ModeEffort}, effort: "high"},
		{body: budget(20000), cfg: Config{ThinkingMode: ModeBoth}, effort: "high", system: true},
		{body: budget(20000), cfg: Config{}, system: true},
		{body: budget(3000), cfg: Config{ThinkingMode: ModeOpenRouter}, reasoning: `{"max_tokens":3000}`},
		{body: `{"model":"m","max_tokens":9,"thinking":{"type":"adaptive","display":"omitted"},"messages":[{"role":"user","content":"q"}]}`,
			cfg: Config{ThinkingMode: ModeOpenRouter}, reasoning: `{"effort":"medium","exclude":true}`},
		{body: `{"model":"m","max_tokens":9,"thinking":{"type":"disabled"},"messages":[{"role":"user","content":"q"}]}`,
			cfg: Config{ThinkingMode: ModeBoth}},
	} {
		x := exchange(t, nil, tc.body)
		out, _, err := ConvertRequest(x, tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		var f fields
		if err := json.Unmarshal(out, &f); err != nil {
			t.Fatal(err)
		}
		if f.ReasoningEffort != tc.effort || string(f.Reasoning) != tc.reasoning || (f.Messages[0].Role == "system") != tc.system {
			t.Errorf("%s with %+v: effort %q reasoning %s system %v; want %q %s %v\n%s", tc.body, tc.cfg,
				f.ReasoningEffort, f.Reasoning, f.Messages[0].Role == "system", tc.effort, tc.reasoning, tc.system, out)
		}
	}
}

func TestThinkingModeRejected(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{ThinkingMode: "think"}, `thinking_mode: must be hint, effort, both, openrouter or none, got "think"`},
		{Config{ReasoningHistory: "tags"}, `reasoning_history: must be content, reasoning_content, openrouter or mistral, got "tags"`},
		{Config{Efforts: []providers.EffortStep{{Effort: "extreme"}}}, `efforts: step 0: effort must be one of minimal, low, medium, high, got "extreme"`},
	} {
		if err := tc.cfg.Validate(); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %s", tc.cfg, err, tc.want)
		}
	}
}
