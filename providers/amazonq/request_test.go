package amazonq

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

const claudeCodeUserID = `{\"device_id\":\"d41d8cd98f00b204e9800998ecf8427e\",\"account_uuid\":\"\",\"session_id\":\"7C2A6A34-1B0E-4D7E-9C39-2F5E3B1D9A10\"}`

// TestRewriteGolden pins the exact upstream bodies for the request shapes
// that matter: the template and double hint, history with thinking,
// tools and tool results, merged and padded turns, images and documents.
func TestRewriteGolden(t *testing.T) {
	for _, tc := range rewriteGoldenCases {
		t.Run(tc.name, func(t *testing.T) {
			s := testSettings()
			s.Models = tc.models
			x := exchange(t, s, tc.body)
			out := &providers.Outbound{Path: "/v1/messages", RawQuery: "beta=true", Header: http.Header{}}
			if _, err := testProvider(tc.cfg).Rewrite(x, out); err != nil {
				t.Fatalf("Rewrite: %v", err)
			}
			golden.JSON(t, "requests/"+tc.name+".json", out.Body)
			if out.Path != PathJSON || out.RawQuery != "" {
				t.Errorf("path %q query %q", out.Path, out.RawQuery)
			}
		})
	}
}

// rewriteGoldenCases are the request shapes whose upstream bodies are
// pinned in testdata/requests.
var rewriteGoldenCases = []struct {
	name   string
	cfg    Config
	models []providers.ModelRule
	body   string
}{
	{
		name:   "basic",
		cfg:    Config{ProfileARN: "arn:aws:codewhisperer:us-east-1:123456789012:profile/ABCDEF"},
		models: []providers.ModelRule{{From: "claude-sonnet-4-5*", To: "CLAUDE_SONNET_4_5_20250929_V1_0"}},
		body: `{"model":"claude-sonnet-4-5-20250929","max_tokens":1024,"system":"You are terse.",
				"metadata":{"user_id":"` + claudeCodeUserID + `"},
				"messages":[{"role":"user","content":"What are the first three letters of the alphabet?"}]}`,
	},
	{
		name: "thinking_budget",
		body: `{"model":"claude-sonnet-4.5","max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":2048},
				"system":[{"type":"text","text":"You are Claude Code."},{"type":"text","text":"Be careful.","cache_control":{"type":"ephemeral"}}],
				"messages":[{"role":"user","content":[{"type":"text","text":"Plan the change."},{"type":"text","text":"Then do it.","cache_control":{"type":"ephemeral"}}]}]}`,
	},
	{
		name: "thinking_off",
		body: `{"model":"claude-sonnet-4.5","max_tokens":1024,"thinking":{"type":"disabled"},
				"metadata":{"user_id":"user_0123abcd_account__session_1f0c2c8e-4d4e-4a55-9a0b-6c1d2e3f4a5b"},
				"messages":[
					{"role":"user","content":"Hi"},
					{"role":"assistant","content":[{"type":"thinking","thinking":"Greet back.","signature":"sig"},{"type":"text","text":"Hello!"}]},
					{"role":"user","content":"Bye"}]}`,
	},
	{
		name: "tools_history",
		body: `{"model":"claude-sonnet-4.5","max_tokens":1024,"system":"Use tools.",
				"tools":[
					{"name":"get_weather","description":"Get the weather for a city.","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},
					{"type":"web_search_20250305","name":"web_search","max_uses":3},
					{"name":"mcp__a_rather_long_server_name_for_testing__and_an_even_longer_tool_name_here","input_schema":{"type":"object"}}],
				"messages":[
					{"role":"user","content":"What's the weather in Paris? And search."},
					{"role":"assistant","content":[
						{"type":"thinking","thinking":"Two calls.","signature":"EqQBCkYIBxgCKkB"},
						{"type":"text","text":"I'll check."},
						{"type":"tool_use","id":"tooluse_1","name":"get_weather","input":{"city":"Paris"}},
						{"type":"tool_use","id":"tooluse_2","name":"mcp__a_rather_long_server_name_for_testing__and_an_even_longer_tool_name_here","input":{}}]},
					{"role":"user","content":[
						{"type":"tool_result","tool_use_id":"tooluse_1","content":"18°C, sunny"},
						{"type":"tool_result","tool_use_id":"tooluse_2","content":[{"type":"text","text":"no results"}],"is_error":true},
						{"type":"text","text":"Now Rome."}]},
					{"role":"assistant","content":[{"type":"tool_use","id":"tooluse_3","name":"get_weather","input":{"city":"Rome"}}]},
					{"role":"user","content":[
						{"type":"tool_result","tool_use_id":"tooluse_3","content":[]},
						{"type":"tool_result","tool_use_id":"tooluse_3","content":"21°C"},
						{"type":"tool_result","tool_use_id":"tooluse_4"},
						{"type":"tool_result","tool_use_id":"tooluse_5","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}]}]}`,
	},
	{
		name: "merge_pad",
		body: `{"model":"claude-sonnet-4.5","max_tokens":1024,"thinking":false,
				"messages":[
					{"role":"assistant","content":"Hello, I'm ready."},
					{"role":"user","content":"a"},
					{"role":"user","content":[{"type":"text","text":"b"}]},
					{"role":"system","content":"Extra rule."},
					{"role":"assistant","content":"The answer is"}]}`,
	},
	{
		name: "images_docs",
		body: `{"model":"claude-sonnet-4.5","max_tokens":1024,"thinking":false,
				"messages":[{"role":"user","content":[
					{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/4AAQSkZJRg=="}},
					{"type":"image","source":{"type":"url","url":"https://example.com/cat.png"}},
					{"type":"document","source":{"type":"text","media_type":"text/plain","data":"Plain notes."}},
					{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0x"}},
					{"type":"text","text":"Describe these."}]}]}`,
	},
}

