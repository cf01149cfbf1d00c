// Package gemini_test runs the gemini provider through a real Caddy against a
// mock Gemini API that checks requests the way Gemini does (path, key,
// alt=sse, turn shape, Gemini 3's thoughtSignature rule) and answers in
// Gemini's real wire format, split into small writes.
package gemini_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/internal/ssetest"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

const geminiKey = "AIzaSy-test-gemini-key"

// sse encodes GenerateContentResponse chunks as Gemini's alt=sse stream does,
// each event ending in CRLF CRLF.
func sse(chunks ...string) []byte {
	var b bytes.Buffer
	for _, c := range chunks {
		b.WriteString("data: " + c + "\r\n\r\n")
	}
	return b.Bytes()
}

func usage(prompt, candidates, thoughts, cached int) string {
	return fmt.Sprintf(`"usageMetadata": {"promptTokenCount": %d,"candidatesTokenCount": %d,"thoughtsTokenCount": %d,"cachedContentTokenCount": %d,"totalTokenCount": %d}`,
		prompt, candidates, thoughts, cached, prompt+candidates+thoughts)
}

// chunk is one GenerateContentResponse: parts, an optional finishReason and
// an optional usageMetadata (as written by usage).
func chunk(parts, finish, usageMeta string) string {
	c := `{"candidates": [{"content": {"parts": [` + parts + `],"role": "model"}`
	if finish != "" {
		c += `,"finishReason": "` + finish + `"`
	}
	c += `,"index": 0}]`
	if usageMeta != "" {
		c += "," + usageMeta
	}
	return c + `,"modelVersion": "gemini-2.5-flash","responseId": "mAeQaL2oFsK"}`
}

const (
	thoughtSig = "CiQB0e2Kb8VGhvdWdodFNpZ0Zyb21HZW1pbmk="
	callSig    = "CiQB0e2Kb8RnVuY3Rpb25DYWxsU2lnRnJvbUdlbWluaQ=="
)

// thinkingStream: thoughts, their signature on an empty part, then the answer.
var thinkingStream = sse(
	chunk(`{"text": "**Recalling the alphabet**\n\nThe user wants the \"first\" three letters.","thought": true}`, "", usage(14, 0, 20, 0)),
	chunk(`{"text": " Café — A, B, C. 思考。","thought": true}`, "", usage(14, 0, 31, 0)),
	chunk(`{"text": "","thoughtSignature": "`+thoughtSig+`"},{"text": "The first three letters"}`, "", usage(14, 4, 31, 0)),
	chunk(`{"text": " are A, B, and C. 😀"}`, "STOP", usage(1014, 12, 31, 1000)),
)

const (
	thinkingText = "**Recalling the alphabet**\n\nThe user wants the \"first\" three letters. Café — A, B, C. 思考。"
	answerText   = "The first three letters are A, B, and C. 😀"
)

// toolStream: a thought, then a function call carrying its signature.
var toolStream = sse(
	chunk(`{"text": "I need the weather for Paris.","thought": true}`, "", usage(40, 0, 9, 0)),
	chunk(`{"text": " Use the tool.","thought": true,"thoughtSignature": "`+thoughtSig+`"}`, "", usage(40, 0, 12, 0)),
	chunk(`{"functionCall": {"name": "get_weather","args": {"city": "Paris","unit": "celsius"}},"thoughtSignature": "`+callSig+`"}`, "STOP", usage(40, 8, 12, 0)),
)

var targetRE = regexp.MustCompile(`^/(v1beta|v1)/models/([A-Za-z0-9._-]+):(streamGenerateContent|generateContent|countTokens)$`)

