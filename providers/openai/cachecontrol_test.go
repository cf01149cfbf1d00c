package openai

import "testing"

// cacheRequest has breakpoints on a system text, on a user text between
// two others, on a plain-text document, on an image, on a tool_result and
// on a tool, and a system message with one; the last user turn has none.
const cacheRequest = `{"model":"claude-test","max_tokens":100,"thinking":{"type":"disabled"},
"system":[{"type":"text","text":"You are terse."},{"type":"text","text":"Long rules.","cache_control":{"type":"ephemeral","ttl":"1h"}},{"type":"text","text":"Today is Monday."}],
"tools":[{"name":"f","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}}],
"messages":[
{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b","cache_control":{"type":"ephemeral"}},{"type":"text","text":"c"},{"type":"image","source":{"type":"url","url":"https://x/i.png"},"cache_control":{"type":"ephemeral"}},{"type":"document","source":{"type":"text","media_type":"text/plain","data":"doc"},"cache_control":{"type":"ephemeral"}}]},
{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"out","cache_control":{"type":"ephemeral"}}]},
{"role":"system","content":[{"type":"text","text":"note","cache_control":{"type":"ephemeral"}}]},
{"role":"user","content":[{"type":"text","text":"last"}]}]}`

// TestOpenRouterCacheControl: with an OpenRouter upstream a text's
// breakpoint goes on the text part it ends (its ttl kept), so a message
// with one is sent as parts; breakpoints on images, tool results and
// tools are dropped; any other upstream gets the strings it always did.
// The typed reference writes the same bytes.
func TestOpenRouterCacheControl(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"openrouter", Config{ThinkingMode: ModeOpenRouter, ReasoningHistory: HistoryOpenRouter},
			`{"model":"claude-test","messages":[` +
				`{"role":"system","content":[{"type":"text","text":"You are terse.\nLong rules.","cache_control":{"type":"ephemeral","ttl":"1h"}},{"type":"text","text":"Today is Monday."}]},` +
				`{"role":"user","content":[{"type":"text","text":"a\nb","cache_control":{"type":"ephemeral"}},{"type":"text","text":"c"},{"type":"image_url","image_url":{"url":"https://x/i.png"}},{"type":"text","text":"doc","cache_control":{"type":"ephemeral"}}]},` +
				`{"role":"assistant","content":null,"tool_calls":[{"id":"t1","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
				`{"role":"tool","content":"out","tool_call_id":"t1"},` +
				`{"role":"system","content":[{"type":"text","text":"note","cache_control":{"type":"ephemeral"}}]},` +
				`{"role":"user","content":"last"}],` +
				`"max_tokens":100,"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]}`},
		{"openrouter history alone", Config{ReasoningHistory: HistoryOpenRouter}, ""},
		{"openai", Config{},
			`{"model":"claude-test","messages":[` +
				`{"role":"system","content":"You are terse.\nLong rules.\nToday is Monday."},` +
				`{"role":"user","content":[{"type":"text","text":"a\nb\nc"},{"type":"image_url","image_url":{"url":"https://x/i.png"}},{"type":"text","text":"doc"}]},` +
				`{"role":"assistant","content":null,"tool_calls":[{"id":"t1","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
				`{"role":"tool","content":"out","tool_call_id":"t1"},` +
				`{"role":"system","content":"note"},` +
				`{"role":"user","content":"last"}],` +
				`"max_tokens":100,"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == "" { // the history setting alone marks OpenRouter too
				want = `{"model":"claude-test","messages":[` +
					`{"role":"system","content":[{"type":"text","text":"You are terse.\nLong rules.","cache_control":{"type":"ephemeral","ttl":"1h"}},{"type":"text","text":"Today is Monday."}]},` +
					`{"role":"user","content":[{"type":"text","text":"a\nb","cache_control":{"type":"ephemeral"}},{"type":"text","text":"c"},{"type":"image_url","image_url":{"url":"https://x/i.png"}},{"type":"text","text":"doc","cache_control":{"type":"ephemeral"}}]},` +
					`{"role":"assistant","content":null,"tool_calls":[{"id":"t1","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
					`{"role":"tool","content":"out","tool_call_id":"t1"},` +
					`{"role":"system","content":[{"type":"text","text":"note","cache_control":{"type":"ephemeral"}}]},` +
					`{"role":"user","content":"last"}],` +
					`"max_tokens":100,"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]}`
			}
			got, _, err := ConvertRequest(exchange(t, nil, cacheRequest), tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Errorf("body\n got %s\nwant %s", got, want)
			}
			typed, _, err := convertTyped(exchange(t, nil, cacheRequest), tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if string(typed) != want {
				t.Errorf("typed body\n got %s\nwant %s", typed, want)
			}
		})
	}
}

// TestOpenRouterCacheControlHint: the thinking hint is the system
// message's last text, after the part a breakpoint closed; a lone user
// text with a breakpoint is one part, not a string.
func TestOpenRouterCacheControlHint(t *testing.T) {
	s := testSettings()
	s.ThinkingHint = "HINT"
	body := `{"model":"m","max_tokens":10,"system":[{"type":"text","text":"sys","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[{"type":"text","text":"q","cache_control":{"type":"ephemeral"}}]}]}`
	want := `{"model":"m","messages":[{"role":"system","content":[{"type":"text","text":"sys","cache_control":{"type":"ephemeral"}},{"type":"text","text":"HINT"}]},{"role":"user","content":[{"type":"text","text":"q","cache_control":{"type":"ephemeral"}}]}],"max_tokens":10}`
	cfg := Config{ReasoningHistory: HistoryOpenRouter}
	got, _, err := ConvertRequest(exchange(t, s, body), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
	typed, _, err := convertTyped(exchange(t, s, body), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if string(typed) != want {
		t.Errorf("typed body\n got %s\nwant %s", typed, want)
	}
}
