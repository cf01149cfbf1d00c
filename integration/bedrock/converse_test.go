package bedrock_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/eventstreamtest"
	"github.com/thinkgate/thinkgate/internal/testgw"
)

// The Converse model of these tests: DeepSeek-R1, which api auto sends to
// Converse.
const (
	converseModel  = "deepseek.r1-v1:0"
	converseTarget = "/model/deepseek.r1-v1%3A0/"
	// converseSig is the signature Bedrock puts on the reasoning.
	converseSig = "EqQBCkgIBxABGAIiQMt+vR3yS0Y="
)

// converseFrame is one ConverseStream event frame, its payload padded as
// Bedrock pads it.
func converseFrame(typ string, fields map[string]any) []byte {
	fields["p"] = "abcdefghijklmnop"
	payload, err := json.Marshal(fields)
	if err != nil {
		panic(err)
	}
	return eventstreamtest.Event(typ, payload)
}

func delta(i int, d map[string]any) []byte {
	return converseFrame("contentBlockDelta", map[string]any{"contentBlockIndex": i, "delta": d})
}

func blockStop(i int) []byte {
	return converseFrame("contentBlockStop", map[string]any{"contentBlockIndex": i})
}

// converseFrames is DeepSeek's answer as ConverseStream sends it, frame by
// frame: reasoning with its signature, text, a tool call whose input comes
// in three pieces, the stop reason and the usage.
func converseFrames() [][]byte {
	return [][]byte{
		converseFrame("messageStart", map[string]any{"role": "assistant"}),
		delta(0, map[string]any{"reasoningContent": map[string]any{"text": "The user wants the weather. "}}),
		delta(0, map[string]any{"reasoningContent": map[string]any{"text": "I call the tool."}}),
		delta(0, map[string]any{"reasoningContent": map[string]any{"signature": converseSig}}),
		blockStop(0),
		delta(1, map[string]any{"text": "Let me check "}),
		delta(1, map[string]any{"text": "Paris, 答案 😀."}),
		blockStop(1),
		converseFrame("contentBlockStart", map[string]any{"contentBlockIndex": 2,
			"start": map[string]any{"toolUse": map[string]any{"toolUseId": "tooluse_w1", "name": "get_weather"}}}),
		delta(2, map[string]any{"toolUse": map[string]any{"input": `{"city":`}}),
		delta(2, map[string]any{"toolUse": map[string]any{"input": `"Par`}}),
		delta(2, map[string]any{"toolUse": map[string]any{"input": `is"}`}}),
		blockStop(2),
		converseFrame("messageStop", map[string]any{"stopReason": "tool_use"}),
		converseFrame("metadata", map[string]any{"usage": map[string]any{"inputTokens": 31, "outputTokens": 58, "totalTokens": 89},
			"metrics": map[string]any{"latencyMs": 812}}),
	}
}

func joinFrames(frames [][]byte) []byte {
	var b []byte
	for _, f := range frames {
		b = append(b, f...)
	}
	return b
}

// converseMessage is the same answer from /converse.
const converseMessage = `{"output":{"message":{"role":"assistant","content":[` +
	`{"reasoningContent":{"reasoningText":{"text":"The user wants the weather. I call the tool.","signature":"` + converseSig + `"}}},` +
	`{"text":"Let me check Paris, 答案 😀."},{"toolUse":{"toolUseId":"tooluse_w1","name":"get_weather","input":{"city":"Paris"}}}]}},` +
	`"stopReason":"tool_use","usage":{"inputTokens":31,"outputTokens":58,"totalTokens":89},"metrics":{"latencyMs":812}}`