// mockGemini is a Gemini API endpoint. It refuses what Gemini refuses (bad
// key, bad path, missing alt=sse, malformed turns, a Gemini 3 function call
// without its thoughtSignature) with Gemini's error bodies, and otherwise
// answers with reply.
func mockGemini(t *testing.T, reply func(w http.ResponseWriter, r *http.Request)) *testgw.Upstream {
	return testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		fail := func(status int, gstatus, msg string) {
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error": {"code": %d, "message": %q, "status": %q}}`, status, msg, gstatus)
		}
		for k := range r.Header {
			if k == "X-Api-Key" || k == "Authorization" || strings.HasPrefix(k, "Anthropic-") {
				fail(500, "INTERNAL", "test mock: the client's header "+k+" reached Gemini")
				return
			}
		}
		if r.Header.Get("X-Goog-Api-Key") != geminiKey {
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			w.WriteHeader(400)
			_, _ = io.WriteString(w, `{"error": {"code": 400,"message": "API key not valid. Please pass a valid API key.","status": "INVALID_ARGUMENT","details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo","reason": "API_KEY_INVALID","domain": "googleapis.com"}]}}`)
			return
		}
		m := targetRE.FindStringSubmatch(r.URL.Path)
		if r.Method != "POST" || m == nil {
			fail(404, "NOT_FOUND", "test mock: no such method "+r.Method+" "+r.URL.Path)
			return
		}
		if (m[3] == "streamGenerateContent") != (r.URL.RawQuery == "alt=sse") {
			fail(400, "INVALID_ARGUMENT", "test mock: query "+r.URL.RawQuery+" for "+m[3])
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Contents               []geminiContent `json:"contents"`
			GenerateContentRequest *struct {
				Model    string          `json:"model"`
				Contents []geminiContent `json:"contents"`
			} `json:"generateContentRequest"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			fail(400, "INVALID_ARGUMENT", "Invalid JSON payload received. "+err.Error())
			return
		}
		if g := req.GenerateContentRequest; g != nil {
			if g.Model != "models/"+m[2] {
				fail(400, "INVALID_ARGUMENT", "test mock: generateContentRequest.model "+g.Model)
				return
			}
			req.Contents = g.Contents
		}
		if msg := checkContents(req.Contents, strings.HasPrefix(m[2], "gemini-3")); msg != "" {
			fail(400, "INVALID_ARGUMENT", msg)
			return
		}
		reply(w, r)
	})
}

type geminiContent struct {
	Role  string `json:"role"`
	Parts []struct {
		Text             *string         `json:"text"`
		FunctionCall     json.RawMessage `json:"functionCall"`
		FunctionResponse json.RawMessage `json:"functionResponse"`
		ThoughtSignature string          `json:"thoughtSignature"`
	} `json:"parts"`
}

// checkContents applies Gemini's rules on turns: roles user/model, no empty
// turns or empty text, as many function responses as the previous turn's
// calls, and (Gemini 3) a signature on each model turn's first call.
func checkContents(contents []geminiContent, gemini3 bool) string {
	if len(contents) == 0 {
		return "* GenerateContentRequest.contents: contents is not specified"
	}
	calls := 0
	for i, c := range contents {
		if c.Role != "user" && c.Role != "model" {
			return fmt.Sprintf("contents[%d].role %q", i, c.Role)
		}
		if len(c.Parts) == 0 {
			return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts: contents.parts must not be empty.", i)
		}
		responses, first := 0, true
		for j, p := range c.Parts {
			if p.Text != nil && *p.Text == "" && p.ThoughtSignature == "" {
				return fmt.Sprintf("contents[%d].parts[%d]: empty text", i, j)
			}
			if p.FunctionResponse != nil {
				responses++
			}
			if p.FunctionCall != nil {
				if first && gemini3 && p.ThoughtSignature == "" {
					return fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:x` , position %d.", j+1)
				}
				first = false
			}
		}
		if responses > 0 && responses != calls {
			return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
		}
		calls = 0
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				calls++
			}
		}
	}
	return ""
}

// streaming answers with body in writes of n bytes.
func streaming(body []byte, n int) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		testgw.WriteChunks(w, "text/event-stream", body, n)
	}
}

func jsonReply(body string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		_, _ = io.WriteString(w, body)
	}
}

func site(opts string, up *testgw.Upstream) string {
	// opts first: model rules match in order, the test's before the default.
	return fmt.Sprintf("thinkgate gemini {\n\tsigning_key test-signing-key\n\tapi_key %s\n%s\n\tmodel claude-* gemini-2.5-flash\n}\nreverse_proxy %s", geminiKey, opts, up.Addr())
}

func userParams(model, text string) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     anthropic.Model(model),
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(text))},
	}
}

// TestStream: thoughts become a signed thinking block and the answer a text
// block, for every split of Gemini's bytes; the SDK accumulates each stream,
// the event sequence is exact, and Gemini got the request it should.
func TestStream(t *testing.T) {
	for _, n := range []int{1, 3, 17, 4096} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			up := mockGemini(t, streaming(thinkingStream, n))
			gw := testgw.Start(t, testgw.SlotGemini, site("", up))
			msg, _ := gw.Stream(userParams("claude-sonnet-4-5", "What are the first three letters of the alphabet?"))
			if len(msg.Content) != 2 {
				t.Fatalf("content: %+v", msg.Content)
			}
			if b := msg.Content[0]; b.Type != "thinking" || b.Thinking != thinkingText || !strings.HasPrefix(b.Signature, "tg1g.") {
				t.Errorf("block 0: %s %q sig %q", b.Type, b.Thinking, b.Signature)
			}
			if b := msg.Content[1]; b.Type != "text" || b.Text != answerText {
				t.Errorf("block 1: %s %q", b.Type, b.Text)
			}
			if msg.StopReason != "end_turn" || msg.Model != "claude-sonnet-4-5" || !strings.HasPrefix(msg.ID, "msg_") {
				t.Errorf("message: stop %q model %q id %q", msg.StopReason, msg.Model, msg.ID)
			}
			if u := msg.Usage; u.InputTokens != 14 || u.OutputTokens != 43 || u.CacheReadInputTokens != 1000 || u.CacheCreationInputTokens != 0 {
				t.Errorf("usage %+v", u)
			}
			last := up.Last(t)
			if last.Path != "/v1beta/models/gemini-2.5-flash:streamGenerateContent" || last.RawQuery != "alt=sse" {
				t.Errorf("upstream target %s?%s", last.Path, last.RawQuery)
			}
			want := `{"contents":[{"role":"user","parts":[{"text":"What are the first three letters of the alphabet?"}]}],"generationConfig":{"maxOutputTokens":1024,"thinkingConfig":{"includeThoughts":true,"thinkingBudget":1024}}}`
			if !golden.EqualJSON(t, last.Body, []byte(want)) {
				t.Errorf("upstream body %s", last.Body)
			}

			res := gw.Post("/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"q"}]}`)
			defer res.Body.Close()
			if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
				t.Fatalf("status %d headers %v", res.StatusCode, res.Header)
			}
			testgw.Diff(t, "event sequence", testgw.Summary(t, testgw.ReadEvents(t, res.Body)), []string{
				"message_start",
				`content_block_start 0 {"type":"thinking","thinking":""}`,
				"thinking_delta 0 " + mustJSON(thinkingText),
				"signature_delta 0 " + mustJSON(msg.Content[0].Signature),
				"content_block_stop 0",
				`content_block_start 1 {"type":"text","text":""}`,
				"text_delta 1 " + mustJSON(answerText),
				"content_block_stop 1",
				"message_delta end_turn",
				"message_stop",
			})
		})
	}
}