// TestRewriteTemplate checks the documented template and the hint, piece by
// piece, so a golden regenerated by mistake cannot hide a change.
func TestRewriteTemplate(t *testing.T) {
	x := exchange(t, testSettings(), `{"model":"m","max_tokens":10,"system":"Sys.","thinking":{"type":"enabled","budget_tokens":3000},"messages":[{"role":"user","content":"Question?"}]}`)
	out := &providers.Outbound{Header: http.Header{}}
	if _, err := testProvider(Config{}).Rewrite(x, out); err != nil {
		t.Fatal(err)
	}
	var body wireRequest
	if err := json.Unmarshal(out.Body, &body); err != nil {
		t.Fatal(err)
	}
	hint := "<thinking_mode>interleaved</thinking_mode><max_thinking_length>3000</max_thinking_length>"
	want := "--- SYSTEM PROMPT BEGIN ---\nSys.\n--- SYSTEM PROMPT END ---\n\n" +
		"--- CONTEXT ENTRY BEGIN ---\nCurrent time: " + fixedNowText + "\n--- CONTEXT ENTRY END ---\n\n" +
		"--- USER MESSAGE BEGIN ---\nQuestion?\n" + hint + hint + "\n--- USER MESSAGE END ---"
	m := body.ConversationState.CurrentMessage.UserInputMessage
	if m.Content != want {
		t.Errorf("content:\n%s\nwant:\n%s", m.Content, want)
	}
	if m.ModelID != "m" || m.Origin != "AI_EDITOR" || body.ConversationState.ChatTriggerType != "MANUAL" {
		t.Errorf("message = %+v", m)
	}
	if len(body.ConversationState.History) != 0 || body.ProfileArn != "" {
		t.Errorf("unexpected history/profile: %s", out.Body)
	}
	if strings.Contains(string(out.Body), `\u003c`) {
		t.Errorf("tags are escaped: %s", out.Body)
	}

	// A custom hint from the Caddyfile is used as it is, twice.
	s := testSettings()
	s.ThinkingHint = "<think harder/>"
	x = exchange(t, s, `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"Q"}]}`)
	out = &providers.Outbound{Header: http.Header{}}
	if _, err := testProvider(Config{Origin: "CLI"}).Rewrite(x, out); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(out.Body, &body)
	m = body.ConversationState.CurrentMessage.UserInputMessage
	if !strings.HasSuffix(m.Content, "Q\n<think harder/><think harder/>\n--- USER MESSAGE END ---") || m.Origin != "CLI" {
		t.Errorf("content %q origin %q", m.Content, m.Origin)
	}
}

