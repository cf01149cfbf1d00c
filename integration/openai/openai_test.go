// Package openai_test runs the openai provider through a real Caddy: an
// Anthropic client (the official Go SDK, or raw HTTP where the exact bytes
// matter) in front, an httptest upstream speaking Chat Completions behind.
package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/providers/emit"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/caddymodule"
	"github.com/thinkgate/thinkgate/internal/testgw"
	"github.com/thinkgate/thinkgate/providers/openai/openaitest"
)

const signingKey = "test-signing-key"

func site(options string, up *testgw.Upstream) string {
	return fmt.Sprintf("thinkgate openai {\n\tapi_key sk-upstream\n\tsigning_key %s\n%s\n}\nreverse_proxy %s", signingKey, options, up.Addr())
}

// streaming answers every request with body, written in pieces of n bytes.
func streaming(t *testing.T, body []byte, n int) *testgw.Upstream {
	return testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		testgw.WriteChunks(w, "text/event-stream; charset=utf-8", body, n)
	})
}

func userParams() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     "claude-test",
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What are the first three letters of the alphabet?"))},
	}
}

const streamJSON = `{"model":"claude-test","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`

func sig(thinking string) string {
	return emit.NewSigner([]byte(signingKey)).Sign(emit.OriginTags, "", thinking)
}

func q(s string) string { b, _ := json.Marshal(s); return string(b) }

const (
	seedIntro    = "I need to answer the user's question about the first three letters of the alphabet. "
	seedThinking = "Step 1: Identify the user's core question. Step 2: Recall the sequence of the alphabet. It starts with A, B, C. Step 3: Formulate the final answer."
	seedAnswer   = "The first three letters of the alphabet are A, B, and C."
	seedText     = seedIntro + "<thinking>" + seedThinking + "</thinking>" + seedAnswer
)

func events(t *testing.T, gw *testgw.Gateway, path, body string, headers ...string) (*http.Response, []string) {
	t.Helper()
	res := gw.Post(path, body, headers...)
	defer res.Body.Close()
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("status %d: %s", res.StatusCode, b)
	}
	return res, testgw.Summary(t, testgw.ReadEvents(t, res.Body))
}

// TestClaudeCodeTurn: a request shaped like a real Claude Code turn (three
// cached system blocks, a trailing role:"system" message, a dozen tools one
// deferred and one with a name over 64 characters, adaptive thinking,
// context_management, output_config, metadata.user_id holding JSON,
// ?beta=true) reaches the upstream as exactly the Chat Completions request in
// testdata/claude_code.upstream.json, with the upstream's credentials and
// none of the client's; the answer's tool call comes back under the
// client's tool name.
func TestClaudeCodeTurn(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "claude_code.request.json"))
	if err != nil {
		t.Fatal(err)
	}
	const mcpTool = "mcp__claude_ai_Google_Drive__search_files_in_shared_drive_by_owner_and_date"
	const sentName = "mcp__claude_ai_Google_Drive__search_files_in_shared_dri_96e6f744"
	answer := openaitest.New().Content("<thinking>The test expects an empty rest.</thinking>I'll search the drive.", 4).
		ToolStart(0, "call_Xy12", sentName).ToolArgs(0, `{"query":`).ToolArgs(0, `"parser spec"}`).
		Finish("tool_calls").Usage(5120, 64, 4096).Done().Bytes()
	up := streaming(t, answer, 17)
	t.Setenv("THINKGATE_TEST_OPENAI_KEY", "sk-from-env")
	gw := testgw.Start(t, testgw.SlotOpenAI, fmt.Sprintf("thinkgate openai {\n\tapi_key {env.THINKGATE_TEST_OPENAI_KEY}\n\tsigning_key %s\n}\nreverse_proxy %s", signingKey, up.Addr()))

	_, got := events(t, gw, "/v1/messages?beta=true", string(body),
		"anthropic-beta", "claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27",
		"anthropic-dangerous-direct-browser-access", "true", "x-app", "cli", "Accept-Encoding", "br")

	req := up.Last(t)
	if req.Path != "/v1/chat/completions" || req.RawQuery != "" || req.Method != "POST" {
		t.Errorf("upstream got %s %s?%s", req.Method, req.Path, req.RawQuery)
	}
	if h := req.Header; h.Get("Authorization") != "Bearer sk-from-env" || h.Get("X-Api-Key") != "" ||
		h.Get("Anthropic-Version") != "" || h.Get("Anthropic-Beta") != "" || h.Get("Anthropic-Dangerous-Direct-Browser-Access") != "" ||
		strings.Contains(h.Get("Accept-Encoding"), "br") || h.Get("Content-Type") != "application/json" {
		t.Errorf("upstream headers %v", h)
	}
	goldenJSON(t, "claude_code.upstream.json", req.Body)

	testgw.Diff(t, "events", got, []string{
		"message_start",
		`content_block_start 0 {"type":"thinking","thinking":""}`,
		`thinking_delta 0 "The test expects an empty rest."`,
		`signature_delta 0 ` + q(sig("The test expects an empty rest.")),
		"content_block_stop 0",
		`content_block_start 1 {"type":"text","text":""}`,
		`text_delta 1 "I'll search the drive."`,
		"content_block_stop 1",
		`content_block_start 2 {"type":"tool_use","id":"call_Xy12","name":"` + mcpTool + `","input":{}}`,
		`input_json_delta 2 "{\"query\":\"parser spec\"}"`,
		"content_block_stop 2",
		"message_delta tool_use",
		"message_stop",
	})
}