// TestStreamGolden pins the exact bytes the client receives.
func TestStreamGolden(t *testing.T) {
	up := mockGemini(t, streaming(thinkingStream, 7))
	gw := testgw.Start(t, testgw.SlotGemini, site("", up))
	res, body := gw.PostRead("/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"q"}]}`)
	if res.StatusCode != 200 {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	body = regexp.MustCompile(`"id":"msg_[A-Za-z0-9]+"`).ReplaceAllString(body, `"id":"msg_X"`)
	// Delta boundaries follow how the upstream's bytes were read; the
	// events and their content do not.
	golden.Bytes(t, "thinking_stream.sse", ssetest.Coalesce([]byte(body)))
}

// TestNonStreaming: generateContent's body becomes one Message, through the
// SDK.
func TestNonStreaming(t *testing.T) {
	up := mockGemini(t, jsonReply(`{
  "candidates": [{"content": {"parts": [
      {"text": "Short thought.", "thought": true},
      {"text": "", "thoughtSignature": "`+thoughtSig+`"},
      {"text": "Hello from Gemini."}
    ], "role": "model"}, "finishReason": "MAX_TOKENS", "index": 0}],
  "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 4, "thoughtsTokenCount": 6, "totalTokenCount": 19},
  "modelVersion": "gemini-2.5-flash", "responseId": "r2"}`))
	gw := testgw.Start(t, testgw.SlotGemini, site("", up))
	client := gw.Client()
	msg, err := client.Messages.New(context.Background(), userParams("claude-haiku-4-5", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 2 || msg.Content[0].Thinking != "Short thought." || !strings.HasPrefix(msg.Content[0].Signature, "tg1g.") ||
		msg.Content[1].Text != "Hello from Gemini." || msg.StopReason != "max_tokens" ||
		msg.Usage.InputTokens != 9 || msg.Usage.OutputTokens != 10 || msg.Model != "claude-haiku-4-5" {
		t.Errorf("message: %+v", msg)
	}
	if last := up.Last(t); last.Path != "/v1beta/models/gemini-2.5-flash:generateContent" || last.RawQuery != "" {
		t.Errorf("upstream target %s?%s", last.Path, last.RawQuery)
	}
}

// TestTwoTurns: the signatures of turn one (the thought's and the function
// call's) reach Gemini in turn two on the parts they came on, both when the
// client sends the whole assistant message back and when it drops the
// thinking block (as Claude Code may); the mock enforces Gemini 3's rule.
func TestTwoTurns(t *testing.T) {
	for _, n := range []int{1, 5, 4096} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			second := sse(chunk(`{"text": "It is 18°C and sunny in Paris."}`, "STOP", usage(80, 9, 0, 0)))
			var turn atomic.Int32
			up := mockGemini(t, func(w http.ResponseWriter, r *http.Request) {
				if turn.Add(1) == 1 {
					testgw.WriteChunks(w, "text/event-stream", toolStream, n)
					return
				}
				testgw.WriteChunks(w, "text/event-stream", second, n)
			})
			gw := testgw.Start(t, testgw.SlotGemini, site("\tmodel gemini-* gemini-3-pro-preview", up))
			weather := anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{
				Properties: map[string]any{
					"city": map[string]any{"type": "string"},
					"unit": map[string]any{"type": "string", "enum": []string{"celsius", "fahrenheit"}},
				},
				Required:    []string{"city"},
				ExtraFields: map[string]any{"additionalProperties": false, "$schema": "http://json-schema.org/draft-07/schema#"},
			}, "get_weather")
			params := userParams("gemini-3", "Weather in Paris?")
			params.Tools = []anthropic.ToolUnionParam{weather}

			msg, _ := gw.Stream(params)
			if len(msg.Content) != 2 || msg.Content[0].Type != "thinking" || msg.Content[0].Thinking != "I need the weather for Paris. Use the tool." ||
				msg.Content[1].Type != "tool_use" || msg.Content[1].Name != "get_weather" || string(msg.Content[1].Input) != `{"city": "Paris","unit": "celsius"}` ||
				msg.StopReason != "tool_use" {
				t.Fatalf("turn one: %+v", msg)
			}
			id := msg.Content[1].ID
			if !regexp.MustCompile(`^toolu_[a-zA-Z0-9_-]+$`).MatchString(id) {
				t.Errorf("tool_use id %q", id)
			}
			firstReq := up.Last(t).Body

			result := anthropic.NewUserMessage(anthropic.NewToolResultBlock(id, "18°C and sunny", false))
			wantTail := `{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"18°C and sunny"}}}]}`
			for _, c := range []struct {
				name      string
				assistant anthropic.MessageParam
				model     string
			}{
				{"whole message", msg.ToParam(),
					`{"role":"model","parts":[{"text":"I need the weather for Paris. Use the tool.","thought":true,"thoughtSignature":"` + thoughtSig + `"},` +
						`{"functionCall":{"name":"get_weather","args":{"city": "Paris","unit": "celsius"}},"thoughtSignature":"` + callSig + `"}]}`},
				{"thinking dropped", anthropic.NewAssistantMessage(anthropic.NewToolUseBlock(id, json.RawMessage(msg.Content[1].Input), "get_weather")),
					`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city": "Paris","unit": "celsius"}},"thoughtSignature":"` + callSig + `"}]}`},
			} {
				turn.Store(1)
				p2 := params
				p2.Messages = []anthropic.MessageParam{params.Messages[0], c.assistant, result}
				msg2, _ := gw.Stream(p2)
				if len(msg2.Content) != 1 || msg2.Content[0].Text != "It is 18°C and sunny in Paris." || msg2.StopReason != "end_turn" {
					t.Errorf("%s: turn two: %+v", c.name, msg2)
				}
				var got struct {
					Contents []json.RawMessage `json:"contents"`
				}
				body := up.Last(t).Body
				if err := json.Unmarshal(body, &got); err != nil || len(got.Contents) != 3 {
					t.Fatalf("%s: turn two body %s", c.name, body)
				}
				if !golden.EqualJSON(t, got.Contents[1], []byte(c.model)) {
					t.Errorf("%s: model turn\n%s\nwant\n%s", c.name, got.Contents[1], c.model)
				}
				if !golden.EqualJSON(t, got.Contents[2], []byte(wantTail)) {
					t.Errorf("%s: tool result turn %s", c.name, got.Contents[2])
				}
			}
			golden.JSON(t, "two_turns_first_request.json", firstReq)
		})
	}
}

