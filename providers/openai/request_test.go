package openai

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// TestConvertRequestGolden: each Anthropic request in testdata/requests
// converts to exactly the Chat Completions body in its .out.json.
func TestConvertRequestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			s := testSettings()
			if tc.settings != nil {
				tc.settings(s)
			}
			x := exchange(t, s, readFile(t, "requests/"+tc.in+".in.json"))
			body, state, err := ConvertRequest(x, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(body) {
				t.Fatalf("invalid JSON: %s", body)
			}
			golden.JSON(t, "requests/"+tc.name+".out.json", body)
			// Every shortened name maps back to the client's.
			for short, orig := range state.toolNames {
				if !validToolName(short) || state.original([]byte(short)) != orig {
					t.Errorf("tool name %q ↔ %q", short, orig)
				}
			}
		})
	}
}

// TestClaudeCodeRequestShape checks the converted Claude Code turn against
// what Chat Completions demands, independently of the golden file.
func TestClaudeCodeRequestShape(t *testing.T) {
	x := exchange(t, nil, readFile(t, "requests/claude_code.in.json"))
	body, state, err := ConvertRequest(x, Config{})
	if err != nil {
		t.Fatal(err)
	}
	var req struct {
		Model    string
		Messages []struct {
			Role      string
			Content   json.RawMessage
			ToolCalls []struct {
				ID, Type string
				Function struct{ Name, Arguments string }
			} `json:"tool_calls"`
			ToolCallID string `json:"tool_call_id"`
		}
		Tools []struct {
			Type     string
			Function struct {
				Name       string
				Parameters json.RawMessage
			}
		}
		Stream        bool
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		User      string
		MaxTokens int `json:"max_tokens"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(body, &fields)
	for _, f := range []string{"thinking", "context_management", "output_config", "system", "metadata", "cache_control", "stop_sequences"} {
		if _, ok := fields[f]; ok {
			t.Errorf("Anthropic-only field %q forwarded", f)
		}
	}
	if strings.Contains(string(body), "cache_control") || strings.Contains(string(body), "defer_loading") {
		t.Errorf("cache_control or defer_loading forwarded: %s", body)
	}
	if len(req.Tools) != 12 {
		t.Errorf("got %d tools, want 12", len(req.Tools))
	}
	for _, tool := range req.Tools {
		if tool.Type != "function" || !validToolName(tool.Function.Name) || !json.Valid(tool.Function.Parameters) {
			t.Errorf("bad tool %+v", tool)
		}
	}
	long := "mcp__claude_ai_Google_Drive__search_files_in_shared_drive_by_owner_and_date"
	short := req.Tools[11].Function.Name
	if len(short) > 64 || state.original([]byte(short)) != long {
		t.Errorf("long tool name sent as %q, maps back to %q", short, state.original([]byte(short)))
	}
	roles := []string{}
	for _, m := range req.Messages {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, ","); got != "system,user,assistant,tool,system" {
		t.Errorf("roles %s", got)
	}
	var sys string
	_ = json.Unmarshal(req.Messages[0].Content, &sys)
	if !strings.HasPrefix(sys, "You are Claude Code") ||
		!strings.HasSuffix(sys, "\n<thinking_mode>interleaved</thinking_mode><max_thinking_length>16000</max_thinking_length>") {
		t.Errorf("system prompt %q", sys)
	}
	if tc := req.Messages[2].ToolCalls; len(tc) != 1 || tc[0].ID != "toolu_01HNd8ZkRxxdnyT2wDUytKmT" || tc[0].Function.Name != "Bash" ||
		tc[0].Function.Arguments != `{"command":"go test ./thinkparse/","description":"Run the parser tests"}` {
		t.Errorf("tool_calls %+v", tc)
	}
	if req.Messages[3].ToolCallID != "toolu_01HNd8ZkRxxdnyT2wDUytKmT" {
		t.Errorf("tool message %+v", req.Messages[3])
	}
	if req.Model != "claude-sonnet-4-5-20250929" || !req.Stream || !req.StreamOptions.IncludeUsage || req.MaxTokens != 32000 ||
		// Claude Code's 150-character user_id, hashed to OpenAI's 64.
		req.User != "33f59c1bbc0c519cfe6a125dd4336eef0aca9e160acaac450442038316eae8bd" {
		t.Errorf("model %q stream %v %v max %d user %q", req.Model, req.Stream, req.StreamOptions, req.MaxTokens, req.User)
	}
}

func TestToolChoice(t *testing.T) {
	const tools = `"tools":[{"name":"a","input_schema":{"type":"object"}}]`
	for _, tc := range []struct {
		name, fields string
		want         string // tool_choice and parallel_tool_calls as sent, "" when absent
	}{
		{"auto", tools + `,"tool_choice":{"type":"auto"}`, `"auto" <nil>`},
		{"any", tools + `,"tool_choice":{"type":"any"}`, `"required" <nil>`},
		{"none", tools + `,"tool_choice":{"type":"none"}`, `"none" <nil>`},
		{"tool", tools + `,"tool_choice":{"type":"tool","name":"a"}`, `{"type":"function","function":{"name":"a"}} <nil>`},
		{"auto no parallel", tools + `,"tool_choice":{"type":"auto","disable_parallel_tool_use":true}`, `"auto" false`},
		{"any no parallel", tools + `,"tool_choice":{"type":"any","disable_parallel_tool_use":true}`, `"required" false`},
		{"no tools", `"tool_choice":{"type":"any"}`, ` <nil>`},
		{"only tool_search", `"tools":[{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}],"tool_choice":{"type":"auto"}`, ` <nil>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := exchange(t, nil, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}],`+tc.fields+`}`)
			body, _, err := ConvertRequest(x, Config{})
			if err != nil {
				t.Fatal(err)
			}
			var out struct {
				ToolChoice json.RawMessage `json:"tool_choice"`
				Parallel   *bool           `json:"parallel_tool_calls"`
			}
			_ = json.Unmarshal(body, &out)
			got := string(out.ToolChoice) + " <nil>"
			if out.Parallel != nil {
				got = string(out.ToolChoice) + " false"
				if *out.Parallel {
					got = string(out.ToolChoice) + " true"
				}
			}
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestToolNames(t *testing.T) {
	var s State
	long := strings.Repeat("x", 70)
	for _, tc := range []struct {
		name  string
		short bool
	}{
		{"Bash", false},
		{"mcp__github__create_issue", false},
		{strings.Repeat("a", 64), false},
		{strings.Repeat("a", 65), true},
		{long, true},
		{long + "y", true},
		{"weather.v2", true},
		{"天气", true},
		{"", true},
	} {
		got := s.shorten(tc.name)
		if !validToolName(got) {
			t.Errorf("shorten(%q) = %q: not a valid OpenAI name", tc.name, got)
		}
		if (got != tc.name) != tc.short {
			t.Errorf("shorten(%q) = %q", tc.name, got)
		}
		if back := s.original([]byte(got)); back != tc.name {
			t.Errorf("original(%q) = %q, want %q", got, back, tc.name)
		}
	}
	if s.shorten(long) == s.shorten(long+"y") {
		t.Error("two long names shortened to the same name")
	}
	if got := s.shorten("weather.v2"); !strings.HasPrefix(got, "weather_v2_") || len(got) != len("weather_v2_")+8 {
		t.Errorf("shorten(weather.v2) = %q", got)
	}
	var nilState *State
	if nilState.original([]byte("abc")) != "abc" {
		t.Error("nil state must map names to themselves")
	}
}

func TestConvertRequestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"url document", `{"role":"user","content":[{"type":"text","text":"read"},{"type":"document","source":{"type":"url","url":"https://example.com/a.pdf"}}]}`,
			`messages.0.content.1: document block with a url source (the gateway fetches nothing: send the document as base64 data or text) is not supported by the openai provider`},
		{"file document", `{"role":"user","content":[{"type":"document","source":{"type":"file","file_id":"file_1"}}]}`,
			`messages.0.content.0: document block (source file) is not supported by the openai provider`},
		{"search_result", `{"role":"user","content":[{"type":"search_result","title":"t","content":[{"type":"text","text":"r"}]}]}`,
			`messages.0.content.0: content block type "search_result" in a user message is not supported by the openai provider`},
		{"server_tool_use", `{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}]}`,
			`messages.0.content.0: content block type "server_tool_use" in an assistant message is not supported by the openai provider`},
		{"image source", `{"role":"user","content":[{"type":"image","source":{"type":"file","file_id":"file_1"}}]}`,
			`messages.0.content.0.source: image source type "file" is not supported by the openai provider`},
		{"document in tool_result", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"document","source":{"type":"text","data":"x"}}]}]}`,
			`messages.0.content.0.content.0: content block type "document" in a tool_result is not supported by the openai provider`},
		{"image in system message", `{"role":"system","content":[{"type":"image","source":{"type":"url","url":"u"}}]}`,
			`messages.0.content.0: content block type "image" in a system prompt is not supported by the openai provider`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := exchange(t, nil, `{"model":"m","max_tokens":1,"messages":[`+tc.body+`]}`)
			_, _, err := ConvertRequest(x, Config{})
			e, ok := err.(*wire.Error)
			if !ok || e.Status != 400 || e.Type != "invalid_request_error" || e.Message != tc.want {
				t.Errorf("got %#v\nwant 400 invalid_request_error %q", err, tc.want)
			}
		})
	}
	x := exchange(t, nil, `{"model":"m","max_tokens":1,"messages":[],"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":5}]}`)
	_, _, err := ConvertRequest(x, Config{})
	if e, ok := err.(*wire.Error); !ok || e.Status != 400 || e.Message != `tools.0: server tool "web_search" (type "web_search_20250305") is not supported by the openai provider` {
		t.Errorf("server tool: %v", err)
	}
}

