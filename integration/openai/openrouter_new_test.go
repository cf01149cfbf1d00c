package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/internal/testgw"
)

const (
	orThinking  = `The user asks for "A, B, C". Café 思考.`
	orSignature = "ErcBCkgIBhABGAIiQBq+sig=="
	orEncrypted = "gAAAAABoEncryptedReasoning=="
)

// openRouterStream: reasoning beside reasoning_details (the text in pieces,
// the signature last), an encrypted detail, text, then a tool call.
var openRouterStream = testgw.SSE(
	testgw.Event{Data: `{"id":"gen-1","provider":"Anthropic","model":"anthropic/claude-sonnet-4","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"The user asks for ","reasoning_details":[{"type":"reasoning.text","text":"The user asks for ","format":"anthropic-claude-v1","index":0}]},"finish_reason":null}]}`},
	testgw.Event{Data: `{"id":"gen-1","choices":[{"index":0,"delta":{"content":"","reasoning":"\"A, B, C\". Café 思考.","reasoning_details":[{"type":"reasoning.text","text":"\"A, B, C\". Café 思考.","format":"anthropic-claude-v1","index":0}]},"finish_reason":null}]}`},
	testgw.Event{Data: `{"id":"gen-1","choices":[{"index":0,"delta":{"content":"","reasoning_details":[{"type":"reasoning.text","signature":"` + orSignature + `","format":"anthropic-claude-v1","index":0}]},"finish_reason":null}]}`},
	testgw.Event{Data: `{"id":"gen-1","choices":[{"index":0,"delta":{"content":"","reasoning_details":[{"type":"reasoning.encrypted","data":"` + orEncrypted + `","format":"anthropic-claude-v1","index":1}]},"finish_reason":null}]}`},
	testgw.Event{Data: `{"id":"gen-1","choices":[{"index":0,"delta":{"content":"Checking."},"finish_reason":null}]}`},
	testgw.Event{Data: `{"id":"gen-1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"toolu_01","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}]}`},
	testgw.Event{Data: `{"id":"gen-1","choices":[],"usage":{"prompt_tokens":40,"completion_tokens":60,"total_tokens":100}}`},
	testgw.Event{Data: `[DONE]`},
)

func weatherParams() anthropic.MessageNewParams {
	params := userParams()
	params.MaxTokens = 4000
	params.Thinking = anthropic.ThinkingConfigParamOfEnabled(2500)
	params.Tools = []anthropic.ToolUnionParam{anthropic.ToolUnionParamOfTool(
		anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}}, "get_weather")}
	return params
}

// TestOpenRouterReasoning: through Caddy, OpenRouter's details reach the
// SDK as a signed thinking block and a redacted_thinking block, for every
// split; the request asks for reasoning with max_tokens from the budget;
// the next turn sends the details back on the assistant message, in order,
// exactly as OpenRouter sent them.
func TestOpenRouterReasoning(t *testing.T) {
	for _, n := range []int{1, 17, 4096} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			up := streaming(t, openRouterStream, n)
			gw := testgw.Start(t, testgw.SlotOpenAI, site("\tthinking_mode openrouter\n\treasoning_history openrouter\n\tmodel claude-* anthropic/claude-sonnet-4", up))
			params := weatherParams()
			msg, _ := gw.Stream(params)
			if len(msg.Content) != 4 || msg.Content[0].Thinking != orThinking || msg.Content[0].Signature == "" ||
				msg.Content[1].Type != "redacted_thinking" || msg.Content[1].Data == "" || msg.Content[2].Text != "Checking." ||
				msg.Content[3].Name != "get_weather" || string(msg.Content[3].Input) != `{"city":"Paris"}` || msg.StopReason != "tool_use" {
				t.Fatalf("message %+v", msg)
			}
			var first struct {
				Reasoning json.RawMessage `json:"reasoning"`
			}
			_ = json.Unmarshal(up.Last(t).Body, &first)
			if string(first.Reasoning) != `{"max_tokens":2500}` {
				t.Errorf("reasoning sent %s", first.Reasoning)
			}

			params.Messages = append(params.Messages, msg.ToParam(),
				anthropic.NewUserMessage(anthropic.NewToolResultBlock("toolu_01", "sunny", false)))
			gw.Stream(params)
			var sent struct{ Messages []json.RawMessage }
			_ = json.Unmarshal(up.Last(t).Body, &sent)
			want := `{"role":"assistant","content":"Checking.","reasoning_details":[` +
				`{"type":"reasoning.text","text":` + q(orThinking) + `,"signature":"` + orSignature + `","format":"anthropic-claude-v1","index":0},` +
				`{"type":"reasoning.encrypted","data":"` + orEncrypted + `","format":"anthropic-claude-v1","index":1}],` +
				`"tool_calls":[{"id":"toolu_01","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}`
			if len(sent.Messages) != 3 || !golden.EqualJSON(t, sent.Messages[1], []byte(want)) {
				t.Errorf("history %s\nwant %s", up.Last(t).Body, want)
			}
		})
	}
}