// goldenJSON compares got with testdata/name as JSON values; UPDATE_GOLDEN=1
// rewrites the file.
func goldenJSON(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		var b bytes.Buffer
		if err := json.Indent(&b, got, "", "  "); err != nil {
			t.Fatalf("not JSON: %v: %s", err, got)
		}
		b.WriteByte('\n')
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file: %v (UPDATE_GOLDEN=1 creates it)", err)
	}
	if !golden.EqualJSON(t, got, want) {
		t.Errorf("upstream body differs from %s.\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestTagsEveryChunkSize: <thinking> tags in the content split into the same
// blocks however the upstream's deltas and bytes are cut, down to one byte,
// and the SDK accumulates the stream.
func TestTagsEveryChunkSize(t *testing.T) {
	for _, runes := range []int{1, 3, 7, 40} {
		for _, n := range []int{1, 5, 64, 4096} {
			t.Run(fmt.Sprintf("runes %d bytes %d", runes, n), func(t *testing.T) {
				up := streaming(t, openaitest.New().Content(seedText, runes).Finish("stop").Usage(21, 87, 0).Done().Bytes(), n)
				gw := testgw.Start(t, testgw.SlotOpenAI, site("", up))
				msg, _ := gw.Stream(userParams())
				if len(msg.Content) != 3 ||
					msg.Content[0].Type != "text" || msg.Content[0].Text != seedIntro ||
					msg.Content[1].Type != "thinking" || msg.Content[1].Thinking != seedThinking || msg.Content[1].Signature != sig(seedThinking) ||
					msg.Content[2].Type != "text" || msg.Content[2].Text != seedAnswer {
					t.Fatalf("content %+v", msg.Content)
				}
				if msg.StopReason != "end_turn" || msg.Model != "claude-test" || !strings.HasPrefix(msg.ID, "msg_") ||
					msg.Usage.InputTokens != 21 || msg.Usage.OutputTokens != 87 {
					t.Errorf("message %s %s %s %+v", msg.ID, msg.Model, msg.StopReason, msg.Usage)
				}
			})
		}
	}
	// The exact event sequence, once.
	up := streaming(t, openaitest.New().Content(seedText, 5).Finish("stop").Done().Bytes(), 3)
	gw := testgw.Start(t, testgw.SlotOpenAI, site("", up))
	_, got := events(t, gw, "/v1/messages", streamJSON)
	testgw.Diff(t, "events", got, []string{
		"message_start",
		`content_block_start 0 {"type":"text","text":""}`,
		"text_delta 0 " + q(seedIntro),
		"content_block_stop 0",
		`content_block_start 1 {"type":"thinking","thinking":""}`,
		"thinking_delta 1 " + q(seedThinking),
		"signature_delta 1 " + q(sig(seedThinking)),
		"content_block_stop 1",
		`content_block_start 2 {"type":"text","text":""}`,
		"text_delta 2 " + q(seedAnswer),
		"content_block_stop 2",
		"message_delta end_turn",
		"message_stop",
	})
}

// TestReasoningFields: DeepSeek's reasoning_content and vLLM's reasoning
// become thinking blocks of their own, signed by the gateway.
func TestReasoningFields(t *testing.T) {
	for _, tc := range []struct {
		name string
		up   *openaitest.Chunks
	}{
		{"reasoning_content", openaitest.New().ReasoningContent("The user wants A, B, C.", 2).Content("A, B, C.", 2)},
		{"reasoning", openaitest.New().Reasoning("The user wants A, B, C.", 2).Content("A, B, C.", 2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := streaming(t, tc.up.Finish("stop").Done().Bytes(), 7)
			gw := testgw.Start(t, testgw.SlotOpenAI, site("", up))
			msg, _ := gw.Stream(userParams())
			if len(msg.Content) != 2 || msg.Content[0].Thinking != "The user wants A, B, C." || msg.Content[0].Signature != sig("The user wants A, B, C.") ||
				msg.Content[1].Text != "A, B, C." {
				t.Errorf("content %+v", msg.Content)
			}
		})
	}
}

// TestToolCallsInterleavedWithText: text, then two calls whose fragments
// interleave by index, come out as a text block and one tool_use block per
// call, never overlapping; the SDK parses each input.
func TestToolCallsInterleavedWithText(t *testing.T) {
	body := openaitest.New().Content("Checking both", 3).
		ToolStart(0, "call_a", "get_weather").ToolStart(1, "call_b", "get_time").
		ToolArgs(0, `{"city":`).ToolArgs(1, `{"tz":`).ToolArgs(0, `"Paris"}`).ToolArgs(1, `"CET"}`).
		Finish("tool_calls").Usage(40, 30, 0).Done().Bytes()
	for _, n := range []int{1, 11, 4096} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			up := streaming(t, body, n)
			gw := testgw.Start(t, testgw.SlotOpenAI, site("", up))
			params := userParams()
			params.Tools = []anthropic.ToolUnionParam{
				anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}}, "get_weather"),
				anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{Properties: map[string]any{"tz": map[string]any{"type": "string"}}}, "get_time"),
			}
			msg, _ := gw.Stream(params)
			if len(msg.Content) != 3 || msg.Content[0].Text != "Checking both" ||
				msg.Content[1].ID != "call_a" || msg.Content[1].Name != "get_weather" || string(msg.Content[1].Input) != `{"city":"Paris"}` ||
				msg.Content[2].ID != "call_b" || msg.Content[2].Name != "get_time" || string(msg.Content[2].Input) != `{"tz":"CET"}` ||
				msg.StopReason != "tool_use" {
				t.Errorf("message %+v", msg)
			}
			var sent struct {
				Tools []struct{ Function struct{ Name string } }
			}
			_ = json.Unmarshal(up.Last(t).Body, &sent)
			if len(sent.Tools) != 2 || sent.Tools[0].Function.Name != "get_weather" {
				t.Errorf("tools sent %s", up.Last(t).Body)
			}
		})
	}
}

