package gemini

import (
	"testing"
)

// TestOutputConfig: output_config.effort becomes thinkingLevel on a level
// model (the thinking_levels table's levels: medium and max are high with
// the default low/high) and a budget on a budget model, thinking off
// staying off there; a json_schema format becomes responseMimeType and
// responseJsonSchema. Exact upstream bodies.
func TestOutputConfig(t *testing.T) {
	const schema = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`
	body := func(thinking, oc string) string {
		return `{"model":"m","max_tokens":100,"thinking":` + thinking + `,"output_config":` + oc + `,"messages":[{"role":"user","content":"Hi"}]}`
	}
	const contents = `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],`
	conv := Conversion{}.WithDefaults()
	for _, c := range []struct {
		name, model, body, want string
	}{
		{"level_low", "gemini-3-pro-preview", body(`{"type":"adaptive"}`, `{"effort":"low"}`),
			contents + `"generationConfig":{"maxOutputTokens":100,"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"low"}}}`},
		{"level_medium", "gemini-3-pro-preview", body(`{"type":"enabled","budget_tokens":2000}`, `{"effort":"medium"}`),
			contents + `"generationConfig":{"maxOutputTokens":100,"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"high"}}}`},
		{"level_max_thinking_off", "gemini-3-pro-preview", body(`{"type":"disabled"}`, `{"effort":"max"}`),
			contents + `"generationConfig":{"maxOutputTokens":100,"thinkingConfig":{"includeThoughts":false,"thinkingLevel":"high"}}}`},
		{"budget_medium", "gemini-2.5-flash", body(`{"type":"enabled","budget_tokens":2000}`, `{"effort":"medium"}`),
			contents + `"generationConfig":{"maxOutputTokens":100,"thinkingConfig":{"includeThoughts":true,"thinkingBudget":8192}}}`},
		{"budget_max", "gemini-2.5-flash", body(`{"type":"adaptive","display":"omitted"}`, `{"effort":"max"}`),
			contents + `"generationConfig":{"maxOutputTokens":100,"thinkingConfig":{"includeThoughts":false,"thinkingBudget":24576}}}`},
		{"budget_thinking_off", "gemini-2.5-flash", body(`{"type":"disabled"}`, `{"effort":"high"}`),
			contents + `"generationConfig":{"maxOutputTokens":100,"thinkingConfig":{"includeThoughts":false,"thinkingBudget":0}}}`},
		{"format", "gemini-2.5-flash", body(`{"type":"disabled"}`, `{"format":{"type":"json_schema","schema":`+schema+`}}`),
			contents + `"generationConfig":{"maxOutputTokens":100,"thinkingConfig":{"includeThoughts":false,"thinkingBudget":0},"responseMimeType":"application/json","responseJsonSchema":` + schema + `}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := conv.GenerateContent(exchange(t, testSettings(), c.body), c.model)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("upstream body:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}