// TestOpenRouterReasoningOtherUpstream: without reasoning_history
// openrouter the details never go back (the blocks are dropped, as thinking
// is without the hint).
func TestOpenRouterReasoningOtherUpstream(t *testing.T) {
	up := streaming(t, openRouterStream, 4096)
	gw := testgw.Start(t, testgw.SlotOpenAI, site("\tthinking_mode effort", up))
	params := weatherParams()
	msg, _ := gw.Stream(params)
	params.Messages = append(params.Messages, msg.ToParam(),
		anthropic.NewUserMessage(anthropic.NewToolResultBlock("toolu_01", "sunny", false)))
	gw.Stream(params)
	var sent struct{ Messages []json.RawMessage }
	_ = json.Unmarshal(up.Last(t).Body, &sent)
	want := `{"role":"assistant","content":"Checking.","tool_calls":[{"id":"toolu_01","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}`
	if len(sent.Messages) != 3 || !golden.EqualJSON(t, sent.Messages[1], []byte(want)) {
		t.Errorf("history %s\nwant %s", up.Last(t).Body, want)
	}
}

// TestOpenRouterNonStreaming: a whole message's details become the same
// blocks; the plain reasoning field beside them adds nothing.
func TestOpenRouterNonStreaming(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"gen-2","provider":"Google","model":"google/gemini-2.5-pro","object":"chat.completion","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant",`+
			`"content":"A, B, C.","reasoning":"plan","reasoning_details":[{"type":"reasoning.text","text":"plan","format":"google-gemini-v1","index":0},`+
			`{"type":"reasoning.encrypted","data":"CiQBsig","format":"google-gemini-v1","index":1}]}}],"usage":{"prompt_tokens":11,"completion_tokens":22,"total_tokens":33}}`)
	})
	gw := testgw.Start(t, testgw.SlotOpenAI, site("\tthinking_mode openrouter", up))
	client := gw.Client()
	msg, err := client.Messages.New(context.Background(), userParams())
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 3 || msg.Content[0].Thinking != "plan" || msg.Content[0].Signature == "" || msg.Content[1].Type != "redacted_thinking" ||
		msg.Content[2].Text != "A, B, C." || msg.Usage.OutputTokens != 22 {
		t.Errorf("message %+v", msg)
	}
	var sent struct {
		Reasoning json.RawMessage `json:"reasoning"`
	}
	_ = json.Unmarshal(up.Last(t).Body, &sent)
	if string(sent.Reasoning) != `{"effort":"medium"}` {
		t.Errorf("reasoning sent %s", sent.Reasoning)
	}
}

// TestOpenRouterCacheControl: through Caddy, the SDK's breakpoints on a
// system text and a user text reach OpenRouter as cache_control on the
// text parts they end (the rest of the message as a plain part or
// string), and OpenRouter's cache counts come back in usage; a plain
// openai upstream gets the same request with no breakpoint.
func TestOpenRouterCacheControl(t *testing.T) {
	params := anthropic.MessageNewParams{
		Model:     "claude-sonnet-4-5",
		MaxTokens: 100,
		System: []anthropic.TextBlockParam{
			{Text: "Long rules.", CacheControl: anthropic.NewCacheControlEphemeralParam()},
			{Text: "Today is Monday."},
		},
		Messages: []anthropic.MessageParam{
			anthropic.NewUserMessage(
				anthropic.ContentBlockParamUnion{OfText: &anthropic.TextBlockParam{Text: "Big file.", CacheControl: anthropic.NewCacheControlEphemeralParam()}},
				anthropic.NewTextBlock("Question?"),
			),
		},
		Thinking: anthropic.ThinkingConfigParamUnion{OfDisabled: &anthropic.ThinkingConfigDisabledParam{}},
	}
	for _, tc := range []struct {
		name, options, want string
	}{
		{"openrouter", "\tthinking_mode openrouter\n\treasoning_history openrouter\n\tmodel claude-* anthropic/claude-sonnet-4.5",
			`{"model":"anthropic/claude-sonnet-4.5","messages":[` +
				`{"role":"system","content":[{"type":"text","text":"Long rules.","cache_control":{"type":"ephemeral"}},{"type":"text","text":"Today is Monday."}]},` +
				`{"role":"user","content":[{"type":"text","text":"Big file.","cache_control":{"type":"ephemeral"}},{"type":"text","text":"Question?"}]}],` +
				`"max_tokens":100}`},
		{"openai", "\tthinking_mode effort\n\tmodel claude-* gpt-4.1",
			`{"model":"gpt-4.1","messages":[` +
				`{"role":"system","content":"Long rules.\nToday is Monday."},` +
				`{"role":"user","content":"Big file.\nQuestion?"}],` +
				`"max_tokens":100}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"id":"gen-3","object":"chat.completion","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Yes."}}],`+
					`"usage":{"prompt_tokens":3000,"completion_tokens":2,"total_tokens":3002,"prompt_tokens_details":{"cached_tokens":2000,"cache_write_tokens":900}}}`)
			})
			gw := testgw.Start(t, testgw.SlotOpenAI, site(tc.options, up))
			client := gw.Client()
			msg, err := client.Messages.New(context.Background(), params)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(up.Last(t).Body); got != tc.want {
				t.Errorf("upstream body\n got %s\nwant %s", got, tc.want)
			}
			if len(msg.Content) != 1 || msg.Content[0].Text != "Yes." || msg.Usage.CacheReadInputTokens != 2000 ||
				msg.Usage.CacheCreationInputTokens != 900 || msg.Usage.InputTokens != 100 {
				t.Errorf("message %s", msg.RawJSON())
			}
		})
	}
}