func TestPlainTextDocument(t *testing.T) {
	x := exchange(t, nil, `{"model":"m","max_tokens":1,"thinking":false,"messages":[{"role":"user","content":[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"notes"}},{"type":"text","text":"summarise"}]}]}`)
	body, _, err := ConvertRequest(x, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !golden.EqualJSON(t, body, []byte(`{"model":"m","messages":[{"role":"user","content":"notes\nsummarise"}],"max_tokens":1}`)) {
		t.Errorf("got %s", body)
	}
}

func TestRewrite(t *testing.T) {
	x := exchange(t, nil, streamRequest)
	x.RawQuery = "beta=true"
	h := http.Header{}
	for k, v := range map[string]string{"X-Api-Key": "client-key", "Anthropic-Version": "2023-06-01", "Anthropic-Beta": "interleaved-thinking-2025-05-14",
		"Authorization": "Bearer client", "User-Agent": "claude-cli/2.0", "Content-Type": "application/json"} {
		h.Set(k, v)
	}
	out := &providers.Outbound{Path: "/v1/messages", RawQuery: "beta=true", Header: h}
	tr, err := New(Config{APIKey: "sk-upstream"}).Rewrite(x, out)
	if err != nil {
		t.Fatal(err)
	}
	if out.Path != "/v1/chat/completions" || out.RawQuery != "" {
		t.Errorf("target %s?%s", out.Path, out.RawQuery)
	}
	want := http.Header{"Authorization": {"Bearer sk-upstream"}, "User-Agent": {"claude-cli/2.0"}, "Content-Type": {"application/json"}}
	if len(h) != len(want) {
		t.Errorf("headers %v, want %v", h, want)
	}
	for k, v := range want {
		if h.Get(k) != v[0] {
			t.Errorf("header %s = %q, want %q", k, h.Get(k), v[0])
		}
	}
	if tr, ok := tr.(*Translator); !ok || tr.state == nil {
		t.Errorf("translator %#v", tr)
	}

	// A path with a query (Azure OpenAI), and no key: no Authorization at all.
	h = http.Header{"Authorization": {"Bearer client"}}
	out = &providers.Outbound{Path: "/v1/messages", RawQuery: "beta=true", Header: h}
	if _, err := New(Config{Path: "/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21"}).Rewrite(x, out); err != nil {
		t.Fatal(err)
	}
	if out.Path != "/openai/deployments/gpt4o/chat/completions" || out.RawQuery != "api-version=2024-10-21" || len(h) != 0 {
		t.Errorf("target %s?%s headers %v", out.Path, out.RawQuery, h)
	}

	// count_tokens has no Chat Completions counterpart.
	x.CountTokens = true
	_, err = New(Config{}).Rewrite(x, &providers.Outbound{Header: http.Header{}})
	if e, ok := err.(*wire.Error); !ok || e.Status != 404 || e.Type != "not_found_error" || e.Message != "count_tokens is not supported by the openai provider" {
		t.Errorf("count_tokens: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, ""},
		{Config{Path: "/api/v1/chat/completions", ReasoningHistory: "reasoning_content", MaxTokensField: "max_completion_tokens"}, ""},
		{Config{Path: "v1/chat/completions"}, `path: must start with /, got "v1/chat/completions"`},
		{Config{ReasoningHistory: "tags"}, `reasoning_history: must be content, reasoning_content, openrouter or mistral, got "tags"`},
		{Config{MaxTokensField: "max"}, `max_tokens_field: must be max_tokens or max_completion_tokens, got "max"`},
	} {
		err := tc.cfg.Validate()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("Validate(%+v) = %q, want %q", tc.cfg, got, tc.want)
		}
	}
}
