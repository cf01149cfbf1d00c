package openai

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers/emit"
)

const (
	orThinking  = `The user asks for "A, B, C". Café.`
	orSignature = "ErcBCkgIBhABGAIiQBq+sig=="
	orEncrypted = "gAAAAABoEncryptedReasoning=="
	// orTextDetail and orEncDetail are the details as the gateway keeps
	// them: the JSON without the text.
	orTextDetail = `{"type":"reasoning.text","signature":"` + orSignature + `","format":"anthropic-claude-v1","index":0}`
	orEncDetail  = `{"type":"reasoning.encrypted","data":"` + orEncrypted + `","id":"rs_1","format":"openai-responses-v1","index":1}`
)

// openRouterStream is an answer as OpenRouter streams it: reasoning beside
// reasoning_details (text in pieces, the signature in the last piece), an
// encrypted detail, then the answer and a tool call.
const openRouterStream = `: OPENROUTER PROCESSING

data: {"id":"gen-1","provider":"Anthropic","model":"anthropic/claude-sonnet-4","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"The user asks for ","reasoning_details":[{"type":"reasoning.text","text":"The user asks for ","format":"anthropic-claude-v1","index":0}]},"finish_reason":null}]}

data: {"id":"gen-1","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"\"A, B, C\". Café.","reasoning_details":[{"type":"reasoning.text","text":"\"A, B, C\". Café.","format":"anthropic-claude-v1","index":0}]},"finish_reason":null}]}

data: {"id":"gen-1","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"","reasoning_details":[{"type":"reasoning.text","signature":"` + orSignature + `","format":"anthropic-claude-v1","index":0}]},"finish_reason":null}]}

data: {"id":"gen-1","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning_details":[{"type":"reasoning.encrypted","data":"` + orEncrypted + `","id":"rs_1","format":"openai-responses-v1","index":1}]},"finish_reason":null}]}

data: {"id":"gen-1","choices":[{"index":0,"delta":{"role":"assistant","content":"Checking.","reasoning":"stray"},"finish_reason":null}]}

data: {"id":"gen-1","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"index":0,"id":"toolu_01","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}]}

data: {"id":"gen-1","choices":[],"usage":{"prompt_tokens":40,"completion_tokens":60,"total_tokens":100}}

data: [DONE]

`

func orSigner() *emit.Signer { return emit.NewSigner([]byte(testSigningKey)) }

// TestOpenRouterStream: reasoning.text pieces become one thinking block
// whose signature wraps the detail; reasoning.encrypted a redacted_thinking
// block wrapping its detail; the plain reasoning field adds nothing. The
// same events for every split.
func TestOpenRouterStream(t *testing.T) {
	thinkSig := orSigner().Sign(emit.OriginOpenRouter, orTextDetail, orThinking)
	data := orSigner().Sign(emit.OriginOpenRouter, orEncDetail, "")
	want := []string{messageStart,
		"content_block_start 0 " + thinkStart,
		"thinking_delta 0 " + q(orThinking),
		"signature_delta 0 " + q(thinkSig),
		"content_block_stop 0",
		`content_block_start 1 {"type":"redacted_thinking","data":` + q(data) + `}`,
		"content_block_stop 1",
	}
	want = append(want, ssetest.TextBlock(2, "Checking.")...)
	want = append(want, ssetest.ToolBlock(3, "toolu_01", "get_weather", `{"city":"Paris"}`)...)
	want = append(want, "message_delta tool_use null "+ssetest.UsageJSON(40, 60, 0), "message_stop")
	for _, n := range []int{1, 5, 64, 1 << 16} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			x := exchange(t, nil, streamRequest)
			out, err := runStream(t, NewTranslator(x, nil, 0), []byte(openRouterStream), n)
			if err != nil {
				t.Fatal(err)
			}
			got, msg := summary(t, out)
			if n == 1<<16 {
				diff(t, "events", got, want)
			}
			if len(msg.Content) != 4 || msg.Content[0].Thinking != orThinking || msg.Content[0].Signature != thinkSig ||
				msg.Content[1].Type != "redacted_thinking" || msg.Content[1].Data != data {
				t.Errorf("content %+v", msg.Content)
			}
		})
	}
}