// converseAnswer is the test Bedrock runtime's Converse: the stream in
// writes of chunk bytes, the Message, the token count; a DeepSeek path
// must carry the model id escaped.
func converseAnswer(stream []byte, chunk int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.Contains(r.URL.Path, converseModel) && !strings.HasPrefix(r.URL.EscapedPath(), converseTarget):
			// The model id's ':' travels escaped, as the SDK sends it
			// and the signature covers it.
			testgw.BedrockError(w, 400, "ValidationException", "unescaped model id in "+r.URL.EscapedPath())
		case strings.HasSuffix(r.URL.Path, "/converse-stream"):
			testgw.WriteChunks(w, testgw.BedrockEventStreamType, stream, chunk)
		case strings.HasSuffix(r.URL.Path, "/converse"):
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(converseMessage))
		case strings.HasSuffix(r.URL.Path, "/count-tokens"):
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"inputTokens":17}`))
		default:
			testgw.BedrockError(w, 404, "UnknownOperationException", "unknown operation "+r.URL.Path)
		}
	}
}

func converseSite(up *testgw.BedrockUpstream, options string) string {
	return fmt.Sprintf("thinkgate bedrock {\n\tregion us-east-1\n%s\n\tmodel deepseek %s\n}\nreverse_proxy %s", options, converseModel, up.Addr())
}

// converseRequest declares the tool and asks with thinking on.
const converseRequest = `{"model":"deepseek","max_tokens":2048,"stream":true,"thinking":{"type":"enabled","budget_tokens":1024},` +
	`"tools":[{"name":"get_weather","description":"Weather of a city","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}],` +
	`"messages":[{"role":"user","content":"Weather in Paris?"}]}`

func converseParams() anthropic.MessageNewParams {
	var p anthropic.MessageNewParams
	if err := json.Unmarshal([]byte(converseRequest), &p); err != nil {
		panic(err)
	}
	return p
}

// checkConverseSigned: the request reached the path it was signed for,
// with the escaped model id, SigV4 over it (the upstream verified it) and
// the session token.
func checkConverseSigned(t *testing.T, c testgw.Captured, action string) {
	t.Helper()
	if c.Path != "/model/"+converseModel+"/"+action {
		t.Errorf("path %q, want /model/%s/%s", c.Path, converseModel, action)
	}
	if a := c.Header.Get("Authorization"); !strings.HasPrefix(a, "AWS4-HMAC-SHA256 Credential="+testgw.BedrockAccessKey+"/") ||
		!strings.Contains(a, "/us-east-1/bedrock/aws4_request") {
		t.Errorf("authorization %q", a)
	}
	if c.Header.Get("X-Amz-Security-Token") != testgw.BedrockSessionToken {
		t.Errorf("session token %q", c.Header.Get("X-Amz-Security-Token"))
	}
	if v := c.Header.Get("Anthropic-Beta"); v != "" {
		t.Errorf("anthropic-beta reached Bedrock: %q", v)
	}
}

// wantConverseBody is the Converse request converseRequest becomes:
// DeepSeek-R1 reasons without a field asking it to.
const wantConverseBody = `{"messages":[{"role":"user","content":[{"text":"Weather in Paris?"}]}],"inferenceConfig":{"maxTokens":2048},` +
	`"toolConfig":{"tools":[{"toolSpec":{"name":"get_weather","description":"Weather of a city","inputSchema":{"json":{"type":"object","properties":{"city":{"type":"string"}}}}}}]}}`

// TestConverseStream: a DeepSeek-R1 stream, its frames cut into writes of
// every size down to one byte, reaches the client as Anthropic's events:
// the reasoning as a thinking block whose signature wraps Bedrock's, the
// text, the tool call's input as input_json_delta pieces, the stop reason
// and the usage; the SDK accumulates them. The request went to
// converse-stream, signed for that path.
func TestConverseStream(t *testing.T) {
	stream := joinFrames(converseFrames())
	for _, chunk := range []int{1, 7, 100, 1 << 16} {
		t.Run(fmt.Sprint(chunk), func(t *testing.T) {
			up := testgw.NewBedrockUpstream(t, converseAnswer(stream, chunk))
			envCredentials(t, up)
			gw := testgw.Start(t, slot, converseSite(up, ""))

			res := gw.Post("/v1/messages", converseRequest)
			defer res.Body.Close()
			if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
				t.Fatalf("status %d %v", res.StatusCode, res.Header)
			}
			events := testgw.ReadEvents(t, res.Body)
			c := up.Last(t)
			checkConverseSigned(t, c, "converse-stream")
			if string(c.Body) != wantConverseBody {
				t.Errorf("body\n%s\nwant\n%s", c.Body, wantConverseBody)
			}
			sig := signatureOf(t, events)
			if sig == "" || strings.Contains(sig, converseSig) {
				t.Fatalf("signature %q: Bedrock's, not wrapped", sig)
			}
			testgw.Diff(t, "events", testgw.Summary(t, events), wantConverseSummary(sig))

			msg, types := gw.Stream(converseParams())
			if len(types) < 13 || types[0] != "message_start" || types[len(types)-1] != "message_stop" {
				t.Errorf("SDK events %v", types)
			}
			checkConverseMessage(t, msg, sig, "deepseek")
		})
	}
}

// checkConverseMessage: msg holds the answer's three blocks, its stop
// reason and its usage.
func checkConverseMessage(t *testing.T, msg anthropic.Message, sig, model string) {
	t.Helper()
	if len(msg.Content) != 3 {
		t.Fatalf("content %+v", msg.Content)
	}
	th, text, tool := msg.Content[0], msg.Content[1], msg.Content[2]
	if th.Type != "thinking" || th.Thinking != "The user wants the weather. I call the tool." || th.Signature != sig {
		t.Errorf("thinking %+v", th)
	}
	if text.Type != "text" || text.Text != "Let me check Paris, 答案 😀." {
		t.Errorf("text %+v", text)
	}
	if tool.Type != "tool_use" || tool.ID != "tooluse_w1" || tool.Name != "get_weather" || string(tool.Input) != `{"city":"Paris"}` {
		t.Errorf("tool_use %+v %s", tool, tool.Input)
	}
	if string(msg.Model) != model || msg.StopReason != "tool_use" || msg.Usage.InputTokens != 31 || msg.Usage.OutputTokens != 58 {
		t.Errorf("message %q %q %+v", msg.Model, msg.StopReason, msg.Usage)
	}
}

// signatureOf is the signature_delta's signature.
func signatureOf(t *testing.T, events []testgw.Event) string {
	t.Helper()
	for _, e := range events {
		var d struct {
			Delta struct{ Type, Signature string }
		}
		if e.Name == "content_block_delta" && json.Unmarshal([]byte(e.Data), &d) == nil && d.Delta.Type == "signature_delta" {
			return d.Delta.Signature
		}
	}
	return ""
}

func wantConverseSummary(sig string) []string {
	return []string{
		"message_start",
		`content_block_start 0 {"type":"thinking","thinking":""}`,
		`thinking_delta 0 "The user wants the weather. I call the tool."`,
		`signature_delta 0 "` + sig + `"`,
		"content_block_stop 0",
		`content_block_start 1 {"type":"text","text":""}`,
		`text_delta 1 "Let me check Paris, 答案 😀."`,
		"content_block_stop 1",
		`content_block_start 2 {"type":"tool_use","id":"tooluse_w1","name":"get_weather","input":{}}`,
		`input_json_delta 2 "{\"city\":\"Paris\"}"`,
		"content_block_stop 2",
		"message_delta tool_use",
		"message_stop",
	}
}

// TestConverseMessage: a non-streaming request goes to /converse; Bedrock's
// document comes back as the Message the stream accumulates to, through
// raw HTTP and the SDK alike.
func TestConverseMessage(t *testing.T) {
	up := testgw.NewBedrockUpstream(t, converseAnswer(nil, 0))
	envCredentials(t, up)
	gw := testgw.Start(t, slot, converseSite(up, ""))
	res, body := gw.PostRead("/v1/messages", strings.Replace(converseRequest, `"stream":true,`, "", 1))
	c := up.Last(t)
	checkConverseSigned(t, c, "converse")
	if string(c.Body) != wantConverseBody {
		t.Errorf("body\n%s\nwant\n%s", c.Body, wantConverseBody)
	}
	var msg anthropic.Message
	if res.StatusCode != 200 || json.Unmarshal([]byte(body), &msg) != nil {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	sig := msg.Content[0].Signature
	want := `{"id":"` + msg.ID + `","type":"message","role":"assistant","model":"deepseek","content":[` +
		`{"type":"thinking","thinking":"The user wants the weather. I call the tool.","signature":"` + sig + `"},` +
		`{"type":"text","text":"Let me check Paris, 答案 😀."},` +
		`{"type":"tool_use","id":"tooluse_w1","name":"get_weather","input":{"city":"Paris"}}],` +
		`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":31,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":58}}`
	if body != want || !strings.HasPrefix(msg.ID, "msg_") || strings.Contains(sig, converseSig) {
		t.Errorf("message\n%s\nwant\n%s", body, want)
	}

	client := gw.Client()
	p := converseParams()
	got, err := client.Messages.New(context.Background(), p)
	if err != nil {
		t.Fatalf("SDK: %v", err)
	}
	checkConverseMessage(t, *got, sig, "deepseek")
}

// TestConverseCountTokens: count_tokens goes to /count-tokens with the
// Converse conversion inside; the answer is Anthropic's.
func TestConverseCountTokens(t *testing.T) {
	up := testgw.NewBedrockUpstream(t, converseAnswer(nil, 0))
	envCredentials(t, up)
	gw := testgw.Start(t, slot, converseSite(up, ""))
	res, body := gw.PostRead("/v1/messages/count_tokens", `{"model":"deepseek","system":"Be brief.","messages":[{"role":"user","content":"Hi"}]}`)
	if res.StatusCode != 200 || body != `{"input_tokens":17}` {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	c := up.Last(t)
	checkConverseSigned(t, c, "count-tokens")
	const want = `{"input":{"converse":{"messages":[{"role":"user","content":[{"text":"Hi"}]}],"system":[{"text":"Be brief."}]}}}`
	if string(c.Body) != want {
		t.Errorf("body\n%s\nwant\n%s", c.Body, want)
	}
	client := gw.Client()
	n, err := client.Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{
		Model:    "deepseek",
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hi"))},
	})
	if err != nil || n.InputTokens != 17 {
		t.Fatalf("SDK: %v %+v", err, n)
	}
}

// TestConverseHistoryRoundTrip: Claude on Converse (api converse). The
// first turn's thinking block, sent back with its signature in the second
// turn, reaches Bedrock as the reasoningText Bedrock issued, its
// signature restored exactly; the client's anthropic-beta values reach
// Claude as additionalModelRequestFields.anthropic_beta, not as a header.
func TestConverseHistoryRoundTrip(t *testing.T) {
	frames := converseFrames()
	up := testgw.NewBedrockUpstream(t, converseAnswer(joinFrames(frames), 64))
	envCredentials(t, up)
	gw := testgw.Start(t, slot, fmt.Sprintf("thinkgate bedrock {\n\tregion us-east-1\n\tapi converse\n\tmodel claude-sonnet %s\n}\nreverse_proxy %s", modelID, up.Addr()))

	params := converseParams()
	params.Model = "claude-sonnet"
	first, _ := gw.Stream(params)
	if len(first.Content) != 3 || first.Content[0].Signature == "" {
		t.Fatalf("first turn %+v", first.Content)
	}
	if c := up.Last(t); c.Path != "/model/"+modelID+"/converse-stream" {
		t.Errorf("path %q", c.Path)
	}

	params.Messages = append(params.Messages, first.ToParam(),
		anthropic.NewUserMessage(anthropic.NewToolResultBlock("tooluse_w1", "18°C, sunny", false)))
	// The SDK sends the tool's schema again as it parsed it: its keys in
	// its own order.
	_, _ = gw.Stream(params, optionBeta("interleaved-thinking-2025-05-14,claude-code-20250219"))
	c := up.Last(t)
	checkSigned(t, c, "converse-stream", testgw.BedrockAccessKey)
	want := `{"messages":[{"role":"user","content":[{"text":"Weather in Paris?"}]},` +
		`{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"The user wants the weather. I call the tool.","signature":"` + converseSig + `"}}},` +
		`{"text":"Let me check Paris, 答案 😀."},{"toolUse":{"toolUseId":"tooluse_w1","name":"get_weather","input":{"city":"Paris"}}}]},` +
		`{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_w1","content":[{"text":"18°C, sunny"}]}}]}],` +
		`"inferenceConfig":{"maxTokens":2048},` +
		`"toolConfig":{"tools":[{"toolSpec":{"name":"get_weather","description":"Weather of a city","inputSchema":{"json":{"properties":{"city":{"type":"string"}},"type":"object"}}}}]},` +
		`"additionalModelRequestFields":{"anthropic_beta":["interleaved-thinking-2025-05-14"],"thinking":{"budget_tokens":1024,"type":"enabled"}}}`
	if string(c.Body) != want {
		t.Errorf("body\n%s\nwant\n%s", c.Body, want)
	}
}

// TestConverseExceptionBeforeFirstEvent: an exception frame before any
// event is a real HTTP status with Anthropic's error body.
func TestConverseExceptionBeforeFirstEvent(t *testing.T) {
	for _, tc := range []struct {
		name, message string
		status        int
		body          string
	}{
		{"throttlingException", "Too many tokens, please wait before trying again.", 429,
			`{"type":"error","error":{"type":"rate_limit_error","message":"ThrottlingException: Too many tokens, please wait before trying again."}}`},
		{"validationException", "The model returned the following errors: Malformed input request.", 400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"ValidationException: The model returned the following errors: Malformed input request."}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := testgw.NewBedrockUpstream(t, converseAnswer(testgw.BedrockException(tc.name, tc.message), 3))
			envCredentials(t, up)
			gw := testgw.Start(t, slot, converseSite(up, ""))
			res, body := gw.PostRead("/v1/messages", converseRequest)
			if res.StatusCode != tc.status || body != tc.body {
				t.Fatalf("%d %s\nwant %d %s", res.StatusCode, body, tc.status, tc.body)
			}
			checkConverseSigned(t, up.Last(t), "converse-stream")
		})
	}
}

// TestConverseStreamEndsWithError: an exception inside the text, or an
// upstream that stops inside a frame, closes the open block and ends the
// client's stream with an error event that says what happened.
func TestConverseStreamEndsWithError(t *testing.T) {
	frames := converseFrames()
	for _, tc := range []struct {
		name     string
		upstream []byte
		text     string
		err      string
	}{
		{"exception", append(joinFrames(frames[:6]), testgw.BedrockException("modelStreamErrorException", "The model stream failed.")...),
			"Let me check ", `{"type":"api_error","message":"ModelStreamErrorException: The model stream failed."}`},
		{"cut inside a frame", append(joinFrames(frames[:7]), frames[7][:30]...),
			"Let me check Paris, 答案 😀.", `{"type":"api_error","message":"malformed upstream event stream: event stream ended inside a frame (30 bytes of it received)"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := testgw.NewBedrockUpstream(t, converseAnswer(tc.upstream, 5))
			envCredentials(t, up)
			gw := testgw.Start(t, slot, converseSite(up, ""))
			res := gw.Post("/v1/messages", converseRequest)
			defer res.Body.Close()
			events := testgw.ReadEvents(t, res.Body)
			testgw.Diff(t, "events", testgw.Summary(t, events), append(wantConverseSummary(signatureOf(t, events))[:6:6],
				"text_delta 1 "+strconv.Quote(tc.text), "content_block_stop 1", "error "+tc.err))
		})
	}
}

// TestConverseManyBlocks: a request of more content blocks than a body of
// its size was allowed before (1,000 and one per 512 bytes of body: about
// 1,260 here) converts, each block as it was read: 5,000 one-letter text
// blocks become 5,000 Converse text blocks in one user turn, in order, and
// a tool call of a history without tools goes as the assistant's text.
func TestConverseManyBlocks(t *testing.T) {
	up := testgw.NewBedrockUpstream(t, converseAnswer(nil, 0))
	envCredentials(t, up)
	gw := testgw.Start(t, slot, converseSite(up, ""))
	var blocks, want strings.Builder
	for i := range 5000 {
		if i > 0 {
			blocks.WriteByte(',')
			want.WriteByte(',')
		}
		letter := string(rune('a' + i%26))
		blocks.WriteString(`{"type":"text","text":"` + letter + `"}`)
		want.WriteString(`{"text":"` + letter + `"}`)
	}
	req := `{"model":"deepseek","max_tokens":100,"messages":[{"role":"user","content":"Go"},` +
		`{"role":"assistant","content":[{"type":"text","text":"Calling."},{"type":"tool_use","id":"t1","name":"f","input":{"q":"<\"x\">"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"done"},` + blocks.String() + `]}]}`
	res, body := gw.PostRead("/v1/messages", req)
	if res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	c := up.Last(t)
	checkConverseSigned(t, c, "converse")
	wantBody := `{"messages":[{"role":"user","content":[{"text":"Go"}]},` +
		`{"role":"assistant","content":[{"text":"Calling.[called tool f (t1) with {\"q\":\"<\\\"x\\\">\"}]"}]},` +
		`{"role":"user","content":[{"text":"[tool result for t1]"},{"text":"done"},` + want.String() + `]}],"inferenceConfig":{"maxTokens":100}}`
	if string(c.Body) != wantBody {
		t.Errorf("body\n%.600s\nwant\n%.600s", c.Body, wantBody)
	}
}
