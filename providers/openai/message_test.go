package openai

import (
	"encoding/json"
	"testing"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"

	"github.com/anthropics/anthropic-sdk-go"
)

const nonStreamRequest = `{"model":"claude-test","max_tokens":1024,"messages":[{"role":"user","content":"Hi"}]}`

// TestConvertMessageGolden: chat.completion bodies become exactly the
// Anthropic Messages in testdata/messages.
func TestConvertMessageGolden(t *testing.T) {
	var st State
	short := st.shorten("mcp__weather-server.v2__get_current_conditions_for_a_city_by_name")
	for _, tc := range []struct {
		name, body string
		settings   func(*providers.Settings)
	}{
		{"tags", `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"` +
			`Intro. <thinking>Step 1.</thinking>A, B, C.","refusal":null},"logprobs":null,"finish_reason":"stop"}],` +
			`"usage":{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":4}}}`, nil},
		{"reasoning_and_tools", `{"id":"chatcmpl-2","object":"chat.completion","created":1,"model":"deepseek-reasoner","choices":[{"index":0,"message":{"role":"assistant",` +
			`"content":"Checking.","reasoning_content":"Need weather and time.","tool_calls":[` +
			`{"id":"call_1","type":"function","function":{"name":"` + short + `","arguments":"{\"city\":\"Paris\"}"}},` +
			`{"id":"call_2","type":"function","function":{"name":"get_time","arguments":""}}]},"finish_reason":"tool_calls"}],` +
			`"usage":{"prompt_tokens":30,"completion_tokens":12,"total_tokens":42,"prompt_cache_hit_tokens":10,"prompt_cache_miss_tokens":20}}`, nil},
		{"reasoning_vllm_parts", `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant",` +
			`"reasoning":"think","content":[{"type":"text","text":"part one, "},{"type":"text","text":"part two"}]},"finish_reason":"length","stop_reason":null}]}`, nil},
		{"text_form", `{"choices":[{"message":{"content":"<thinking>t</thinking>a"},"finish_reason":"stop"}]}`,
			func(s *providers.Settings) { s.Form = emit.FormText }},
		{"no_split", `{"choices":[{"message":{"content":"<thinking>t</thinking>a"},"finish_reason":"stop"}]}`,
			func(s *providers.Settings) { s.SplitTags = false }},
		{"refusal", `{"choices":[{"message":{"content":null,"refusal":"I can't."},"finish_reason":"stop"}]}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testSettings()
			if tc.settings != nil {
				tc.settings(s)
			}
			x := exchange(t, s, nonStreamRequest)
			out, err := NewTranslator(x, &st, 0).Message([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			golden.JSON(t, "messages/"+tc.name+".json", out)
			var m anthropic.Message
			if err := json.Unmarshal(out, &m); err != nil || m.ID != "msg_test" || m.Model != "claude-test" {
				t.Errorf("SDK decode: %v %+v", err, m)
			}
		})
	}
}

func TestConvertMessageUsageAndSignatures(t *testing.T) {
	x := exchange(t, nil, nonStreamRequest)
	out, err := NewTranslator(x, nil, 0).Message([]byte(`{"choices":[{"message":{"content":"<thinking>abc</thinking>d","reasoning_content":"r"},"finish_reason":"stop"}],"usage":{"prompt_tokens":8,"completion_tokens":3}}`))
	if err != nil {
		t.Fatal(err)
	}
	var m anthropic.Message
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Content) != 3 || m.Content[0].Thinking != "r" || m.Content[1].Thinking != "abc" || m.Content[2].Text != "d" {
		t.Fatalf("content %+v", m.Content)
	}
	for _, b := range m.Content[:2] {
		if origin, _, ok := x.Settings.Signer.Open(b.Signature, b.Thinking); !ok || origin != emit.OriginTags {
			t.Errorf("signature %q of %q", b.Signature, b.Thinking)
		}
	}
	if want := (emit.Usage{InputTokens: 8, OutputTokens: 3}); x.Usage != want || m.Usage.InputTokens != 8 || m.Usage.OutputTokens != 3 {
		t.Errorf("usage %+v / %+v", x.Usage, m.Usage)
	}
}

func TestConvertMessageErrors(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		status     int
		typ, msg   string
	}{
		{"not json", `<html>oops</html>`, 502, "api_error", "malformed upstream response: body is not a chat.completion JSON object"},
		{"no choices", `{"choices":[]}`, 502, "api_error", "malformed upstream response: chat.completion without choices"},
		{"error in a 200", `{"error":{"message":"Model is overloaded","type":"server_error","code":503}}`, 529, "overloaded_error", "Model is overloaded"},
		{"error string in a 200", `{"error":"model 'llama9' not found"}`, 502, "api_error", "model 'llama9' not found"},
		{"context length", `{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`,
			400, "invalid_request_error", "prompt is too long: This model's maximum context length is 128000 tokens."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewTranslator(exchange(t, nil, nonStreamRequest), nil, 0).Message([]byte(tc.body))
			e, ok := err.(*wire.Error)
			if !ok || e.Status != tc.status || e.Type != tc.typ || e.Message != tc.msg {
				t.Errorf("got %#v, want %d %s %q", err, tc.status, tc.typ, tc.msg)
			}
		})
	}
}