func TestRewriteLongToolDescription(t *testing.T) {
	long := strings.Repeat("Runs a command. ", 700) // 11 200 bytes
	tools, _ := json.Marshal([]map[string]any{{"name": "Bash", "description": long, "input_schema": map[string]any{"type": "object"}}})
	x := exchange(t, testSettings(), `{"model":"m","max_tokens":10,"tools":`+string(tools)+`,"messages":[{"role":"user","content":"Q"}]}`)
	out := &providers.Outbound{Header: http.Header{}}
	if _, err := testProvider(Config{}).Rewrite(x, out); err != nil {
		t.Fatal(err)
	}
	var body wireRequest
	_ = json.Unmarshal(out.Body, &body)
	m := body.ConversationState.CurrentMessage.UserInputMessage
	desc := m.UserInputMessageContext.Tools[0].ToolSpecification.Description
	if len(desc) > maxToolDescription || !strings.HasPrefix(desc, "Runs a command. Runs") || !strings.HasSuffix(desc, "TOOL DOCUMENTATION section of the message)") {
		t.Errorf("description (%d bytes) not cut as expected: …%s", len(desc), desc[max(0, len(desc)-120):])
	}
	wantDoc := "--- TOOL DOCUMENTATION BEGIN ---\nTool: Bash\nFull Description:\n" + long + "\n--- TOOL DOCUMENTATION END ---\n\n--- CONTEXT ENTRY BEGIN ---"
	if !strings.HasPrefix(m.Content, wantDoc) {
		t.Errorf("content does not start with the tool documentation: %.200q", m.Content)
	}
}

func TestRewriteHeaders(t *testing.T) {
	body := `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"Q"}]}`
	clientHeader := func() http.Header {
		return http.Header{
			"X-Api-Key":         {"client-key"},
			"Anthropic-Version": {"2023-06-01"},
			"Anthropic-Beta":    {"interleaved-thinking-2025-05-14"},
			"Accept":            {"application/json"},
			"Content-Type":      {"application/json"},
			"User-Agent":        {"claude-cli/2.0"},
		}
	}
	cases := []struct {
		name              string
		cfg               Config
		header            http.Header
		path, ctype, auth string
		target            string
	}{
		{"json with key", Config{APIKey: "q-token"}, clientHeader(), "/generateAssistantResponse", "application/json", "Bearer q-token", ""},
		{"aws with key", Config{APIKey: "q-token", Protocol: ProtocolAWS}, clientHeader(), "/", "application/x-amz-json-1.0", "Bearer q-token", "AmazonCodeWhispererStreamingService.GenerateAssistantResponse"},
		{"client x-api-key goes through as bearer", Config{}, clientHeader(), "/generateAssistantResponse", "application/json", "Bearer client-key", ""},
		{"client bearer goes through", Config{}, http.Header{"Authorization": {"Bearer own-token"}}, "/generateAssistantResponse", "application/json", "Bearer own-token", ""},
		{"configured key replaces client bearer", Config{APIKey: "q-token"}, http.Header{"Authorization": {"Bearer own-token"}}, "/generateAssistantResponse", "application/json", "Bearer q-token", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := exchange(t, testSettings(), body)
			out := &providers.Outbound{Path: "/v1/messages", Header: tc.header}
			if _, err := testProvider(tc.cfg).Rewrite(x, out); err != nil {
				t.Fatal(err)
			}
			h := out.Header
			if out.Path != tc.path || h.Get("Content-Type") != tc.ctype || h.Get("Authorization") != tc.auth || h.Get("X-Amz-Target") != tc.target {
				t.Errorf("path %q headers %v", out.Path, h)
			}
			for _, k := range []string{"X-Api-Key", "Anthropic-Version", "Anthropic-Beta", "Accept"} {
				if h.Get(k) != "" {
					t.Errorf("%s still set: %q", k, h.Get(k))
				}
			}
			if tc.header.Get("User-Agent") != "" && h.Get("User-Agent") == "" {
				t.Errorf("unrelated headers must stay")
			}
		})
	}
}