// TestMockEnforcesSignatures: the mock refuses a Gemini 3 call without a
// signature, so TestTwoTurns would catch a lost one; the gateway sends the
// documented skip value for calls from another model's history instead.
func TestMockEnforcesSignatures(t *testing.T) {
	up := mockGemini(t, streaming(sse(chunk(`{"text": "ok"}`, "STOP", "")), 64))
	raw, _ := http.NewRequest("POST", up.URL+"/v1beta/models/gemini-3-pro-preview:generateContent",
		strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"x"}}}]}]}`))
	raw.Header.Set("X-Goog-Api-Key", geminiKey)
	res, err := http.DefaultClient.Do(raw)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 400 || !strings.Contains(string(b), "missing a thought_signature") {
		t.Fatalf("mock accepted an unsigned call: %d %s", res.StatusCode, b)
	}

	gw := testgw.Start(t, testgw.SlotGemini, site("\tmodel gemini-* gemini-3-pro-preview", up))
	history := `{"model":"gemini-3","max_tokens":50,"stream":true,"messages":[
	  {"role":"user","content":"q"},
	  {"role":"assistant","content":[{"type":"thinking","thinking":"Claude's thought","signature":"EqQBCkgIAxABGAIiQLclaude"},{"type":"tool_use","id":"toolu_01ClaudeMadeThis","name":"f","input":{}}]},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01ClaudeMadeThis","content":"x"}]}]}`
	res2, body := gw.PostRead("/v1/messages", history)
	if res2.StatusCode != 200 || !strings.Contains(body, "message_stop") {
		t.Fatalf("got %d %s", res2.StatusCode, body)
	}
	want := `[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"skip_thought_signature_validator"}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"x"}}}]}]`
	var got struct {
		Contents json.RawMessage `json:"contents"`
	}
	_ = json.Unmarshal(up.Last(t).Body, &got)
	if !golden.EqualJSON(t, got.Contents, []byte(want)) {
		t.Errorf("contents %s", got.Contents)
	}
}

// TestClaudeCodeRequest: a Claude Code-shaped request (system blocks with
// cache_control, MCP-style JSON Schemas, history with tool results and
// images) reaches Gemini exactly as pinned in testdata.
func TestClaudeCodeRequest(t *testing.T) {
	up := mockGemini(t, streaming(sse(chunk(`{"text": "Done."}`, "STOP", usage(900, 2, 0, 0))), 32))
	gw := testgw.Start(t, testgw.SlotGemini, site("", up))
	res, body := gw.PostRead("/v1/messages?beta=true", string(readFile(t, "testdata/claude_code_request.json")),
		"anthropic-beta", "claude-code-20250219,interleaved-thinking-2025-05-14", "x-app", "cli")
	if res.StatusCode != 200 || !strings.Contains(body, "event: message_stop") {
		t.Fatalf("got %d %s", res.StatusCode, body)
	}
	last := up.Last(t)
	if last.RawQuery != "alt=sse" || last.Header.Get("X-App") != "cli" {
		t.Errorf("query %q headers %v", last.RawQuery, last.Header)
	}
	golden.JSON(t, "claude_code_request.gemini.json", last.Body)
}

// TestCountTokens: /v1/messages/count_tokens becomes :countTokens with the
// whole request, and {"totalTokens":N} becomes {"input_tokens":N}.
func TestCountTokens(t *testing.T) {
	up := mockGemini(t, jsonReply(`{"totalTokens": 57, "promptTokensDetails": [{"modality": "TEXT","tokenCount": 57}]}`))
	gw := testgw.Start(t, testgw.SlotGemini, site("", up))
	client := gw.Client()
	n, err := client.Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{
		Model:    "claude-sonnet-4-5",
		System:   anthropic.MessageCountTokensParamsSystemUnion{OfString: anthropic.String("Be brief.")},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hello"))},
	})
	if err != nil || n.InputTokens != 57 {
		t.Fatalf("count: %+v %v", n, err)
	}
	last := up.Last(t)
	want := `{"generateContentRequest":{"model":"models/gemini-2.5-flash","contents":[{"role":"user","parts":[{"text":"Hello"}]}],"systemInstruction":{"parts":[{"text":"Be brief."}]}}}`
	if last.Path != "/v1beta/models/gemini-2.5-flash:countTokens" || !golden.EqualJSON(t, last.Body, []byte(want)) {
		t.Errorf("upstream %s %s", last.Path, last.Body)
	}
	res, body := gw.PostRead("/v1/messages/count_tokens", `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"Hello"}]}`)
	if res.StatusCode != 200 || body != `{"input_tokens":57}` || res.Header.Get("Content-Type") != "application/json" {
		t.Errorf("got %d %s %v", res.StatusCode, body, res.Header)
	}
}

