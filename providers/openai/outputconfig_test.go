package openai

import (
	"testing"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// TestOutputConfig: output_config.effort becomes reasoning_effort (effort
// and both modes) or OpenRouter's reasoning.effort in place of the budget's,
// max the highest level the efforts table lets through; hint mode sends no
// effort; a json_schema format becomes a strict response_format. Exact
// upstream bodies.
func TestOutputConfig(t *testing.T) {
	const schema = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`
	body := func(thinking, oc string) string {
		return `{"model":"m","max_tokens":100,"thinking":` + thinking + `,"output_config":` + oc + `,"messages":[{"role":"user","content":"Hi"}]}`
	}
	for _, c := range []struct {
		name, body string
		cfg        Config
		want       string
	}{
		{"effort_high", body(`{"type":"enabled","budget_tokens":2000}`, `{"effort":"high"}`), Config{ThinkingMode: ModeEffort},
			`{"model":"m","messages":[{"role":"user","content":"Hi"}],"max_tokens":100,"reasoning_effort":"high"}`},
		{"effort_max", body(`{"type":"adaptive"}`, `{"effort":"max"}`), Config{ThinkingMode: ModeEffort},
			`{"model":"m","messages":[{"role":"user","content":"Hi"}],"max_tokens":100,"reasoning_effort":"high"}`},
		{"effort_max_table", body(`{"type":"adaptive"}`, `{"effort":"max"}`),
			Config{ThinkingMode: ModeEffort, Efforts: []providers.EffortStep{{Effort: "minimal", MaxBudget: 1024}, {Effort: "low"}}},
			`{"model":"m","messages":[{"role":"user","content":"Hi"}],"max_tokens":100,"reasoning_effort":"low"}`},
		{"effort_thinking_off", body(`{"type":"disabled"}`, `{"effort":"low"}`), Config{ThinkingMode: ModeEffort},
			`{"model":"m","messages":[{"role":"user","content":"Hi"}],"max_tokens":100,"reasoning_effort":"low"}`},
		{"effort_hint_mode", body(`{"type":"disabled"}`, `{"effort":"low"}`), Config{},
			`{"model":"m","messages":[{"role":"user","content":"Hi"}],"max_tokens":100}`},
		{"effort_openrouter", body(`{"type":"enabled","budget_tokens":2000}`, `{"effort":"medium"}`), Config{ThinkingMode: ModeOpenRouter},
			`{"model":"m","messages":[{"role":"user","content":"Hi"}],"max_tokens":100,"reasoning":{"effort":"medium"}}`},
		{"format", body(`{"type":"disabled"}`, `{"format":{"type":"json_schema","schema":`+schema+`}}`), Config{},
			`{"model":"m","messages":[{"role":"user","content":"Hi"}],"max_tokens":100,"response_format":{"type":"json_schema","json_schema":{"name":"structured_output","schema":` + schema + `,"strict":true}}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _, err := ConvertRequest(exchange(t, nil, c.body), c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("upstream body:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
	_, _, err := ConvertRequest(exchange(t, nil, body(`{"type":"adaptive"}`, `{"effort":"huge"}`)), Config{ThinkingMode: ModeEffort})
	if e, ok := err.(*wire.Error); !ok || e.Status != 400 || e.Message != `output_config.effort: must be one of low, medium, high, xhigh, max; got "huge"` {
		t.Errorf("bad effort: %v", err)
	}
}