// TestUsage: the usage chunk reaches message_delta: input without cache
// reads, output, cache reads.
func TestUsage(t *testing.T) {
	up := streaming(t, openaitest.New().Content("ok", 0).Finish("stop").Usage(1200, 34, 1000).Done().Bytes(), 64)
	gw := testgw.Start(t, testgw.SlotOpenAI, site("", up))
	msg, _ := gw.Stream(userParams())
	if u := msg.Usage; u.InputTokens != 200 || u.OutputTokens != 34 || u.CacheReadInputTokens != 1000 || u.CacheCreationInputTokens != 0 {
		t.Errorf("usage %+v", u)
	}
	res := gw.Post("/v1/messages", streamJSON)
	defer res.Body.Close()
	evs := testgw.ReadEvents(t, res.Body)
	last := evs[len(evs)-2]
	if last.Name != "message_delta" || last.Data != `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":200,"cache_creation_input_tokens":0,"cache_read_input_tokens":1000,"output_tokens":34}}` {
		t.Errorf("message_delta %+v", last)
	}
	if evs[0].Data != `{"type":"message_start","message":{"id":`+q(jsonField(t, evs[0].Data, "message", "id"))+`,"type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}}}` {
		t.Errorf("message_start %s", evs[0].Data)
	}
}

func jsonField(t *testing.T, data string, keys ...string) string {
	var v any
	_ = json.Unmarshal([]byte(data), &v)
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

// TestNonStreaming: a chat.completion becomes a Message with the same
// splitting: thinking from tags and from reasoning_content, tool_use with
// parsed input, the client's model name.
func TestNonStreaming(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"chatcmpl-9","object":"chat.completion","created":1730000000,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant",`+
			`"content":"Intro <thinking>why</thinking>Answer.","reasoning_content":"first","tool_calls":[{"id":"call_9","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\"}"}}]},`+
			`"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":50,"completion_tokens":20,"total_tokens":70,"prompt_tokens_details":{"cached_tokens":10}}}`)
	})
	gw := testgw.Start(t, testgw.SlotOpenAI, site("\tmodel claude-* gpt-4o-mini", up))
	client := gw.Client()
	msg, err := client.Messages.New(context.Background(), userParams())
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 5 || msg.Content[0].Thinking != "first" || msg.Content[1].Text != "Intro " || msg.Content[2].Thinking != "why" ||
		msg.Content[2].Signature != sig("why") || msg.Content[3].Text != "Answer." ||
		msg.Content[4].Name != "get_weather" || string(msg.Content[4].Input) != `{"city":"Rome"}` {
		t.Errorf("content %+v", msg.Content)
	}
	if msg.Model != "claude-test" || msg.StopReason != "tool_use" || msg.Usage.InputTokens != 40 || msg.Usage.CacheReadInputTokens != 10 || msg.Usage.OutputTokens != 20 {
		t.Errorf("message %+v", msg)
	}
	var sent struct {
		Model  string `json:"model"`
		Stream *bool  `json:"stream"`
	}
	_ = json.Unmarshal(up.Last(t).Body, &sent)
	if sent.Model != "gpt-4o-mini" || sent.Stream != nil {
		t.Errorf("upstream request %s", up.Last(t).Body)
	}
}