// TestUpstreamErrors: Gemini's errors become Anthropic errors with a real
// status, before any byte of a stream, for streaming and plain requests.
func TestUpstreamErrors(t *testing.T) {
	cases := []struct {
		name, body          string
		status              int
		header              http.Header
		wantStatus          int
		wantBody, wantRetry string
	}{
		{"quota", `{"error": {"code": 429,"message": "You exceeded your current quota, please check your plan and billing details.","status": "RESOURCE_EXHAUSTED","details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo","retryDelay": "21s"}]}}`,
			429, nil, 429, `{"type":"error","error":{"type":"rate_limit_error","message":"You exceeded your current quota, please check your plan and billing details."}}`, "21"},
		{"overloaded", `{"error": {"code": 503,"message": "The model is overloaded. Please try again later.","status": "UNAVAILABLE"}}`,
			503, nil, 529, `{"type":"error","error":{"type":"overloaded_error","message":"The model is overloaded. Please try again later."}}`, ""},
		{"bad request", `{"error": {"code": 400,"message": "* GenerateContentRequest.generation_config.max_output_tokens: max_output_tokens must be positive.\n","status": "INVALID_ARGUMENT"}}`,
			400, nil, 400, `{"type":"error","error":{"type":"invalid_request_error","message":"* GenerateContentRequest.generation_config.max_output_tokens: max_output_tokens must be positive.\n"}}`, ""},
		{"unknown model", `{"error": {"code": 404,"message": "models/gemini-9 is not found for API version v1beta, or is not supported for generateContent.","status": "NOT_FOUND"}}`,
			404, nil, 404, `{"type":"error","error":{"type":"not_found_error","message":"models/gemini-9 is not found for API version v1beta, or is not supported for generateContent."}}`, ""},
		{"internal", `{"error": {"code": 500,"message": "An internal error has occurred.","status": "INTERNAL"}}`,
			500, nil, 500, `{"type":"error","error":{"type":"api_error","message":"An internal error has occurred."}}`, ""},
		{"retry-after header", `{"error": {"code": 429,"message": "slow down","status": "RESOURCE_EXHAUSTED"}}`,
			429, http.Header{"Retry-After": {"3"}}, 429, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`, "3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			up := mockGemini(t, func(w http.ResponseWriter, r *http.Request) {
				for k, v := range c.header {
					w.Header()[k] = v
				}
				w.Header().Set("Content-Type", "application/json; charset=UTF-8")
				w.WriteHeader(c.status)
				_, _ = io.WriteString(w, c.body)
			})
			gw := testgw.Start(t, testgw.SlotGemini, site("", up))
			for _, stream := range []bool{true, false} {
				req := fmt.Sprintf(`{"model":"claude-x","max_tokens":5,"stream":%v,"messages":[{"role":"user","content":"q"}]}`, stream)
				res, body := gw.PostRead("/v1/messages", req)
				if res.StatusCode != c.wantStatus || body != c.wantBody || res.Header.Get("Retry-After") != c.wantRetry ||
					res.Header.Get("Content-Type") != "application/json" {
					t.Errorf("stream=%v: got %d %q retry %q\n%s", stream, res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Retry-After"), body)
				}
			}
			client := gw.Client()
			_, err := client.Messages.New(context.Background(), userParams("claude-x", "q"))
			var apiErr *anthropic.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != c.wantStatus {
				t.Errorf("SDK error %v", err)
			}
		})
	}
}

// TestBadKey: Gemini's 400 API_KEY_INVALID is an authentication_error.
func TestBadKey(t *testing.T) {
	up := mockGemini(t, streaming(thinkingStream, 64))
	gw := testgw.Start(t, testgw.SlotGemini, strings.Replace(site("", up), geminiKey, "wrong-key", 1))
	res, body := gw.PostRead("/v1/messages", `{"model":"claude-x","max_tokens":5,"messages":[{"role":"user","content":"q"}]}`)
	if res.StatusCode != 401 || body != `{"type":"error","error":{"type":"authentication_error","message":"API key not valid. Please pass a valid API key."}}` {
		t.Errorf("got %d %s", res.StatusCode, body)
	}
}

// TestClientKey: without api_key the client's own key is Gemini's key.
func TestClientKey(t *testing.T) {
	up := mockGemini(t, streaming(thinkingStream, 64))
	gw := testgw.Start(t, testgw.SlotGemini, fmt.Sprintf("thinkgate gemini {\n\tmodel * gemini-2.5-flash\n}\nreverse_proxy %s", up.Addr()))
	gw.Stream(userParams("m", "q"), option.WithAPIKey(geminiKey))
	gw.Stream(userParams("m", "q"), option.WithAPIKey(""), option.WithAuthToken(geminiKey))
	if n := len(up.Requests()); n != 2 {
		t.Errorf("%d requests", n)
	}
}

// TestBadModel: a model name that could leave its path segment is refused
// with a 400 and never reaches Gemini.
func TestBadModel(t *testing.T) {
	up := mockGemini(t, streaming(thinkingStream, 64))
	gw := testgw.Start(t, testgw.SlotGemini, fmt.Sprintf("thinkgate gemini {\n\tapi_key %s\n\tmodel evil ../../v1beta/files\n}\nreverse_proxy %s", geminiKey, up.Addr()))
	for model, name := range map[string]string{"evil": "../../v1beta/files", "a/b:countTokens": "a/b:countTokens", "m?key=x": "m?key=x"} {
		res, body := gw.PostRead("/v1/messages", fmt.Sprintf(`{"model":%q,"max_tokens":5,"messages":[{"role":"user","content":"q"}]}`, model))
		want := `{"type":"error","error":{"type":"invalid_request_error","message":` +
			mustJSON(fmt.Sprintf("model: %q is not a valid Gemini model name (letters, digits, '.', '_' and '-' only)", name)) + `}}`
		if res.StatusCode != 400 || body != want {
			t.Errorf("%s: got %d %s\nwant %s", model, res.StatusCode, body, want)
		}
	}
	if n := len(up.Requests()); n != 0 {
		t.Errorf("upstream got %d requests", n)
	}
}

// TestCutStream: Gemini breaking mid-stream closes the open block and ends
// with an error event; a stream that ends cleanly but without a
// finishReason is incomplete, and says so.
func TestCutStream(t *testing.T) {
	cut := thinkingStream[:bytes.Index(thinkingStream, []byte("Café"))+3]
	for _, c := range []struct {
		name  string
		abort bool
		want  string
	}{
		{"connection lost", true, `error {"type":"api_error","message":"upstream connection lost mid-stream"}`},
		{"no finishReason", false, `error {"type":"api_error","message":"Gemini stream ended without a finishReason"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			up := mockGemini(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(200)
				body := cut
				if !c.abort {
					body = thinkingStream[:bytes.Index(thinkingStream, []byte(`"finishReason"`))-200]
					body = body[:bytes.LastIndex(body, []byte("\r\n\r\n"))+4]
				}
				_, _ = w.Write(body)
				http.NewResponseController(w).Flush()
				if c.abort {
					panic(http.ErrAbortHandler)
				}
			})
			gw := testgw.Start(t, testgw.SlotGemini, site("", up))
			res := gw.Post("/v1/messages", `{"model":"claude-x","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"q"}]}`)
			events := testgw.Summary(t, testgw.ReadEvents(t, res.Body))
			res.Body.Close()
			if n := len(events); n < 3 || events[0] != "message_start" || !strings.HasPrefix(events[n-2], "content_block_stop ") || events[n-1] != c.want {
				t.Errorf("events:\n%s", strings.Join(events, "\n"))
			}
			// The SDK sees the error.
			client := gw.Client()
			stream := client.Messages.NewStreaming(context.Background(), userParams("claude-x", "q"))
			for stream.Next() {
			}
			if stream.Err() == nil {
				t.Error("the SDK saw no error")
			}
			stream.Close()
		})
	}
}

