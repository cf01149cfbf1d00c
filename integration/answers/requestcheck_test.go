package answers_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// refusal is one request Anthropic's API refuses, and its error message.
type refusal struct {
	name    string
	params  anthropic.MessageNewParams
	opts    []option.RequestOption
	count   bool // sent to /v1/messages/count_tokens
	message string
}

func hi() []anthropic.MessageParam {
	return []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hi"))}
}

func base() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 4096, Messages: hi()}
}

func with(f func(p *anthropic.MessageNewParams)) anthropic.MessageNewParams {
	p := base()
	f(&p)
	return p
}

// toolTurns is a conversation whose last user turn answers a tool call;
// the assistant turn before it calls the tool with id called.
func toolTurns(called, answered string) []anthropic.MessageParam {
	return []anthropic.MessageParam{
		anthropic.NewUserMessage(anthropic.NewTextBlock("List the files.")),
		anthropic.NewAssistantMessage(anthropic.NewToolUseBlock(called, map[string]any{"command": "ls"}, "Bash")),
		anthropic.NewUserMessage(anthropic.NewToolResultBlock(answered, "a.txt", false)),
	}
}

var refusals = []refusal{
	{name: "no model", params: base(), opts: []option.RequestOption{option.WithJSONDel("model")},
		message: "model: Field required"},
	{name: "null model", params: base(), opts: []option.RequestOption{option.WithJSONSet("model", nil)},
		message: "model: Field required"},
	{name: "no max_tokens", params: base(), opts: []option.RequestOption{option.WithJSONDel("max_tokens")},
		message: "max_tokens: Field required"},
	{name: "max_tokens 0", params: with(func(p *anthropic.MessageNewParams) { p.MaxTokens = 0 }),
		message: "max_tokens: Input should be greater than or equal to 1"},
	{name: "max_tokens -1", params: with(func(p *anthropic.MessageNewParams) { p.MaxTokens = -1 }),
		message: "max_tokens: Input should be greater than or equal to 1"},
	{name: "no messages", params: with(func(p *anthropic.MessageNewParams) { p.Messages = []anthropic.MessageParam{} }),
		message: "messages: at least one message is required"},
	{name: "budget equal to max_tokens", params: with(func(p *anthropic.MessageNewParams) {
		p.Thinking = anthropic.ThinkingConfigParamOfEnabled(4096)
	}), message: "`max_tokens` must be greater than `thinking.budget_tokens`"},
	{name: "budget above max_tokens", params: with(func(p *anthropic.MessageNewParams) {
		p.MaxTokens = 2000
		p.Thinking = anthropic.ThinkingConfigParamOfEnabled(3000)
	}), message: "`max_tokens` must be greater than `thinking.budget_tokens`"},
	{name: "budget below 1024", params: with(func(p *anthropic.MessageNewParams) {
		p.Thinking = anthropic.ThinkingConfigParamOfEnabled(1023)
	}), message: "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"},
	{name: "no budget", params: base(), opts: []option.RequestOption{option.WithJSONSet("thinking", map[string]any{"type": "enabled"})},
		message: "thinking.enabled.budget_tokens: Field required"},
	{name: "unknown block type", params: base(),
		opts: []option.RequestOption{option.WithJSONSet("messages.0.content", []any{
			map[string]any{"type": "text", "text": "Hi"},
			map[string]any{"type": "input_text", "text": "Hi"},
		})},
		message: "messages.0.content.1: Input tag 'input_text' found using 'type' does not match any of the expected tags: " +
			"'bash_code_execution_tool_result', 'code_execution_tool_result', 'container_upload', 'document', 'image', " +
			"'mcp_tool_result', 'mcp_tool_use', 'redacted_thinking', 'search_result', 'server_tool_use', 'text', " +
			"'text_editor_code_execution_tool_result', 'thinking', 'tool_reference', 'tool_result', 'tool_search_tool_result', " +
			"'tool_use', 'web_fetch_tool_result', 'web_search_tool_result'"},
	{name: "block without type", params: base(),
		opts:    []option.RequestOption{option.WithJSONSet("messages.0.content", []any{map[string]any{"text": "Hi"}})},
		message: "messages.0.content.0.type: Field required"},
	{name: "tool_result without its tool_use", params: with(func(p *anthropic.MessageNewParams) {
		p.Messages = toolTurns("toolu_01A", "toolu_01B")
	}), message: "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01B. " +
		"Each `tool_result` block must have a corresponding `tool_use` block in the previous message."},
	{name: "tool_result in the first turn", params: with(func(p *anthropic.MessageNewParams) {
		p.Messages = toolTurns("toolu_01A", "toolu_01A")[2:]
	}), message: "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01A. " +
		"Each `tool_result` block must have a corresponding `tool_use` block in the previous message."},
	{name: "count_tokens without model", count: true, params: base(), opts: []option.RequestOption{option.WithJSONDel("model")},
		message: "model: Field required"},
	{name: "count_tokens budget below 1024", count: true, params: with(func(p *anthropic.MessageNewParams) {
		p.Thinking = anthropic.ThinkingConfigParamOfEnabled(512)
	}), message: "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"},
}