// TestOpenRouterStreamBehindToolCall: details that arrive while a tool
// call's arguments are incomplete wait for it, in order, their signatures
// with them.
func TestOpenRouterStreamBehindToolCall(t *testing.T) {
	up := `data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":"}}]}}]}

data: {"choices":[{"delta":{"reasoning_details":[{"type":"reasoning.text","text":"one","signature":"s1","index":0}]}}]}

data: {"choices":[{"delta":{"reasoning_details":[{"type":"reasoning.encrypted","data":"enc","index":1},{"type":"reasoning.summary","summary":"two","index":2}]}}]}

data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]},"finish_reason":"tool_calls"}]}

data: [DONE]

`
	x := exchange(t, nil, streamRequest)
	out, err := runStream(t, NewTranslator(x, nil, 0), []byte(up), 1<<16)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := summary(t, out)
	s := orSigner()
	want := []string{messageStart}
	want = append(want, ssetest.ToolBlock(0, "call_1", "f", `{"a":1}`)...)
	want = append(want,
		"content_block_start 1 "+thinkStart, "thinking_delta 1 "+q("one"),
		"signature_delta 1 "+q(s.Sign(emit.OriginOpenRouter, `{"type":"reasoning.text","signature":"s1","index":0}`, "one")), "content_block_stop 1",
		`content_block_start 2 {"type":"redacted_thinking","data":`+q(s.Sign(emit.OriginOpenRouter, `{"type":"reasoning.encrypted","data":"enc","index":1}`, ""))+`}`,
		"content_block_stop 2",
		"content_block_start 3 "+thinkStart, "thinking_delta 3 "+q("two"),
		"signature_delta 3 "+q(s.Sign(emit.OriginOpenRouter, `{"type":"reasoning.summary","index":2}`, "two")), "content_block_stop 3",
		"message_delta tool_use null "+ssetest.UsageJSON(0, 0, 0), "message_stop")
	diff(t, "events", got, want)
}