// TestMidStreamError: an error object inside Gemini's stream becomes an
// error event of the mapped type after the content so far.
func TestMidStreamError(t *testing.T) {
	body := sse(chunk(`{"text": "Partial answer"}`, "", ""), `{"error": {"code": 503,"message": "The model is overloaded. Please try again later.","status": "UNAVAILABLE"}}`)
	up := mockGemini(t, streaming(body, 5))
	gw := testgw.Start(t, testgw.SlotGemini, site("", up))
	res := gw.Post("/v1/messages", `{"model":"claude-x","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"q"}]}`)
	defer res.Body.Close()
	testgw.Diff(t, "events", testgw.Summary(t, testgw.ReadEvents(t, res.Body)), []string{
		"message_start",
		`content_block_start 0 {"type":"text","text":""}`,
		`text_delta 0 "Partial answer"`,
		"content_block_stop 0",
		`error {"type":"overloaded_error","message":"The model is overloaded. Please try again later."}`,
	})
}

// TestStopReasons: finishReason and promptFeedback map to stop_reason.
func TestStopReasons(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{string(sse(chunk(`{"text": "cut"}`, "MAX_TOKENS", ""))), "max_tokens"},
		{string(sse(chunk(`{"text": "I can"}`, "SAFETY", ""))), "refusal"},
		{string(sse(chunk(`{"text": "quote"}`, "RECITATION", ""))), "refusal"},
		{string(sse(`{"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},"usageMetadata": {"promptTokenCount": 7}}`)), "refusal"},
		{string(sse(chunk(`{"text": "done"}`, "STOP", ""))), "end_turn"},
	} {
		up := mockGemini(t, streaming([]byte(c.body), 11))
		gw := testgw.Start(t, testgw.SlotGemini, site("", up))
		msg, _ := gw.Stream(userParams("claude-x", "q"))
		if string(msg.StopReason) != c.want {
			t.Errorf("%s: stop %q, want %q", c.body, msg.StopReason, c.want)
		}
	}
}

// TestKeepalive: message_start goes out as soon as Gemini answers, so pings
// keep the client's connection alive while Gemini is silent.
func TestKeepalive(t *testing.T) {
	up := mockGemini(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		http.NewResponseController(w).Flush()
		time.Sleep(450 * time.Millisecond)
		_, _ = w.Write(thinkingStream)
	})
	gw := testgw.Start(t, testgw.SlotGemini, site("\tkeepalive 100ms", up))
	res := gw.Post("/v1/messages", `{"model":"claude-x","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"q"}]}`)
	events := testgw.Summary(t, testgw.ReadEvents(t, res.Body))
	res.Body.Close()
	if len(events) < 4 || events[0] != "message_start" || events[1] != "ping" || events[2] != "ping" || events[len(events)-1] != "message_stop" {
		t.Errorf("events:\n%s", strings.Join(events, "\n"))
	}
}

