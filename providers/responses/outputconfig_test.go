package responses

import (
	"testing"

	"github.com/thinkgate/thinkgate/providers"
)

// TestOutputConfig: output_config.effort becomes reasoning.effort in place
// of the budget's (with thinking off too, without a summary), max the
// highest level the efforts table lets through; a json_schema format
// becomes a strict text.format. Exact upstream bodies.
func TestOutputConfig(t *testing.T) {
	const schema = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`
	body := func(thinking, oc string) string {
		return `{"model":"m","max_tokens":100,"thinking":` + thinking + `,"output_config":` + oc + `,"messages":[{"role":"user","content":"Hi"}]}`
	}
	const input = `"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Hi"}]}]`
	for _, c := range []struct {
		name, body string
		cfg        Config
		want       string
	}{
		{"effort_low", body(`{"type":"enabled","budget_tokens":30000}`, `{"effort":"low"}`), Config{},
			`{"model":"m",` + input + `,"max_output_tokens":100,"reasoning":{"effort":"low","summary":"auto"},"include":["reasoning.encrypted_content"],"store":false}`},
		{"effort_max", body(`{"type":"adaptive"}`, `{"effort":"max"}`), Config{},
			`{"model":"m",` + input + `,"max_output_tokens":100,"reasoning":{"effort":"high","summary":"auto"},"include":["reasoning.encrypted_content"],"store":false}`},
		{"effort_max_table", body(`{"type":"adaptive"}`, `{"effort":"max"}`),
			Config{Efforts: []providers.EffortStep{{Effort: "none", MaxBudget: 1024}, {Effort: "medium"}}},
			`{"model":"m",` + input + `,"max_output_tokens":100,"reasoning":{"effort":"medium","summary":"auto"},"include":["reasoning.encrypted_content"],"store":false}`},
		{"effort_thinking_off", body(`{"type":"disabled"}`, `{"effort":"medium"}`), Config{},
			`{"model":"m",` + input + `,"max_output_tokens":100,"reasoning":{"effort":"medium"},"store":false}`},
		{"format", body(`{"type":"disabled"}`, `{"format":{"type":"json_schema","schema":`+schema+`}}`), Config{},
			`{"model":"m",` + input + `,"max_output_tokens":100,"text":{"format":{"type":"json_schema","name":"structured_output","schema":` + schema + `,"strict":true}},"store":false}`},
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
}
