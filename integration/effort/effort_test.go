package effort_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/eventstreamtest"
	"github.com/thinkgate/thinkgate/internal/googletest"
	"github.com/thinkgate/thinkgate/internal/testgw"
	"github.com/thinkgate/thinkgate/providers/openai/openaitest"
	rt "github.com/thinkgate/thinkgate/providers/responses/responsestest"
)

// What the test model thinks and answers: JSON held to the schema.
const (
	question = "Where is the Eiffel Tower?"
	thought  = "The tower stands in Paris."
	answer   = `{"city":"Paris"}`
)

// schema is the structured output's schema as the SDK sends it (keys
// sorted: the SDK encodes a map).
const schema = `{"additionalProperties":false,"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}`

// params is the client's request: adaptive thinking shown "omitted",
// effort max, and a JSON schema format.
func params() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     "claude-sonnet-4-5",
		MaxTokens: 1000,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(question))},
		Thinking: anthropic.ThinkingConfigParamUnion{OfAdaptive: &anthropic.ThinkingConfigAdaptiveParam{
			Display: anthropic.ThinkingConfigAdaptiveDisplayOmitted}},
		OutputConfig: anthropic.OutputConfigParam{
			Effort: anthropic.OutputConfigEffortMax,
			Format: anthropic.JSONOutputFormatParam{Schema: map[string]any{
				"type":                 "object",
				"properties":           map[string]any{"city": map[string]any{"type": "string"}},
				"required":             []string{"city"},
				"additionalProperties": false,
			}},
		},
	}
}

func q(s string) string { b, _ := json.Marshal(s); return string(b) }

type provider struct {
	name string
	site func(up *testgw.Upstream) string
	// path is where the Messages call must arrive (a prefix).
	path string
	// answer writes the upstream's answer, streamed or whole: the
	// thought, then answer.
	answer func(w http.ResponseWriter, stream bool)
	// body is the exact upstream body of a streaming request; a whole one
	// has no stream fields.
	body string
}

func sse(w http.ResponseWriter, b []byte) { testgw.WriteChunks(w, "text/event-stream", b, 97) }

func geminiAnswer(w http.ResponseWriter, stream bool) {
	resp := fmt.Sprintf(`{"candidates":[{"content":{"role":"model","parts":[{"text":%s,"thought":true},{"text":%s,"thoughtSignature":"gemini-sig"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":30,"candidatesTokenCount":20,"totalTokenCount":50}}`, q(thought), q(answer))
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(resp))
		return
	}
	sse(w, []byte("data: "+resp+"\r\n\r\n"))
}

const novaModel = "us.amazon.nova-2-lite-v1:0"

func converseFrame(typ string, fields map[string]any) []byte {
	payload, _ := json.Marshal(fields)
	return eventstreamtest.Event(typ, payload)
}