// TestModelAndThinkingOff: the model is renamed upstream but not for the
// client; thinking disabled sends no hint and drops history thinking.
func TestModelAndThinkingOff(t *testing.T) {
	up := streaming(t, openaitest.New().Content("Hi there", 0).Finish("stop").Done().Bytes(), 64)
	gw := testgw.Start(t, testgw.SlotOpenAI, site("\tmodel claude-* deepseek-chat", up))
	_, got := events(t, gw, "/v1/messages", `{"model":"claude-test","max_tokens":64,"stream":true,"thinking":{"type":"disabled"},"system":"Be kind.",`+
		`"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":[{"type":"thinking","thinking":"greet","signature":"x"},{"type":"text","text":"Hello"}]},{"role":"user","content":"Again"}]}`)
	testgw.Diff(t, "events", got, []string{"message_start", `content_block_start 0 {"type":"text","text":""}`, `text_delta 0 "Hi there"`,
		"content_block_stop 0", "message_delta end_turn", "message_stop"})
	want := `{"model":"deepseek-chat","messages":[{"role":"system","content":"Be kind."},{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"},{"role":"user","content":"Again"}],"max_tokens":64,"stream":true,"stream_options":{"include_usage":true}}`
	if body := up.Last(t).Body; !golden.EqualJSON(t, body, []byte(want)) {
		t.Errorf("upstream body %s\nwant %s", body, want)
	}
	msg, _ := gw.Stream(userParams())
	if msg.Model != "claude-test" {
		t.Errorf("model %q", msg.Model)
	}
}