// converting are the sites of converting providers; each upstream fails
// the test when it is called.
func converting(t *testing.T) map[string]func(up *testgw.Upstream) string {
	t.Setenv("THINKGATE_TEST_KEY", "upstream-key")
	return map[string]func(up *testgw.Upstream) string{
		"openai": func(up *testgw.Upstream) string {
			return "thinkgate openai {\n\tapi_key {env.THINKGATE_TEST_KEY}\n}\nreverse_proxy " + up.Addr()
		},
		"responses": func(up *testgw.Upstream) string {
			return "thinkgate responses {\n\tapi_key {env.THINKGATE_TEST_KEY}\n}\nreverse_proxy " + up.Addr()
		},
		"gemini": func(up *testgw.Upstream) string {
			return "thinkgate gemini {\n\tapi_key {env.THINKGATE_TEST_KEY}\n\tmodel claude-test gemini-2.5-pro\n}\nreverse_proxy " + up.Addr()
		},
		"amazonq": func(up *testgw.Upstream) string {
			return "thinkgate amazonq {\n\tapi_key {env.THINKGATE_TEST_KEY}\n}\nreverse_proxy " + up.Addr()
		},
	}
}

// TestAnthropicRequestChecks: every converting provider refuses what
// Anthropic refuses, with Anthropic's status, type and words, and the
// upstream is never called.
func TestAnthropicRequestChecks(t *testing.T) {
	for name, site := range converting(t) {
		t.Run(name, func(t *testing.T) {
			up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				t.Errorf("the upstream was called: %s %s", r.Method, r.URL.Path)
				w.WriteHeader(http.StatusTeapot)
			})
			gw := testgw.Start(t, testgw.SlotAnswers, site(up))
			client := gw.Client()
			for _, c := range refusals {
				t.Run(c.name, func(t *testing.T) {
					var err error
					if c.count {
						_, err = client.Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{
							Model: c.params.Model, Messages: c.params.Messages, Thinking: c.params.Thinking,
						}, c.opts...)
					} else {
						_, err = client.Messages.New(context.Background(), c.params, c.opts...)
					}
					var apiErr *anthropic.Error
					if !errors.As(err, &apiErr) {
						t.Fatalf("got %v, want an API error", err)
					}
					want := fmt.Sprintf(`{"type":"error","error":{"type":"invalid_request_error","message":%q}}`, c.message)
					if apiErr.StatusCode != http.StatusBadRequest || apiErr.RawJSON() != want {
						t.Errorf("got %d %s\nwant 400 %s", apiErr.StatusCode, apiErr.RawJSON(), want)
					}
				})
			}
			if n := len(up.Requests()); n != 0 {
				t.Errorf("the upstream received %d requests", n)
			}
		})
	}
}

const chatCompletion = `{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-test","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`

// TestAnthropicRequestChecksPass: what Anthropic takes, a converting
// provider sends on: a tool_result answering the call before it, a budget
// of 1024 below max_tokens, adaptive thinking without a budget, Claude
// Code's block types, a count_tokens request without max_tokens.
func TestAnthropicRequestChecksPass(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(chatCompletion))
	})
	t.Setenv("THINKGATE_TEST_KEY", "upstream-key")
	gw := testgw.Start(t, testgw.SlotAnswers, "thinkgate openai {\n\tapi_key {env.THINKGATE_TEST_KEY}\n}\nreverse_proxy "+up.Addr())
	client := gw.Client()
	accepted := []struct {
		name   string
		params anthropic.MessageNewParams
		opts   []option.RequestOption
	}{
		{"tool_result after its tool_use", with(func(p *anthropic.MessageNewParams) { p.Messages = toolTurns("toolu_01A", "toolu_01A") }), nil},
		{"budget 1024", with(func(p *anthropic.MessageNewParams) {
			p.MaxTokens = 1025
			p.Thinking = anthropic.ThinkingConfigParamOfEnabled(1024)
		}), nil},
		{"adaptive thinking", base(), []option.RequestOption{option.WithJSONSet("thinking", map[string]any{"type": "adaptive"})}},
		{"thinking disabled", base(), []option.RequestOption{option.WithJSONSet("thinking", map[string]any{"type": "disabled"})}},
		{"string content", base(), []option.RequestOption{option.WithJSONSet("messages.0.content", "Hi")}},
	}
	for _, c := range accepted {
		t.Run(c.name, func(t *testing.T) {
			before := len(up.Requests())
			msg, err := client.Messages.New(context.Background(), c.params, c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if len(msg.Content) != 1 || msg.Content[0].Text != "ok" {
				t.Errorf("got %s", msg.RawJSON())
			}
			if got := len(up.Requests()) - before; got != 1 {
				t.Errorf("the upstream received %d requests, want 1", got)
			}
		})
	}
}

// TestAnthropicRequestChecksPassthrough: a passthrough provider leaves the
// checks to Anthropic: the request reaches the upstream as sent, and its
// own answer reaches the client.
func TestAnthropicRequestChecksPassthrough(t *testing.T) {
	const upstreamError = `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"},"request_id":"req_011"}`
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(upstreamError))
	})
	gw := testgw.Start(t, testgw.SlotAnswers, "thinkgate anthropic\nreverse_proxy "+up.Addr())
	const body = `{"model":"claude-test","messages":[{"role":"user","content":"Hi"}]}`
	res, got := gw.PostRead("/v1/messages", body)
	if res.StatusCode != http.StatusBadRequest || got != upstreamError {
		t.Errorf("got %d %s", res.StatusCode, got)
	}
	if sent := string(up.Last(t).Body); sent != body {
		t.Errorf("the upstream received %s, want %s", sent, body)
	}
}