func converseAnswer(w http.ResponseWriter, stream bool) {
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"output":{"message":{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":%s,"signature":"nova-sig"}}},{"text":%s}]}},"stopReason":"end_turn","usage":{"inputTokens":30,"outputTokens":20,"totalTokens":50}}`, q(thought), q(answer))
		return
	}
	d := func(i int, v map[string]any) []byte {
		return converseFrame("contentBlockDelta", map[string]any{"contentBlockIndex": i, "delta": v})
	}
	frames := [][]byte{
		converseFrame("messageStart", map[string]any{"role": "assistant"}),
		d(0, map[string]any{"reasoningContent": map[string]any{"text": thought}}),
		d(0, map[string]any{"reasoningContent": map[string]any{"signature": "nova-sig"}}),
		converseFrame("contentBlockStop", map[string]any{"contentBlockIndex": 0}),
		d(1, map[string]any{"text": answer}),
		converseFrame("contentBlockStop", map[string]any{"contentBlockIndex": 1}),
		converseFrame("messageStop", map[string]any{"stopReason": "end_turn"}),
		converseFrame("metadata", map[string]any{"usage": map[string]any{"inputTokens": 30, "outputTokens": 20, "totalTokens": 50}}),
	}
	testgw.WriteChunks(w, testgw.BedrockEventStreamType, bytes.Join(frames, nil), 97)
}

func providers(t *testing.T) []provider {
	t.Setenv("THINKGATE_UPSTREAM_KEY", "upstream-key")
	t.Setenv("THINKGATE_BEDROCK_KEY", testgw.BedrockAPIKey)
	googleKey := googletest.NewTokenServer(t).WriteKeyFile(t)
	const geminiBody = `{"contents":[{"role":"user","parts":[{"text":"Where is the Eiffel Tower?"}]}],` +
		`"generationConfig":{"maxOutputTokens":1000,"thinkingConfig":{"includeThoughts":false,"thinkingBudget":24576},` +
		`"responseMimeType":"application/json","responseJsonSchema":` + schema + `}}`
	return []provider{
		{
			name: "openai",
			site: func(up *testgw.Upstream) string {
				return "thinkgate openai {\n\tapi_key {env.THINKGATE_UPSTREAM_KEY}\n\tthinking_mode effort\n\tmodel claude-* o4-mini\n}\nreverse_proxy " + up.Addr()
			},
			path: "/v1/chat/completions",
			answer: func(w http.ResponseWriter, stream bool) {
				if !stream {
					w.Header().Set("Content-Type", "application/json")
					_, _ = fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"o4-mini","choices":[{"index":0,"message":{"role":"assistant","reasoning_content":%s,"content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":30,"completion_tokens":20,"total_tokens":50}}`, q(thought), q(answer))
					return
				}
				sse(w, openaitest.New().ReasoningContent(thought, 9).Content(answer, 5).Finish("stop").Usage(30, 20, 0).Done().Bytes())
			},
			body: `{"model":"o4-mini","messages":[{"role":"user","content":"Where is the Eiffel Tower?"}],"max_tokens":1000,` +
				`"reasoning_effort":"high","response_format":{"type":"json_schema","json_schema":{"name":"structured_output","schema":` + schema + `,"strict":true}},` +
				`"stream":true,"stream_options":{"include_usage":true}}`,
		},
		{
			name: "responses",
			site: func(up *testgw.Upstream) string {
				return "thinkgate responses {\n\tapi_key {env.THINKGATE_UPSTREAM_KEY}\n\tmodel claude-* gpt-5\n}\nreverse_proxy " + up.Addr()
			},
			path: "/v1/responses",
			answer: func(w http.ResponseWriter, stream bool) {
				b := rt.New("resp_1", "gpt-5").Reasoning("rs_1", "enc-reasoning", []string{thought}, 9).Message("msg_1", answer, 5)
				if !stream {
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write(b.Response("completed", rt.Usage(30, 0, 20, 5)))
					return
				}
				sse(w, b.Completed(rt.Usage(30, 0, 20, 5)).Bytes())
			},
			body: `{"model":"gpt-5","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Where is the Eiffel Tower?"}]}],` +
				`"max_output_tokens":1000,"reasoning":{"effort":"high","summary":"auto"},"include":["reasoning.encrypted_content"],` +
				`"text":{"format":{"type":"json_schema","name":"structured_output","schema":` + schema + `,"strict":true}},"store":false,"stream":true}`,
		},
		{
			name: "gemini",
			site: func(up *testgw.Upstream) string {
				return "thinkgate gemini {\n\tapi_key {env.THINKGATE_UPSTREAM_KEY}\n\tmodel claude-* gemini-2.5-flash\n}\nreverse_proxy " + up.Addr()
			},
			path:   "/v1beta/models/gemini-2.5-flash:",
			answer: geminiAnswer,
			body:   geminiBody,
		},
		{
			name: "vertex",
			site: func(up *testgw.Upstream) string {
				return "thinkgate vertex {\n\tproject my-project\n\tlocation us-east5\n\tcredentials_file " + googleKey +
					"\n\tmodel claude-* gemini-3-pro-preview\n}\nreverse_proxy " + up.Addr()
			},
			path:   "/v1/projects/my-project/locations/us-east5/publishers/google/models/gemini-3-pro-preview:",
			answer: geminiAnswer,
			body: `{"contents":[{"role":"user","parts":[{"text":"Where is the Eiffel Tower?"}]}],` +
				`"generationConfig":{"maxOutputTokens":1000,"thinkingConfig":{"includeThoughts":false,"thinkingLevel":"high"},` +
				`"responseMimeType":"application/json","responseJsonSchema":` + schema + `}}`,
		},
		{
			name: "bedrock",
			site: func(up *testgw.Upstream) string {
				return "thinkgate bedrock {\n\tregion us-east-1\n\tapi_key {env.THINKGATE_BEDROCK_KEY}\n\tmodel claude-* " + novaModel + "\n}\nreverse_proxy " + up.Addr()
			},
			path:   "/model/",
			answer: converseAnswer,
			body: `{"messages":[{"role":"user","content":[{"text":"Where is the Eiffel Tower?"}]}],` +
				`"additionalModelRequestFields":{"reasoningConfig":{"maxReasoningEffort":"high","type":"enabled"}},` +
				`"outputConfig":{"textFormat":{"type":"json_schema","structure":{"jsonSchema":{"schema":` + q(schema) + `,"name":"structured_output"}}}}}`,
		},
	}
}

// TestOutputConfigThroughCaddy: the SDK's effort max, JSON schema format
// and display "omitted" reach each translated upstream as its own fields
// (the exact body), and the client gets the JSON answer after a thinking
// block with empty thinking and the gateway's signature, streamed and
// whole alike.
func TestOutputConfigThroughCaddy(t *testing.T) {
	for _, p := range providers(t) {
		t.Run(p.name, func(t *testing.T) {
			up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				if !strings.HasPrefix(r.URL.Path, p.path) {
					t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
					http.NotFound(w, r)
					return
				}
				body, _ := io.ReadAll(r.Body)
				p.answer(w, strings.Contains(r.URL.Path, "stream") || bytes.Contains(body, []byte(`"stream":true`)))
			})
			g := testgw.Start(t, testgw.SlotEffort, p.site(up))
			check := func(mode string, msg *anthropic.Message) {
				t.Helper()
				want := p.body
				if mode == "whole" {
					want = strings.Replace(want, `,"stream":true,"stream_options":{"include_usage":true}`, "", 1)
					want = strings.Replace(want, `,"stream":true`, "", 1)
				}
				if got := string(up.Last(t).Body); got != want {
					t.Errorf("%s: upstream body:\n%s\nwant:\n%s", mode, got, want)
				}
				if len(msg.Content) != 2 || msg.Content[0].Type != "thinking" || msg.Content[0].Thinking != "" ||
					!strings.HasPrefix(msg.Content[0].Signature, "tg1") || msg.Content[1].Type != "text" || msg.Content[1].Text != answer {
					raw, _ := json.Marshal(msg.Content)
					t.Errorf("%s: content %s; want a thinking block with empty thinking and the gateway's signature, then %s", mode, raw, answer)
				}
			}
			msg, _ := g.Stream(params())
			check("stream", &msg)
			client := g.Client()
			whole, err := client.Messages.New(context.Background(), params())
			if err != nil {
				t.Fatal(err)
			}
			check("whole", whole)
		})
	}
}

// TestStructuredOutputRefused: Amazon Q cannot hold its answer to a schema,
// so the format is refused with a 400 naming the provider, and the
// upstream is never called.
func TestStructuredOutputRefused(t *testing.T) {
	t.Setenv("THINKGATE_UPSTREAM_KEY", "upstream-key")
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the upstream was called: %s %s", r.Method, r.URL.Path)
	})
	g := testgw.Start(t, testgw.SlotEffort, "thinkgate amazonq {\n\tapi_key {env.THINKGATE_UPSTREAM_KEY}\n}\nreverse_proxy "+up.Addr())
	client := g.Client()
	_, err := client.Messages.New(context.Background(), params())
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("error %v, want an API error", err)
	}
	const want = `{"type":"error","error":{"type":"invalid_request_error","message":"output_config.format: structured outputs are not supported by the amazonq provider"}}`
	if apiErr.StatusCode != http.StatusBadRequest || apiErr.RawJSON() != want {
		t.Errorf("got %d %s\nwant 400 %s", apiErr.StatusCode, apiErr.RawJSON(), want)
	}
}