// TestUpstreamErrors: each OpenAI error status becomes an Anthropic error
// with the matching status and type, before the first byte, for streaming
// and non-streaming requests alike.
func TestUpstreamErrors(t *testing.T) {
	for _, tc := range []struct {
		status     int
		retryAfter string
		body       string
		wantStatus int
		wantBody   string
	}{
		{400, "", `{"error":{"message":"Invalid 'messages[1].content'.","type":"invalid_request_error","param":"messages","code":null}}`,
			400, `{"type":"error","error":{"type":"invalid_request_error","message":"Invalid 'messages[1].content'."}}`},
		{400, "", `{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
			400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: This model's maximum context length is 128000 tokens."}}`},
		{401, "", `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			401, `{"type":"error","error":{"type":"authentication_error","message":"Incorrect API key provided."}}`},
		{403, "", `{"error":{"message":"Country not supported","type":"request_forbidden","code":"unsupported_country_region_territory"}}`,
			403, `{"type":"error","error":{"type":"permission_error","message":"Country not supported"}}`},
		{404, "", `{"error":{"message":"The model 'gpt-9' does not exist","type":"invalid_request_error","code":"model_not_found"}}`,
			404, `{"type":"error","error":{"type":"not_found_error","message":"The model 'gpt-9' does not exist"}}`},
		{413, "", `{"error":{"message":"Request too large","type":"invalid_request_error"}}`,
			413, `{"type":"error","error":{"type":"request_too_large","message":"Request too large"}}`},
		{429, "7", `{"error":{"message":"Rate limit reached for gpt-4o.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
			429, `{"type":"error","error":{"type":"rate_limit_error","message":"Rate limit reached for gpt-4o."}}`},
		{500, "", `{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`,
			500, `{"type":"error","error":{"type":"api_error","message":"The server had an error while processing your request."}}`},
		{502, "", `{"error":{"message":"Upstream provider is overloaded","code":502}}`,
			529, `{"type":"error","error":{"type":"overloaded_error","message":"Upstream provider is overloaded"}}`},
		{503, "30", `{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error"}}`,
			529, `{"type":"error","error":{"type":"overloaded_error","message":"The engine is currently overloaded, please try again later"}}`},
		{503, "", `{"error":{"message":"Service unavailable for maintenance","type":"server_error"}}`,
			503, `{"type":"error","error":{"type":"api_error","message":"Service unavailable for maintenance"}}`},
		{504, "", `upstream timed out`,
			504, `{"type":"error","error":{"type":"timeout_error","message":"upstream returned Gateway Timeout: upstream timed out"}}`},
	} {
		up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
			if tc.retryAfter != "" {
				w.Header().Set("Retry-After", tc.retryAfter)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(tc.status)
			io.WriteString(w, tc.body)
		})
		gw := testgw.Start(t, testgw.SlotOpenAI, site("", up))
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("%d %s stream=%v", tc.status, tc.body[:min(30, len(tc.body))], stream), func(t *testing.T) {
				body := strings.Replace(streamJSON, `"stream":true`, fmt.Sprintf(`"stream":%v`, stream), 1)
				res, got := gw.PostRead("/v1/messages", body)
				if res.StatusCode != tc.wantStatus || got != tc.wantBody || res.Header.Get("Retry-After") != tc.retryAfter ||
					res.Header.Get("Content-Type") != "application/json" {
					t.Errorf("got %d %s retry %q %s\nwant %d %s retry %q", res.StatusCode, got, res.Header.Get("Retry-After"),
						res.Header.Get("Content-Type"), tc.wantStatus, tc.wantBody, tc.retryAfter)
				}
			})
		}
	}
	// The SDK sees the mapped status as a typed error.
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(503)
		io.WriteString(w, `{"error":{"message":"Server overloaded","type":"server_error"}}`)
	})
	gw := testgw.Start(t, testgw.SlotOpenAI, site("", up))
	client := gw.Client()
	_, err := client.Messages.New(context.Background(), userParams())
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 529 || !strings.Contains(apiErr.Error(), "overloaded_error") {
		t.Errorf("SDK error %v", err)
	}
}