func TestRewriteErrors(t *testing.T) {
	p := testProvider(Config{})
	x := exchange(t, testSettings(), `{"model":"m","max_tokens":10,"messages":[]}`)
	_, err := p.Rewrite(x, &providers.Outbound{Header: http.Header{}})
	if e := wire.AsError(err); err == nil || e.Status != 400 || e.Type != "invalid_request_error" {
		t.Errorf("empty messages: %v", err)
	}
	x = exchange(t, testSettings(), `{"model":"m","messages":[{"role":"user","content":"Q"}]}`)
	x.CountTokens = true
	_, err = p.Rewrite(x, &providers.Outbound{Header: http.Header{}})
	if e := wire.AsError(err); err == nil || e.Status != 404 || e.Type != "not_found_error" {
		t.Errorf("count_tokens: %v", err)
	}
}

func TestIsStream(t *testing.T) {
	for mt, want := range map[string]bool{
		"application/vnd.amazon.eventstream": true,
		"application/x-amz-json-1.0":         true,
		"application/json; charset=utf-8":    true,
		"application/octet-stream":           true,
		"":                                   true,
		"text/html":                          false,
		"text/event-stream":                  false,
	} {
		if got := IsStream(mt); got != want {
			t.Errorf("IsStream(%q) = %v", mt, got)
		}
	}
}

func TestUpstreamError(t *testing.T) {
	cases := []struct {
		name       string
		status     int
		header     http.Header
		body       string
		wantStatus int
		wantType   string
		wantMsg    string
		retry      string
	}{
		{"throttling sent as 400", 400, http.Header{"Retry-After": {"7"}}, `{"__type":"com.amazon.aws.codewhisperer#ThrottlingException","message":"Rate exceeded"}`,
			429, "rate_limit_error", "ThrottlingException: Rate exceeded", "7"},
		{"quota", 402, nil, `{"__type":"ServiceQuotaExceededException","message":"Monthly limit reached"}`,
			429, "rate_limit_error", "ServiceQuotaExceededException: Monthly limit reached", ""},
		{"bad token", 403, nil, `{"message":"The bearer token included in the request is invalid.","reason":null}`,
			403, "permission_error", "The bearer token included in the request is invalid.", ""},
		{"type from header", 400, http.Header{"X-Amzn-Errortype": {"ValidationException:http://internal.amazon.com/coral/"}}, `{"Message":"Improperly formed request."}`,
			400, "invalid_request_error", "ValidationException: Improperly formed request.", ""},
		{"prompt too long", 400, nil, `{"message":"Input is too long.","reason":"CONTENT_LENGTH_EXCEEDS_THRESHOLD"}`,
			400, "invalid_request_error", "prompt is too long: Input is too long. (CONTENT_LENGTH_EXCEEDS_THRESHOLD)", ""},
		{"access denied", 400, nil, `{"__type":"AccessDeniedException","message":"no","reason":"UNAUTHORIZED_CUSTOMIZATION_RESOURCE_ACCESS"}`,
			403, "permission_error", "AccessDeniedException: no (reason: UNAUTHORIZED_CUSTOMIZATION_RESOURCE_ACCESS)", ""},
		{"internal", 500, nil, `{"__type":"InternalServerException","message":"boom"}`,
			500, "api_error", "InternalServerException: boom", ""},
		{"unknown exception keeps the status", 418, nil, `{"__type":"TeapotException","message":"short and stout"}`,
			418, "api_error", "TeapotException: short and stout", ""},
		{"not an AWS body", 502, nil, `<html>bad gateway</html>`,
			502, "api_error", "upstream returned Bad Gateway: <html>bad gateway</html>", ""},
		{"anthropic-shaped body from a gateway", 529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			529, "overloaded_error", "Overloaded", ""},
	}
	tr := NewTranslator(exchange(t, testSettings(), basicRequest))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := tr.Handle(tc.status, tc.header)
			if h.NewStream != nil || h.Body != nil || h.Error == nil || h.UpstreamHeader {
				t.Fatalf("status %d not handled as an error to map: %+v", tc.status, h)
			}
			e := h.Error(tc.status, tc.header, []byte(tc.body))
			if e.Status != tc.wantStatus || e.Type != tc.wantType || e.Message != tc.wantMsg || e.RetryAfter != tc.retry {
				t.Errorf("got %d %s %q retry %q", e.Status, e.Type, e.Message, e.RetryAfter)
			}
		})
	}
}
