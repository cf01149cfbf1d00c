package converse

import (
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

const claude = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

// convertCase converts body for model and compares the Converse body with
// testdata/requests/<golden>.json.
type convertCase struct {
	golden   string
	path     string
	opts     Options
	settings func(*providers.Settings)
	body     string
}

func runConvert(t *testing.T, tc convertCase) {
	t.Helper()
	s := testSettings()
	if tc.settings != nil {
		tc.settings(s)
	}
	x := exchange(t, s, tc.path, tc.body)
	out, st, err := ConvertRequest(x, tc.opts, nil)
	if err != nil {
		t.Fatalf("%s: ConvertRequest: %v", tc.golden, err)
	}
	if st == nil {
		t.Fatalf("%s: no state", tc.golden)
	}
	golden.JSON(t, "requests/"+tc.golden+".json", out)
}

func TestConvertRequest(t *testing.T) {
	thought := "The user wants the weather; I should call the tool."
	history := `{"model":"` + claude + `","max_tokens":8000,"stream":true,` +
		`"thinking":{"type":"enabled","budget_tokens":4000},"temperature":0.7,` +
		`"messages":[` +
		`{"role":"user","content":[{"type":"text","text":"What is this and how is the weather?"},` +
		`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},` +
		`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0x"}},` +
		`{"type":"document","source":{"type":"text","media_type":"text/plain","data":"plain notes"},"cache_control":{"type":"ephemeral"}}]},` +
		`{"role":"assistant","content":[` +
		`{"type":"thinking","thinking":"` + thought + `","signature":"` + bedrockSig("EqQBCkgIBxAB", thought) + `"},` +
		`{"type":"redacted_thinking","data":"` + testSigner.Sign(emit.OriginBedrock, "cmVkYWN0ZWQ=", "") + `"},` +
		`{"type":"thinking","thinking":"from Gemini","signature":"` + testSigner.Sign(emit.OriginGemini, "g", "from Gemini") + `"},` +
		`{"type":"thinking","thinking":"Anthropic's own","signature":"EqQBAnthropic"},` +
		`{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix"},` +
		`{"type":"text","text":"Let me look."},` +
		`{"type":"tool_use","id":"tooluse_1","name":"get_weather","input":{"city":"Paris"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"tooluse_1","content":[{"type":"text","text":"18°C"},` +
		`{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/4AAQ"}}]},` +
		`{"type":"tool_result","tool_use_id":"tooluse_2","content":"timeout","is_error":true}]},` +
		`{"role":"user","content":"And tomorrow?"}],` +
		`"tools":[{"name":"get_weather","description":"Weather of a city","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"cache_control":{"type":"ephemeral"}},` +
		`{"name":"no_args"}],"tool_choice":{"type":"auto","disable_parallel_tool_use":true}}`
	for _, tc := range []convertCase{
		{
			golden: "basic",
			body: `{"model":"` + claude + `","max_tokens":1024,"temperature":0.5,"top_p":0.9,"top_k":40,"stop_sequences":["END"],` +
				`"metadata":{"user_id":"u1"},"thinking":{"type":"disabled"},` +
				`"system":[{"type":"text","text":"You are terse."},{"type":"text","text":"Cached part.","cache_control":{"type":"ephemeral"}}],` +
				`"messages":[{"role":"user","content":"Hi"},{"role":"user","content":[{"type":"text","text":"there"},{"type":"text","text":""}]},` +
				`{"role":"assistant","content":"Hello."},{"role":"system","content":"Be kind."},{"role":"user","content":"Bye"}]}`,
		},
		{golden: "history_claude", body: history},
		{golden: "history_other_model", opts: Options{ThinkingFamily: FamilyNone}, body: strings.Replace(history, claude, "mistral.mistral-large-2407-v1:0", 1)},
		{golden: "count_tokens", path: "/v1/messages/count_tokens", body: history},
		{
			golden:   "tags_back_in_text",
			settings: func(s *providers.Settings) { s.SplitTags = true },
			body: `{"model":"meta.llama3-3-70b-instruct-v1:0","max_tokens":100,"thinking":{"type":"enabled","budget_tokens":2000},"messages":[{"role":"user","content":"Hi"},` +
				`{"role":"assistant","content":[{"type":"thinking","thinking":"greet back","signature":"` + testSigner.Sign(emit.OriginTags, "", "greet back") + `"},{"type":"text","text":"Hello!"}]},` +
				`{"role":"user","content":"Again"}]}`,
		},
		{
			golden: "tool_choice_none_with_history",
			body: `{"model":"` + claude + `","max_tokens":100,"thinking":false,"tool_choice":{"type":"none"},"tools":[{"name":"f","input_schema":{"type":"object"}}],"messages":[` +
				`{"role":"user","content":"Hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":null}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1"}]}]}`,
		},
		{
			golden: "tool_history_without_tools",
			body: `{"model":"mistral.mistral-large-2407-v1:0","max_tokens":100,"messages":[` +
				`{"role":"user","content":"Hi"},{"role":"assistant","content":[{"type":"text","text":"Looking."},{"type":"tool_use","id":"t1","name":"f","input":{ "a" : [1, 2] }},{"type":"tool_use","id":"t2","name":"g","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"  "},{"type":"tool_result","tool_use_id":"t2","is_error":true,` +
				`"content":[{"type":"text","text":"boom"},{"type":"image","source":{"type":"base64","media_type":"image/gif","data":"R0lG"}}]},{"type":"text","text":" \n"}]},` +
				`{"role":"assistant","content":"  "},{"role":"user","content":"Go on"}]}`,
		},
		{
			golden: "tool_result_empty",
			body: `{"model":"` + claude + `","max_tokens":100,"thinking":false,"tools":[{"name":"f","input_schema":{"type":"object"}}],"messages":[` +
				`{"role":"user","content":"Hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":""}]}]}`,
		},
		{
			golden: "tool_choice_none",
			body:   `{"model":"` + claude + `","max_tokens":100,"thinking":false,"tool_choice":{"type":"none"},"tools":[{"name":"f","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"Hi"}]}`,
		},
		{
			golden: "tool_choice_tool",
			opts:   Options{CachePoints: CacheOff},
			body: `{"model":"` + claude + `","max_tokens":100,"thinking":false,"tool_choice":{"type":"tool","name":"f"},` +
				`"tools":[{"name":"f","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}},{"type":"tool_search_tool_regex_20251119","name":"tool_search"}],"messages":[{"role":"user","content":"Hi"}]}`,
		},
		{
			golden: "tool_choice_any_cache_on",
			opts:   Options{CachePoints: CacheOn},
			body: `{"model":"qwen.qwen3-32b-v1:0","max_tokens":100,"thinking":false,"tool_choice":{"type":"any"},` +
				`"tools":[{"name":"f","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"Hi"}]}`,
		},
	} {
		t.Run(tc.golden, func(t *testing.T) { runConvert(t, tc) })
	}
}

// Every family's thinking fields, and what each drops.
func TestConvertThinkingFamilies(t *testing.T) {
	req := func(model, thinking string, maxTokens string) string {
		return `{"model":"` + model + `","max_tokens":` + maxTokens + `,"temperature":0.3,"top_p":0.8,"top_k":5,"thinking":` + thinking +
			`,"messages":[{"role":"user","content":"Hi"}]}`
	}
	arn := "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3"
	for _, tc := range []convertCase{
		{golden: "family_claude_budget", body: req(claude, `{"type":"enabled","budget_tokens":3000}`, "8000")},
		{golden: "family_claude_adaptive", body: req("global.anthropic.claude-opus-4-6-v1", `{"type":"adaptive"}`, "8000")},
		{golden: "family_claude_default", body: req(claude, `true`, "2048")},
		{golden: "family_claude_tool_loop_without_reasoning", body: `{"model":"` + claude + `","max_tokens":8000,"temperature":0.2,"thinking":{"type":"enabled","budget_tokens":2000},` +
			`"tools":[{"name":"f","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"Hi"},` +
			`{"role":"assistant","content":[{"type":"thinking","thinking":"from elsewhere","signature":"EqAnthropic"},{"type":"tool_use","id":"t1","name":"f","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]}`},
		{golden: "family_claude_tool_loop_with_reasoning", body: `{"model":"` + claude + `","max_tokens":8000,"temperature":0.2,"thinking":{"type":"enabled","budget_tokens":2000},` +
			`"tools":[{"name":"f","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"Hi"},` +
			`{"role":"assistant","content":[{"type":"thinking","thinking":"mine","signature":"` + bedrockSig("sig", "mine") + `"},{"type":"tool_use","id":"t1","name":"f","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]}`},
		{golden: "family_claude_too_small", body: req(claude, `true`, "512")},
		{golden: "family_claude_off", body: req(claude, `{"type":"disabled"}`, "512")},
		{golden: "family_nova_high", body: req("us.amazon.nova-2-lite-v1:0", `{"type":"enabled","budget_tokens":20000}`, "30000")},
		{golden: "family_nova_low", opts: Options{Efforts: []providers.EffortStep{{Effort: "low", MaxBudget: 8000}, {Effort: "high"}}},
			body: req("us.amazon.nova-2-lite-v1:0", `{"type":"enabled","budget_tokens":5000}`, "30000")},
		{golden: "family_nova_off", body: req("us.amazon.nova-2-lite-v1:0", `false`, "300")},
		{golden: "family_gpt_oss", body: req("openai.gpt-oss-120b-1:0", `{"type":"enabled","budget_tokens":10000}`, "30000")},
		{golden: "family_deepseek", body: req("us.deepseek.r1-v1:0", `true`, "30000")},
		{golden: "family_none", body: req("mistral.mistral-large-2407-v1:0", `true`, "1000")},
		{golden: "family_override", opts: Options{ThinkingFamily: FamilyNova}, body: req(arn, `true`, "1000")},
	} {
		t.Run(tc.golden, func(t *testing.T) { runConvert(t, tc) })
	}
}

// What Converse cannot take is a 400 naming the field, before anything
// is sent.
func TestConvertRequestErrors(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"image url", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://x/y.png"}}]}]}`,
			`messages.0.content.0.source: image source type "url" is not supported by Bedrock's Converse API`},
		{"image type", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/bmp","data":"Qk0="}}]}]}`,
			`messages.0.content.0.source.media_type: image media type "image/bmp" (Converse takes png, jpeg, gif and webp) is not supported by Bedrock's Converse API`},
		{"document type", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"document","source":{"type":"base64","media_type":"application/zip","data":"UEs="}}]}]}`,
			`messages.0.content.0.source.media_type: document media type "application/zip" is not supported by Bedrock's Converse API`},
		{"server tool", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}],"tools":[{"type":"web_search_20250305","name":"web_search"}]}`,
			`tools.0: server tool "web_search" (type "web_search_20250305") is not supported by Bedrock's Converse API`},
		{"tool_choice", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}],"tools":[{"name":"f"}],"tool_choice":{"type":"some"}}`,
			`tool_choice.type: must be auto, any, tool or none, got "some"`},
		{"system image", `{"model":"m","max_tokens":1,"system":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"x"}}],"messages":[{"role":"user","content":"x"}]}`,
			`system.0: content block type "image" in a system prompt is not supported by Bedrock's Converse API`},
		{"server tool use in history", `{"model":"m","max_tokens":1,"messages":[{"role":"assistant","content":[{"type":"server_tool_use","id":"s","name":"web_search","input":{}}]}]}`,
			`messages.0.content.0: content block type "server_tool_use" in an assistant message is not supported by Bedrock's Converse API`},
		{"tool result search", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"search_result","source":"s","title":"t","content":[]}]}]}]}`,
			`messages.0.content.0.content.0: content block type "search_result" in a tool_result is not supported by Bedrock's Converse API`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ConvertRequest(exchange(t, nil, "", tc.body), Options{}, nil)
			e, ok := err.(*wire.Error)
			if !ok || e.Status != 400 || e.Type != "invalid_request_error" || e.Message != tc.want {
				t.Fatalf("got %#v\nwant 400 invalid_request_error %q", err, tc.want)
			}
		})
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{}, ""},
		{Options{ThinkingFamily: FamilyGPTOSS, CachePoints: CacheOff, Efforts: []providers.EffortStep{{Effort: "low", MaxBudget: 100}, {Effort: "high"}}}, ""},
		{Options{ThinkingFamily: "llama"}, `thinking_family: must be claude, nova, gpt-oss, deepseek or none, got "llama"`},
		{Options{CachePoints: "yes"}, `cache_points: must be auto, on or off, got "yes"`},
		{Options{Efforts: []providers.EffortStep{{Effort: "minimal"}}}, `efforts: step 0: effort must be one of low, medium, high, got "minimal"`},
	} {
		err := tc.opts.Validate()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.opts, got, tc.want)
		}
	}
}