// TestSplitTags: with split_tags, tags in Gemini's text become thinking
// blocks, and such a block goes back to Gemini as the tagged text.
func TestSplitTags(t *testing.T) {
	body := sse(
		chunk(`{"text": "Intro. <thin"}`, "", ""),
		chunk(`{"text": "king>Reasoning 思考 in tags.</thinking>Answer."}`, "STOP", ""),
	)
	up := mockGemini(t, streaming(body, 3))
	gw := testgw.Start(t, testgw.SlotGemini, site("\tsplit_tags\n\tdefault_thinking off", up))
	msg, _ := gw.Stream(userParams("claude-x", "q"))
	if len(msg.Content) != 3 || msg.Content[0].Text != "Intro. " || msg.Content[1].Thinking != "Reasoning 思考 in tags." ||
		!strings.HasPrefix(msg.Content[1].Signature, "tg1t.") || msg.Content[2].Text != "Answer." {
		t.Fatalf("content: %+v", msg.Content)
	}
	if !strings.Contains(string(up.Last(t).Body), `"thinkingConfig":{"includeThoughts":false}`) {
		t.Errorf("default_thinking off: %s", up.Last(t).Body)
	}
	p := userParams("claude-x", "q")
	p.Messages = append(p.Messages, msg.ToParam(), anthropic.NewUserMessage(anthropic.NewTextBlock("more")))
	gw.Stream(p)
	want := `{"role":"model","parts":[{"text":"Intro. "},{"text":"<thinking>Reasoning 思考 in tags.</thinking>"},{"text":"Answer."}]}`
	var got struct {
		Contents []json.RawMessage `json:"contents"`
	}
	_ = json.Unmarshal(up.Last(t).Body, &got)
	if len(got.Contents) != 3 || !golden.EqualJSON(t, got.Contents[1], []byte(want)) {
		t.Errorf("history: %s", up.Last(t).Body)
	}
}

// TestThinkingParams: the request's thinking field and the thinking_budget
// option decide thinkingConfig; api_version picks the path.
func TestThinkingParams(t *testing.T) {
	up := mockGemini(t, streaming(thinkingStream, 4096))
	gw := testgw.Start(t, testgw.SlotGemini, site("\tapi_version v1\n\tthinking_budget 4096", up))
	for _, c := range []struct {
		thinking anthropic.ThinkingConfigParamUnion
		want     string
	}{
		{anthropic.ThinkingConfigParamUnion{}, `{"includeThoughts":true,"thinkingBudget":4096}`},
		{anthropic.ThinkingConfigParamOfEnabled(2048), `{"includeThoughts":true,"thinkingBudget":2048}`},
		{anthropic.ThinkingConfigParamUnion{OfDisabled: &anthropic.ThinkingConfigDisabledParam{}}, `{"includeThoughts":false,"thinkingBudget":0}`},
		{anthropic.ThinkingConfigParamUnion{OfAdaptive: &anthropic.ThinkingConfigAdaptiveParam{}}, `{"includeThoughts":true,"thinkingBudget":-1}`},
	} {
		p := userParams("claude-x", "q")
		p.MaxTokens = 8192 // above every budget, as Anthropic requires
		p.Thinking = c.thinking
		gw.Stream(p)
		last := up.Last(t)
		var got struct {
			GenerationConfig struct {
				ThinkingConfig json.RawMessage `json:"thinkingConfig"`
			} `json:"generationConfig"`
		}
		_ = json.Unmarshal(last.Body, &got)
		if string(got.GenerationConfig.ThinkingConfig) != c.want || last.Path != "/v1/models/gemini-2.5-flash:streamGenerateContent" {
			t.Errorf("%s %s, want %s", last.Path, got.GenerationConfig.ThinkingConfig, c.want)
		}
	}
}

func TestMain(m *testing.M) {
	os.Setenv("THINKGATE_TEST_GEMINI_KEY", geminiKey)
	os.Exit(m.Run())
}

// TestEnvKey: api_key {env.NAME} resolves at load.
func TestEnvKey(t *testing.T) {
	up := mockGemini(t, streaming(thinkingStream, 4096))
	gw := testgw.Start(t, testgw.SlotGemini, fmt.Sprintf("thinkgate gemini {\n\tapi_key {env.THINKGATE_TEST_GEMINI_KEY}\n}\nreverse_proxy %s", up.Addr()))
	res, body := gw.PostRead("/v1/messages", `{"model":"gemini-2.5-flash","max_tokens":5,"messages":[{"role":"user","content":"q"}],"stream":true}`)
	if res.StatusCode != 200 || !strings.Contains(body, "message_stop") {
		t.Errorf("got %d %s", res.StatusCode, body)
	}
}

// TestConfigErrors: bad gemini options are refused at load, by name.
func TestConfigErrors(t *testing.T) {
	p := testgw.PortsFor(testgw.SlotGemini)
	for _, c := range []struct{ opts, want string }{
		{"frobnicate 1", "thinkgate gemini: unknown option 'frobnicate'"},
		{"api_version v2", `api_version: must be v1beta or v1, got "v2"`},
		{"thinking_budget 0", `thinking_budget: 0 is not allowed; leave the option out for its default`},
		{"thinking_budget -2", `thinking_budget: must be a positive number of tokens or -1 (dynamic), got -2`},
		{"thinking_budget lots", `thinking_budget: "lots" is not a whole number`},
		{"api_key", "wrong argument count"},
		{"api_key a b\n\tkey_selection sticky", `key_selection: must be session or round_robin, got "sticky"`}, // api_key a b is a pool
	} {
		cfg := testgw.Preamble(p) + fmt.Sprintf("http://localhost:%d {\nthinkgate gemini {\n\t%s\n}\nrespond ok\n}\n", p.HTTP, c.opts)
		if got := testgw.LoadError(t, testgw.SlotGemini, cfg); !strings.Contains(got, c.want) {
			t.Errorf("%s: load error %q does not contain %q", c.opts, got, c.want)
		}
	}
	// The JSON config is validated too; Caddy names the module, the error
	// the option.
	cfg := fmt.Sprintf(`{"admin":{"listen":"localhost:%d"},"apps":{"http":{"servers":{"s":{"listen":[":%d"],"routes":[{"handle":[{"handler":"thinkgate","provider":{"name":"gemini","api_version":"v3"}}]}]}}}}}`, p.Admin, p.HTTP)
	req, _ := http.NewRequest("POST", fmt.Sprintf("http://localhost:%d/load", p.Admin), strings.NewReader(cfg))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode == 200 || !strings.Contains(string(b), `loading module 'gemini': http.handlers.thinkgate.providers.gemini: invalid configuration: api_version: must be v1beta or v1, got \"v3\"`) {
		t.Errorf("JSON config: %d %s", res.StatusCode, b)
	}
}

