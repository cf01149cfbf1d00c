package converse

import (
	"testing"
)

// TestOutputConfig: output_config.effort goes where the family takes one
// (Claude: output_config as sent; Nova 2 with reasoning on:
// maxReasoningEffort; gpt-oss: reasoning_effort; max the table's highest,
// DeepSeek none); a json_schema format becomes outputConfig.textFormat with
// the schema as a string. Exact upstream bodies.
func TestOutputConfig(t *testing.T) {
	const schema = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`
	body := func(model, thinking, oc string) string {
		return `{"model":"` + model + `","max_tokens":100,"thinking":` + thinking + `,"output_config":` + oc + `,"messages":[{"role":"user","content":"Hi"}]}`
	}
	const msgs = `{"messages":[{"role":"user","content":[{"text":"Hi"}]}],`
	const nova = "us.amazon.nova-2-lite-v1:0"
	const gptOSS = "openai.gpt-oss-120b-1:0"
	for _, c := range []struct {
		name, body, want string
	}{
		{"claude_max", body(claude, `{"type":"adaptive"}`, `{"effort":"max"}`),
			msgs + `"inferenceConfig":{"maxTokens":100},"additionalModelRequestFields":{"output_config":{"effort":"max"},"thinking":{"type":"adaptive"}}}`},
		{"nova_low", body(nova, `{"type":"enabled","budget_tokens":30000}`, `{"effort":"low"}`),
			msgs + `"inferenceConfig":{"maxTokens":100},"additionalModelRequestFields":{"reasoningConfig":{"maxReasoningEffort":"low","type":"enabled"}}}`},
		{"nova_max", body(nova, `{"type":"adaptive"}`, `{"effort":"max"}`),
			msgs + `"additionalModelRequestFields":{"reasoningConfig":{"maxReasoningEffort":"high","type":"enabled"}}}`},
		{"nova_thinking_off", body(nova, `{"type":"disabled"}`, `{"effort":"high"}`),
			msgs + `"inferenceConfig":{"maxTokens":100}}`},
		{"gpt_oss_medium", body(gptOSS, `{"type":"disabled"}`, `{"effort":"medium"}`),
			msgs + `"inferenceConfig":{"maxTokens":100},"additionalModelRequestFields":{"reasoning_effort":"medium"}}`},
		{"deepseek", body("us.deepseek.r1-v1:0", `{"type":"adaptive"}`, `{"effort":"low"}`),
			msgs + `"inferenceConfig":{"maxTokens":100}}`},
		{"format", body(nova, `{"type":"disabled"}`, `{"format":{"type":"json_schema","schema":`+schema+`}}`),
			msgs + `"inferenceConfig":{"maxTokens":100},"outputConfig":{"textFormat":{"type":"json_schema","structure":{"jsonSchema":{"schema":` +
				`"{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"],\"additionalProperties\":false}","name":"structured_output"}}}}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _, err := ConvertRequest(exchange(t, nil, "", c.body), Options{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("upstream body:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}