// TestOpenRouterMessage: a whole message's details become the same blocks;
// reasoning beside them adds nothing.
func TestOpenRouterMessage(t *testing.T) {
	body := `{"id":"gen-2","provider":"OpenAI","model":"openai/gpt-5","object":"chat.completion","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant",` +
		`"content":"A, B, C.","refusal":null,"reasoning":"**Plan** then answer.","reasoning_details":[` +
		`{"type":"reasoning.summary","summary":"**Plan** then answer.","id":"rs_9","format":"openai-responses-v1","index":0},` +
		`{"type":"reasoning.encrypted","data":"gAAAA==","id":"rs_9","format":"openai-responses-v1","index":0}]}}],` +
		`"usage":{"prompt_tokens":11,"completion_tokens":22,"total_tokens":33}}`
	x := exchange(t, nil, nonStreamRequest)
	out, err := NewTranslator(x, nil, 0).Message([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	golden.JSON(t, "messages/openrouter.json", out)
	var m anthropic.Message
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	s := orSigner()
	if len(m.Content) != 3 || m.Content[0].Thinking != "**Plan** then answer." ||
		m.Content[0].Signature != s.Sign(emit.OriginOpenRouter, `{"type":"reasoning.summary","id":"rs_9","format":"openai-responses-v1","index":0}`, "**Plan** then answer.") ||
		m.Content[1].Type != "redacted_thinking" ||
		m.Content[1].Data != s.Sign(emit.OriginOpenRouter, `{"type":"reasoning.encrypted","data":"gAAAA==","id":"rs_9","format":"openai-responses-v1","index":0}`, "") ||
		m.Content[2].Text != "A, B, C." {
		t.Errorf("content %+v", m.Content)
	}
}

// TestOpenRouterTextForm: in the text form a reasoning detail is a text
// block, and an encrypted one, having no text, is dropped.
func TestOpenRouterTextForm(t *testing.T) {
	s := testSettings()
	s.Form = emit.FormText
	out, err := NewTranslator(exchange(t, s, nonStreamRequest), nil, 0).Message([]byte(`{"choices":[{"message":{"content":"a","reasoning_details":[` +
		`{"type":"reasoning.encrypted","data":"x","index":0},{"type":"reasoning.text","text":"t","index":1}]},"finish_reason":"stop"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var m anthropic.Message
	_ = json.Unmarshal(out, &m)
	if len(m.Content) != 2 || m.Content[0].Type != "text" || m.Content[1].Text != "a" {
		t.Errorf("content %s", out)
	}
}

// TestOpenRouterHistory: with reasoning_history openrouter the blocks made
// from details go back as reasoning_details on their assistant message, in
// order, text restored; blocks of other origins, unverifiable or altered
// ones follow the other rules (tags when the hint is on, else dropped).
func TestOpenRouterHistory(t *testing.T) {
	s := orSigner()
	textSig := s.Sign(emit.OriginOpenRouter, orTextDetail, orThinking)
	encData := s.Sign(emit.OriginOpenRouter, orEncDetail, "")
	sumSig := s.Sign(emit.OriginOpenRouter, `{"type":"reasoning.summary","id":"rs_2","index":0}`, "sum")
	blocks := []map[string]any{
		{"type": "thinking", "thinking": orThinking, "signature": textSig},
		{"type": "redacted_thinking", "data": encData},
		{"type": "thinking", "thinking": "own", "signature": s.Sign(emit.OriginTags, "", "own")},
		{"type": "thinking", "thinking": "altered", "signature": textSig},
		{"type": "thinking", "thinking": "gem", "signature": s.Sign(emit.OriginGemini, "c2ln", "gem")},
		{"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
		{"type": "text", "text": "Checking."},
		{"type": "thinking", "thinking": "sum", "signature": sumSig},
		{"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": map[string]any{"city": "Paris"}},
	}
	hist, _ := json.Marshal(blocks)
	req := `{"model":"anthropic/claude-sonnet-4","max_tokens":2000,"thinking":{"type":"enabled","budget_tokens":1024},"tools":[{"name":"get_weather","input_schema":{"type":"object"}}],` +
		`"messages":[{"role":"user","content":"q"},{"role":"assistant","content":` + string(hist) + `},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"sunny"}]}]}`
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"openrouter", Config{ReasoningHistory: HistoryOpenRouter, ThinkingMode: ModeOpenRouter},
			`{"role":"assistant","content":"Checking.","reasoning_details":[` +
				`{"type":"reasoning.text","text":` + q(orThinking) + `,"signature":"` + orSignature + `","format":"anthropic-claude-v1","index":0},` + orEncDetail +
				`,{"type":"reasoning.summary","summary":"sum","id":"rs_2","index":0}],` +
				`"tool_calls":[{"id":"toolu_01","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}`},
		{"openrouter with the hint", Config{ReasoningHistory: HistoryOpenRouter},
			`{"role":"assistant","content":"<thinking>own</thinking><thinking>altered</thinking><thinking>gem</thinking>Checking.","reasoning_details":[` +
				`{"type":"reasoning.text","text":` + q(orThinking) + `,"signature":"` + orSignature + `","format":"anthropic-claude-v1","index":0},` + orEncDetail +
				`,{"type":"reasoning.summary","summary":"sum","id":"rs_2","index":0}],` +
				`"tool_calls":[{"id":"toolu_01","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}`},
		{"not asked for", Config{ThinkingMode: ModeOpenRouter},
			`{"role":"assistant","content":"Checking.",` +
				`"tool_calls":[{"id":"toolu_01","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, _, err := ConvertRequest(exchange(t, nil, req), tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			var sent struct{ Messages []json.RawMessage }
			_ = json.Unmarshal(body, &sent)
			if len(sent.Messages) < 3 || !golden.EqualJSON(t, sent.Messages[len(sent.Messages)-2], []byte(tc.want)) {
				t.Errorf("assistant message %s\nwant %s", sent.Messages[len(sent.Messages)-2], tc.want)
			}
		})
	}
}

func init() { reasoningStreams = append(reasoningStreams, openRouterStream) }

func init() {
	reasoningMessages = append(reasoningMessages,
		`{"choices":[{"message":{"content":"a","reasoning":"r","reasoning_details":[{"type":"reasoning.text","text":"t","signature":"s","index":0},{"type":"reasoning.encrypted","data":"d"}]},"finish_reason":"stop"}]}`)
}