// TestStreamFailures: an error chunk, a missing [DONE] and a cut connection
// all end the stream with the open block closed and an error event.
func TestStreamFailures(t *testing.T) {
	partial := openaitest.New().Content("Hello <thinking>half", 2).Bytes()
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"error chunk", func(w http.ResponseWriter, r *http.Request) {
			testgw.WriteChunks(w, "text/event-stream", append(bytes.Clone(partial),
				`data: {"error":{"message":"The server is overloaded","type":"server_error","param":null,"code":null}}`+"\n\n"...), 9)
		}, `error {"type":"overloaded_error","message":"The server is overloaded"}`},
		{"missing [DONE]", func(w http.ResponseWriter, r *http.Request) {
			testgw.WriteChunks(w, "text/event-stream", openaitest.New().Content("Hello <thinking>half", 2).Finish("stop").Bytes(), 9)
		}, `error {"type":"api_error","message":"upstream stream ended without [DONE]: the response is incomplete"}`},
		{"cut connection", func(w http.ResponseWriter, r *http.Request) {
			testgw.WriteChunks(w, "text/event-stream", partial, 9)
			time.Sleep(50 * time.Millisecond)
			panic(http.ErrAbortHandler) // the server drops the connection mid-body
		}, `error {"type":"api_error","message":"upstream connection lost mid-stream"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := testgw.NewUpstream(t, tc.handler)
			gw := testgw.Start(t, testgw.SlotOpenAI, site("", up))
			_, got := events(t, gw, "/v1/messages", streamJSON)
			testgw.Diff(t, "events", got, []string{
				"message_start",
				`content_block_start 0 {"type":"text","text":""}`,
				`text_delta 0 "Hello "`,
				"content_block_stop 0",
				`content_block_start 1 {"type":"thinking","thinking":""}`,
				`thinking_delta 1 "half"`,
				"signature_delta 1 " + q(sig("half")),
				"content_block_stop 1",
				tc.want,
			})
			// The SDK reports the error event as an error.
			client := gw.Client()
			stream := client.Messages.NewStreaming(context.Background(), userParams())
			for stream.Next() {
			}
			if err := stream.Err(); err == nil {
				t.Error("SDK stream ended without an error")
			}
			stream.Close()
		})
	}
}

// TestKeepalive: message_start goes out at once, so pings can follow while
// a reasoning model is silent.
func TestKeepalive(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		http.NewResponseController(w).Flush()
		time.Sleep(350 * time.Millisecond)
		w.Write(openaitest.New().Content("done", 0).Finish("stop").Done().Bytes())
	})
	gw := testgw.Start(t, testgw.SlotOpenAI, site("\tkeepalive 100ms", up))
	_, got := events(t, gw, "/v1/messages", streamJSON)
	if len(got) < 3 || got[0] != "message_start" || got[1] != "ping" || got[len(got)-1] != "message_stop" {
		t.Errorf("events %v", got)
	}
}

// TestCountTokens: Chat Completions has no counting endpoint; the gateway
// counts the request as it would be sent (the thinking hint's system
// message, 28 tokens with its framing, the user's "Hi", 5, and 3 priming
// the reply) and calls no upstream. integration/tokens checks the
// count against the OpenAI API's.
func TestCountTokens(t *testing.T) {
	up := streaming(t, nil, 1)
	gw := testgw.Start(t, testgw.SlotOpenAI, site("", up))
	res, body := gw.PostRead("/v1/messages/count_tokens?beta=true", `{"model":"claude-test","messages":[{"role":"user","content":"Hi"}]}`)
	if res.StatusCode != 200 || body != `{"input_tokens":36}` || res.Header.Get("Content-Type") != "application/json" {
		t.Errorf("got %d %s", res.StatusCode, body)
	}
	if n := len(up.Requests()); n != 0 {
		t.Errorf("the upstream got %d requests", n)
	}
}

// TestProviderOptions: path (with a query), reasoning_history,
// max_tokens_field and split_tags off, through the Caddyfile.
func TestProviderOptions(t *testing.T) {
	up := streaming(t, openaitest.New().Content("<thinking>kept</thinking>", 0).Finish("stop").Done().Bytes(), 64)
	gw := testgw.Start(t, testgw.SlotOpenAI, site("\tpath /api/v1/chat/completions?api-version=2024-10-21\n\treasoning_history reasoning_content\n"+
		"\tmax_tokens_field max_completion_tokens\n\tsplit_tags off", up))
	_, got := events(t, gw, "/v1/messages", `{"model":"claude-test","max_tokens":99,"stream":true,"messages":[{"role":"user","content":"Hi"},`+
		`{"role":"assistant","content":[{"type":"thinking","thinking":"plan","signature":"s"},{"type":"tool_use","id":"toolu_1","name":"ls","input":{}}]},`+
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.go"}]}]}`)
	testgw.Diff(t, "events", got, []string{"message_start", `content_block_start 0 {"type":"text","text":""}`,
		`text_delta 0 "<thinking>kept</thinking>"`, "content_block_stop 0", "message_delta end_turn", "message_stop"})
	req := up.Last(t)
	if req.Path != "/api/v1/chat/completions" || req.RawQuery != "api-version=2024-10-21" {
		t.Errorf("upstream target %s?%s", req.Path, req.RawQuery)
	}
	want := `{"model":"claude-test","messages":[{"role":"system","content":"<thinking_mode>interleaved</thinking_mode><max_thinking_length>16000</max_thinking_length>"},` +
		`{"role":"user","content":"Hi"},{"role":"assistant","content":null,"reasoning_content":"plan","tool_calls":[{"id":"toolu_1","type":"function","function":{"name":"ls","arguments":"{}"}}]},` +
		`{"role":"tool","content":"a.go","tool_call_id":"toolu_1"}],"max_completion_tokens":99,"stream":true,"stream_options":{"include_usage":true}}`
	if !golden.EqualJSON(t, req.Body, []byte(want)) {
		t.Errorf("upstream body %s\nwant %s", req.Body, want)
	}
}

// TestCaddyfile: the provider's options parse into the JSON config, and bad
// or unknown ones are rejected with a message that names them.
func TestCaddyfile(t *testing.T) {
	var h caddymodule.Handler
	d := caddyfile.NewTestDispenser(`thinkgate openai {
		api_key {env.OPENAI_API_KEY}
		path /v1/chat/completions
		reasoning_history reasoning_content
		max_tokens_field max_completion_tokens
		model claude-* gpt-4o
	}`)
	if err := h.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	want := `{"api_key":"{env.OPENAI_API_KEY}","max_tokens_field":"max_completion_tokens","name":"openai","path":"/v1/chat/completions","reasoning_history":"reasoning_content"}`
	if !golden.EqualJSON(t, h.ProviderRaw, []byte(want)) {
		t.Errorf("provider JSON %s", h.ProviderRaw)
	}
	for cfg, wantErr := range map[string]string{
		"thinkgate openai {\n\tfoo bar\n}":                     "thinkgate openai: unknown option 'foo'",
		"thinkgate openai {\n\treasoning_history tags\n}":      `reasoning_history: must be content, reasoning_content, openrouter or mistral, got "tags"`,
		"thinkgate openai {\n\tpath v1/chat\n}":                `path: must start with /, got "v1/chat"`,
		"thinkgate openai {\n\tmax_tokens_field tokens\n}":     `max_tokens_field: must be max_tokens or max_completion_tokens, got "tokens"`,
		"thinkgate openai {\n\tapi_key\n}":                     "wrong argument count",
		"thinkgate openai {\n\treasoning_history content x\n}": "wrong argument count",
	} {
		var h caddymodule.Handler
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(cfg))
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%q: error %v, want %q", cfg, err, wantErr)
		}
	}
	// A real load fails the same way.
	p := testgw.PortsFor(testgw.SlotOpenAI)
	msg := testgw.LoadError(t, testgw.SlotOpenAI, testgw.Preamble(p)+fmt.Sprintf("\nhttp://localhost:%d {\n\tthinkgate openai {\n\t\tbogus 1\n\t}\n\treverse_proxy localhost:1\n}\n", p.HTTP))
	if !strings.Contains(msg, "thinkgate openai: unknown option 'bogus'") {
		t.Errorf("load error %q", msg)
	}
}
