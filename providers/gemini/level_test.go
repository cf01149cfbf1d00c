package gemini

import (
	"encoding/json"
	"testing"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/providers"
)

// TestThinkingLevel: models matching thinking_level_models get
// thinkingLevel from the budget by the levels table, never a
// thinkingBudget; the others keep thinkingBudget.
func TestThinkingLevel(t *testing.T) {
	body := func(model, thinking string) string {
		b := `{"model":"` + model + `","max_tokens":32000,"messages":[{"role":"user","content":"hi"}]`
		if thinking != "" {
			b += `,"thinking":` + thinking
		}
		return b + "}"
	}
	flash := []providers.EffortStep{{Effort: "minimal", MaxBudget: 512}, {Effort: "medium", MaxBudget: 4096}, {Effort: "high"}}
	for _, tc := range []struct {
		name, model, thinking string
		cfg                   Config
		defaultOff            bool
		want                  string
	}{
		{name: "budget low", model: "gemini-3-pro-preview", thinking: `{"type":"enabled","budget_tokens":8192}`,
			want: `{"includeThoughts":true,"thinkingLevel":"low"}`},
		{name: "budget high", model: "gemini-3-pro-preview", thinking: `{"type":"enabled","budget_tokens":8193}`,
			want: `{"includeThoughts":true,"thinkingLevel":"high"}`},
		{name: "models/ prefix", model: "models/gemini-3-flash-preview", thinking: `{"type":"enabled","budget_tokens":20000}`,
			want: `{"includeThoughts":true,"thinkingLevel":"high"}`},
		{name: "no budget: the provider's", model: "gemini-3-pro-preview", thinking: `true`,
			want: `{"includeThoughts":true,"thinkingLevel":"low"}`},
		{name: "provider budget high", model: "gemini-3-pro-preview", cfg: Config{Conversion: Conversion{ThinkingBudget: 10000}},
			want: `{"includeThoughts":true,"thinkingLevel":"high"}`},
		{name: "dynamic budget: no level", model: "gemini-3-pro-preview", cfg: Config{Conversion: Conversion{ThinkingBudget: -1}},
			want: `{"includeThoughts":true}`},
		{name: "adaptive: no level", model: "gemini-3-pro-preview", thinking: `{"type":"adaptive"}`,
			want: `{"includeThoughts":true}`},
		{name: "disabled: low, no thoughts", model: "gemini-3-pro-preview", thinking: `{"type":"disabled"}`,
			want: `{"includeThoughts":false,"thinkingLevel":"low"}`},
		{name: "false: low, no thoughts", model: "gemini-3-pro-preview", thinking: `false`,
			want: `{"includeThoughts":false,"thinkingLevel":"low"}`},
		{name: "omitted display", model: "gemini-3-pro-preview", thinking: `{"type":"enabled","budget_tokens":2000,"display":"omitted"}`,
			want: `{"includeThoughts":false,"thinkingLevel":"low"}`},
		{name: "default off, absent", model: "gemini-3-pro-preview", defaultOff: true,
			want: `{"includeThoughts":false}`},
		{name: "2.5 keeps the budget", model: "gemini-2.5-pro", thinking: `{"type":"enabled","budget_tokens":8192}`,
			want: `{"includeThoughts":true,"thinkingBudget":8192}`},
		{name: "custom table", model: "gemini-3-flash", thinking: `{"type":"enabled","budget_tokens":512}`,
			cfg: Config{Conversion: Conversion{ThinkingLevels: flash}}, want: `{"includeThoughts":true,"thinkingLevel":"minimal"}`},
		{name: "custom table medium", model: "gemini-3-flash", thinking: `{"type":"enabled","budget_tokens":4096}`,
			cfg: Config{Conversion: Conversion{ThinkingLevels: flash}}, want: `{"includeThoughts":true,"thinkingLevel":"medium"}`},
		{name: "custom models", model: "gemini-2.5-flash", thinking: `{"type":"enabled","budget_tokens":9000}`,
			cfg: Config{Conversion: Conversion{ThinkingLevelModels: []string{"gemini-2.5-*"}}}, want: `{"includeThoughts":true,"thinkingLevel":"high"}`},
		{name: "no level models", model: "gemini-3-pro-preview", thinking: `{"type":"enabled","budget_tokens":9000}`,
			cfg: Config{Conversion: Conversion{ThinkingLevelModels: []string{"none"}}}, want: `{"includeThoughts":true,"thinkingBudget":9000}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			s := testSettings()
			s.DefaultThinking = !tc.defaultOff
			out, err := rewrite(t, New(tc.cfg), exchange(t, s, body(tc.model, tc.thinking)), nil)
			if err != nil {
				t.Fatal(err)
			}
			var sent struct {
				GenerationConfig struct {
					ThinkingConfig json.RawMessage `json:"thinkingConfig"`
				} `json:"generationConfig"`
			}
			if err := json.Unmarshal(out.Body, &sent); err != nil {
				t.Fatal(err)
			}
			if !golden.EqualJSON(t, sent.GenerationConfig.ThinkingConfig, []byte(tc.want)) {
				t.Errorf("thinkingConfig %s, want %s", sent.GenerationConfig.ThinkingConfig, tc.want)
			}
		})
	}
}

func TestThinkingLevelOptionsRejected(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Conversion: Conversion{ThinkingLevelModels: []string{"gemini-[3"}}}, `thinking_level_models: bad pattern "gemini-[3"`},
		{Config{Conversion: Conversion{ThinkingLevels: []providers.EffortStep{{Effort: "max"}}}}, `thinking_levels: step 0: effort must be one of minimal, low, medium, high, got "max"`},
	} {
		if err := tc.cfg.Validate(); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %s", tc.cfg, err, tc.want)
		}
	}
}