// TestAdapt: the Caddyfile options become the module's JSON fields.
func TestAdapt(t *testing.T) {
	provider := testgw.AdaptProvider(t, `:8080
thinkgate gemini {
	api_key {env.GEMINI_API_KEY}
	api_version v1
	thinking_budget -1
	model claude-* gemini-2.5-pro
}
reverse_proxy https://generativelanguage.googleapis.com`)
	if want := `{"api_key":"{env.GEMINI_API_KEY}","api_version":"v1","name":"gemini","thinking_budget":-1}`; !golden.EqualJSON(t, provider, []byte(want)) {
		t.Errorf("provider JSON %s\nwant %s", provider, want)
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConversationShape: system prompt and role:"system" messages, merged
// consecutive turns, documents and URL images, tool_choice, sampling
// parameters and thinking:false reach Gemini exactly as pinned.
func TestConversationShape(t *testing.T) {
	up := mockGemini(t, jsonReply(`{"candidates": [{"content": {"parts": [{"text": "A gateway is a way in."}], "role": "model"}, "finishReason": "STOP", "index": 0}]}`))
	gw := testgw.Start(t, testgw.SlotGemini, site("\tmodel claude-opus-* gemini-2.5-pro", up))
	res, body := gw.PostRead("/v1/messages", string(readFile(t, "testdata/conversation.json")))
	if res.StatusCode != 200 || !strings.Contains(body, `"text":"A gateway is a way in."`) || !strings.Contains(body, `"model":"claude-opus-4-1"`) {
		t.Fatalf("got %d %s", res.StatusCode, body)
	}
	last := up.Last(t)
	if last.Path != "/v1beta/models/gemini-2.5-pro:generateContent" {
		t.Errorf("path %s", last.Path)
	}
	golden.JSON(t, "conversation.gemini.json", last.Body)
}

// TestSignatureOnEmptyPart: a signature Gemini sends on an empty part before
// a call rides on that call, and comes back on it in the next turn.
func TestSignatureOnEmptyPart(t *testing.T) {
	first := sse(
		chunk(`{"text": "","thoughtSignature": "`+callSig+`"}`, "", ""),
		chunk(`{"functionCall": {"id": "fc-42","name": "list_files","args": {}}}`, "STOP", usage(12, 3, 0, 0)),
	)
	up := mockGemini(t, func(w http.ResponseWriter, r *http.Request) {
		if bytes.Contains(mustRead(r), []byte("functionResponse")) {
			testgw.WriteChunks(w, "text/event-stream", sse(chunk(`{"text": "Two files."}`, "STOP", "")), 3)
			return
		}
		testgw.WriteChunks(w, "text/event-stream", first, 2)
	})
	gw := testgw.Start(t, testgw.SlotGemini, site("\tmodel gemini-* gemini-3-flash-preview", up))
	params := userParams("gemini-3", "List the files.")
	params.Tools = []anthropic.ToolUnionParam{anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{}, "list_files")}
	msg, _ := gw.Stream(params)
	if len(msg.Content) != 1 || msg.Content[0].Type != "tool_use" || string(msg.Content[0].Input) != "{}" || msg.StopReason != "tool_use" {
		t.Fatalf("turn one: %+v", msg)
	}
	params.Messages = append(params.Messages, msg.ToParam(),
		anthropic.NewUserMessage(anthropic.NewToolResultBlock(msg.Content[0].ID, "a.txt b.txt", false)))
	gw.Stream(params)
	var got struct {
		Contents []json.RawMessage `json:"contents"`
		Tools    json.RawMessage   `json:"tools"`
	}
	_ = json.Unmarshal(up.Last(t).Body, &got)
	want := []string{
		`{"role":"user","parts":[{"text":"List the files."}]}`,
		`{"role":"model","parts":[{"functionCall":{"id":"fc-42","name":"list_files","args":{}},"thoughtSignature":"` + callSig + `"}]}`,
		`{"role":"user","parts":[{"functionResponse":{"id":"fc-42","name":"list_files","response":{"output":"a.txt b.txt"}}}]}`,
	}
	if len(got.Contents) != 3 {
		t.Fatalf("contents %s", up.Last(t).Body)
	}
	for i := range want {
		if !golden.EqualJSON(t, got.Contents[i], []byte(want[i])) {
			t.Errorf("contents[%d] = %s\nwant %s", i, got.Contents[i], want[i])
		}
	}
	// A tool without arguments is declared without parameters.
	if !golden.EqualJSON(t, got.Tools, []byte(`[{"functionDeclarations":[{"name":"list_files"}]}]`)) {
		t.Errorf("tools %s", got.Tools)
	}
}

func mustRead(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	return b
}
