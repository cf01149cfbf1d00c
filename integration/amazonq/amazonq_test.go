// Package amazonq_test runs the amazonq provider inside a real Caddy, in
// front of an httptest upstream that speaks Amazon Q's wire format: AWS
// binary event-stream frames encoded with aws-sdk-go-v2's own encoder.
package amazonq_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/thinkgate/thinkgate/internal/eventstreamtest"
	"github.com/thinkgate/thinkgate/internal/golden"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/thinkgate/thinkgate/internal/testgw"
	"github.com/thinkgate/thinkgate/providers/amazonq"
)

const eventStreamType = "application/vnd.amazon.eventstream"

// --- the upstream's wire format ---

func event(t testing.TB, typ string, payload any) []byte {
	t.Helper()
	p, ok := payload.(string)
	if !ok {
		b, err := json.Marshal(payload)
		if err != nil {
			t.Fatal(err)
		}
		p = string(b)
	}
	return eventstreamtest.AmazonQEvent(typ, []byte(p))
}

func text(t testing.TB, s string) []byte {
	return event(t, "assistantResponseEvent", map[string]string{"content": s})
}

func exception(t testing.TB, name, message string) []byte {
	b, _ := json.Marshal(map[string]string{"message": message})
	return eventstreamtest.AmazonQException(name, b)
}

func metadata(t testing.TB, in, out int) []byte {
	return event(t, "metadataEvent", fmt.Sprintf(`{"tokenUsage":{"uncachedInputTokens":%d,"outputTokens":%d,"totalTokens":%d}}`, in, out, in+out))
}

// pieces splits s into events of n runes each.
func pieces(t testing.TB, s string, n int) []byte {
	var out [][]byte
	r := []rune(s)
	for i := 0; i < len(r); i += n {
		out = append(out, text(t, string(r[i:min(i+n, len(r))])))
	}
	return bytes.Join(out, nil)
}

func join(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// upstream answers every request with body in writes of chunk bytes.
func upstream(t *testing.T, body []byte, chunk int) *testgw.Upstream {
	return testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		testgw.WriteChunks(w, eventStreamType, body, chunk)
	})
}

const tokenEnv = "THINKGATE_TEST_AMAZONQ_TOKEN"

func site(t *testing.T, options string, up *testgw.Upstream) string {
	t.Setenv(tokenEnv, "q-token")
	return fmt.Sprintf("thinkgate amazonq {\n\tsigning_key test-signing-key\n\tapi_key {env.%s}\n%s\n}\nreverse_proxy %s", tokenEnv, options, up.Addr())
}

// --- the model's answer ---

const (
	intro    = "I need to answer the user's question about the first three letters of the alphabet. "
	thought  = "Step 1: Identify the core question. Step 2: Recall A, B, C. Step 3: Answer."
	answer   = "The first three letters of the alphabet are A, B, and C. 答案 😀"
	modelOut = intro + "<thinking>" + thought + "</thinking>" + answer
)

func answerStream(t testing.TB, runes int) []byte {
	return join(
		pieces(t, modelOut, runes),
		event(t, "messageMetadataEvent", `{"conversationId":"c-1","utteranceId":"u-1"}`),
		metadata(t, 321, 87),
		event(t, "contextUsageEvent", `{"contextUsagePercentage":0.4}`),
	)
}

func userParams() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     "claude-test",
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What are the first three letters of the alphabet?"))},
	}
}

var answerSummary = func(sig string) []string {
	return []string{
		"message_start",
		`content_block_start 0 {"type":"text","text":""}`,
		`text_delta 0 "` + intro + `"`,
		"content_block_stop 0",
		`content_block_start 1 {"type":"thinking","thinking":""}`,
		`thinking_delta 1 "` + thought + `"`,
		`signature_delta 1 "` + sig + `"`,
		"content_block_stop 1",
		`content_block_start 2 {"type":"text","text":""}`,
		`text_delta 2 "` + answer + `"`,
		"content_block_stop 2",
		"message_delta end_turn",
		"message_stop",
	}
}

// TestStream: the answer's frames, cut into writes of every size down to
// one byte, come out as text, thinking (with the gateway's signature) and
// text blocks; the SDK accumulates them; usage is Amazon Q's.
func TestStream(t *testing.T) {
	for _, chunk := range []int{1, 5, 64, 4096} {
		t.Run(fmt.Sprint(chunk), func(t *testing.T) {
			up := upstream(t, answerStream(t, 3), chunk)
			gw := testgw.Start(t, testgw.SlotAmazonQ, site(t, "", up))

			msg, _ := gw.Stream(userParams())
			if len(msg.Content) != 3 || msg.Content[0].Text != intro || msg.Content[1].Thinking != thought ||
				!strings.HasPrefix(msg.Content[1].Signature, "tg1t.") || msg.Content[2].Text != answer {
				t.Fatalf("content: %+v", msg.Content)
			}
			if msg.StopReason != "end_turn" || msg.Usage.InputTokens != 321 || msg.Usage.OutputTokens != 87 ||
				msg.Model != "claude-test" || !strings.HasPrefix(msg.ID, "msg_") {
				t.Errorf("message: stop %q usage %+v model %q id %q", msg.StopReason, msg.Usage, msg.Model, msg.ID)
			}

			res := gw.Post("/v1/messages", `{"model":"claude-test","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"What are the first three letters of the alphabet?"}]}`)
			defer res.Body.Close()
			if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
				t.Fatalf("status %d headers %v", res.StatusCode, res.Header)
			}
			testgw.Diff(t, "events", testgw.Summary(t, testgw.ReadEvents(t, res.Body)), answerSummary(msg.Content[1].Signature))
		})
	}
}

// currentTime matches the template's clock line (inside a JSON string, so
// its line end is the escape \n), which the tests normalise.
var currentTime = regexp.MustCompile(`Current time: [A-Z][a-z]+day, \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d\\n`)

// goldenBody compares an upstream request body with testdata/<name> as JSON
// values, the template's clock line normalised.
func goldenBody(t *testing.T, name string, body []byte) {
	t.Helper()
	if !currentTime.Match(body) {
		t.Errorf("no well-formed Current time line in %s", body)
	}
	got := currentTime.ReplaceAll(body, []byte(`Current time: <now>\n`))
	path := filepath.Join("testdata", name)
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		var buf bytes.Buffer
		if err := json.Indent(&buf, got, "", "  "); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(buf.Bytes(), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden: %v (UPDATE_GOLDEN=1 creates it)", err)
	}
	if !golden.EqualJSON(t, got, want) {
		t.Errorf("upstream body differs from %s:\n%s", path, got)
	}
}

// TestToolRoundTrip: turn 1 streams thinking, text and a tool call split in
// fragments; turn 2 sends the SDK's own history back. The upstream sees
// the documented template, the hint twice, the thinking as tags in history,
// the tool result in the current message, and the same conversationId in
// both turns (from Claude Code's session id in metadata.user_id).
func TestToolRoundTrip(t *testing.T) {
	turn1 := join(
		pieces(t, "<thinking>I should call the weather tool.</thinking>Let me check.", 7),
		event(t, "toolUseEvent", `{"toolUseId":"tooluse_w1","name":"get_weather"}`),
		event(t, "toolUseEvent", `{"toolUseId":"tooluse_w1","input":"{\"city\": "}`),
		event(t, "toolUseEvent", `{"toolUseId":"tooluse_w1","input":"\"Paris\"}"}`),
		event(t, "toolUseEvent", `{"toolUseId":"tooluse_w1","stop":true}`),
		metadata(t, 50, 20),
	)
	turn2 := join(pieces(t, "<thinking>18°C.</thinking>It is 18°C and sunny in Paris.", 5), metadata(t, 90, 12))
	var calls atomic.Int32
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			testgw.WriteChunks(w, eventStreamType, turn1, 3)
		} else {
			testgw.WriteChunks(w, eventStreamType, turn2, 11)
		}
	})
	gw := testgw.Start(t, testgw.SlotAmazonQ, site(t, "\tmodel claude-* CLAUDE_SONNET_4_5_20250929_V1_0", up))

	userID := `{"device_id":"0f1e2d3c","account_uuid":"","session_id":"5b6c7d8e-9fa0-4b1c-8d2e-3f4a5b6c7d8e"}`
	tools := []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
		Name:        "get_weather",
		Description: anthropic.String("Get the current weather for a city."),
		InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}, Required: []string{"city"}},
	}}}
	params := anthropic.MessageNewParams{
		Model:     "claude-sonnet-4-5-20250929",
		MaxTokens: 2048,
		System:    []anthropic.TextBlockParam{{Text: "You are a weather bot."}},
		Metadata:  anthropic.MetadataParam{UserID: anthropic.String(userID)},
		Tools:     tools,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Paris?"))},
	}
	msg, _ := gw.Stream(params)
	if len(msg.Content) != 3 || msg.Content[0].Thinking != "I should call the weather tool." || msg.Content[1].Text != "Let me check." ||
		msg.Content[2].Type != "tool_use" || msg.Content[2].ID != "tooluse_w1" || msg.Content[2].Name != "get_weather" || string(msg.Content[2].Input) != `{"city": "Paris"}` {
		t.Fatalf("turn 1 content: %+v", msg.Content)
	}
	if msg.StopReason != "tool_use" || msg.Model != "claude-sonnet-4-5-20250929" {
		t.Errorf("turn 1: stop %q model %q", msg.StopReason, msg.Model)
	}
	req1 := up.Last(t)
	goldenBody(t, "turn1.json", req1.Body)
	if req1.Path != "/generateAssistantResponse" || req1.RawQuery != "" || req1.Header.Get("Authorization") != "Bearer q-token" ||
		req1.Header.Get("Content-Type") != "application/json" || req1.Header.Get("X-Api-Key") != "" || req1.Header.Get("Anthropic-Version") != "" {
		t.Errorf("turn 1 request: %s?%s %v", req1.Path, req1.RawQuery, req1.Header)
	}

	params.Messages = append(params.Messages, msg.ToParam(),
		anthropic.NewUserMessage(anthropic.NewToolResultBlock("tooluse_w1", "18°C, sunny", false)))
	msg2, _ := gw.Stream(params)
	if len(msg2.Content) != 2 || msg2.Content[0].Thinking != "18°C." || msg2.Content[1].Text != "It is 18°C and sunny in Paris." || msg2.StopReason != "end_turn" {
		t.Fatalf("turn 2: %+v", msg2)
	}
	goldenBody(t, "turn2.json", up.Last(t).Body)
}

// TestCumulative: an upstream that resends the whole text so far in each
// event gives the client the same answer as one that sends deltas.
func TestCumulative(t *testing.T) {
	var frames [][]byte
	r := []rune(modelOut)
	for i := 4; i < len(r)+4; i += 4 {
		frames = append(frames, text(t, string(r[:min(i, len(r))])))
	}
	frames = append(frames, metadata(t, 321, 87))
	up := upstream(t, join(frames...), 13)
	gw := testgw.Start(t, testgw.SlotAmazonQ, site(t, "", up))
	msg, _ := gw.Stream(userParams())
	if len(msg.Content) != 3 || msg.Content[0].Text != intro || msg.Content[1].Thinking != thought || msg.Content[2].Text != answer {
		t.Fatalf("content: %+v", msg.Content)
	}
}

// TestReasoningEvent: Amazon Q's native reasoning becomes a thinking block
// whose signature wraps Amazon Q's own.
func TestReasoningEvent(t *testing.T) {
	body := join(
		event(t, "reasoningContentEvent", `{"text":"Native "}`),
		event(t, "reasoningContentEvent", `{"text":"reasoning."}`),
		event(t, "reasoningContentEvent", `{"signature":"AQ-native-signature"}`),
		text(t, "Done."),
		metadata(t, 1, 2),
	)
	up := upstream(t, body, 7)
	gw := testgw.Start(t, testgw.SlotAmazonQ, site(t, "", up))
	msg, _ := gw.Stream(userParams())
	if len(msg.Content) != 2 || msg.Content[0].Thinking != "Native reasoning." || !strings.HasPrefix(msg.Content[0].Signature, "tg1q.") || msg.Content[1].Text != "Done." {
		t.Fatalf("content: %+v", msg.Content)
	}
}

// TestInterleavedToolCalls: two tool calls whose fragments alternate, with
// text between them, reach the SDK as two whole calls and the text after
// them (docs/thinking.md, "Items that interleave"), streamed and not.
func TestInterleavedToolCalls(t *testing.T) {
	body := join(
		event(t, "toolUseEvent", `{"toolUseId":"tooluse_a","name":"get_weather"}`),
		event(t, "toolUseEvent", `{"toolUseId":"tooluse_a","input":"{\"city\": "}`),
		event(t, "toolUseEvent", `{"toolUseId":"tooluse_b","name":"get_weather"}`),
		text(t, "Checking both."),
		event(t, "toolUseEvent", `{"toolUseId":"tooluse_b","input":"{\"city\": "}`),
		event(t, "toolUseEvent", `{"toolUseId":"tooluse_a","input":"\"Paris\"}"}`),
		event(t, "toolUseEvent", `{"toolUseId":"tooluse_b","input":"\"Rome\"}","stop":true}`),
		event(t, "toolUseEvent", `{"toolUseId":"tooluse_a","stop":true}`),
		event(t, "toolUseEvent", `{"toolUseId":"tooluse_a","input":"{}"}`), // a's call ended: dropped
		metadata(t, 5, 9),
	)
	up := upstream(t, body, 7)
	gw := testgw.Start(t, testgw.SlotAmazonQ, site(t, "", up))
	check := func(how string, msg *anthropic.Message) {
		t.Helper()
		if len(msg.Content) != 3 ||
			msg.Content[0].ID != "tooluse_a" || string(msg.Content[0].Input) != `{"city": "Paris"}` ||
			msg.Content[1].ID != "tooluse_b" || string(msg.Content[1].Input) != `{"city": "Rome"}` ||
			msg.Content[2].Text != "Checking both." || msg.StopReason != "tool_use" {
			t.Fatalf("%s: %+v", how, msg)
		}
	}
	msg, _ := gw.Stream(userParams())
	check("streamed", &msg)
	client := gw.Client()
	whole, err := client.Messages.New(context.Background(), userParams())
	if err != nil {
		t.Fatal(err)
	}
	check("not streamed", whole)
}

// TestNonStreaming: a non-streaming request is answered with one Message
// collected from the upstream's event stream.
func TestNonStreaming(t *testing.T) {
	up := upstream(t, answerStream(t, 2), 10)
	gw := testgw.Start(t, testgw.SlotAmazonQ, site(t, "", up))
	client := gw.Client()
	msg, err := client.Messages.New(context.Background(), userParams())
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 3 || msg.Content[0].Text != intro || msg.Content[1].Thinking != thought || !strings.HasPrefix(msg.Content[1].Signature, "tg1t.") ||
		msg.Content[2].Text != answer || msg.StopReason != "end_turn" || msg.Usage.InputTokens != 321 || msg.Usage.OutputTokens != 87 {
		t.Fatalf("message: %+v", msg)
	}
	res, body := gw.PostRead("/v1/messages", `{"model":"claude-test","max_tokens":10,"messages":[{"role":"user","content":"Q"}]}`)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" || !strings.HasPrefix(body, `{"id":"msg_`) {
		t.Errorf("status %d %s: %s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
}

// TestErrorsBeforeOutput: an exception frame that comes first, an upstream
// error status, a corrupt first frame and a connection cut before any
// output are real HTTP statuses with Anthropic error bodies, for streaming
// and non-streaming requests alike.
func TestErrorsBeforeOutput(t *testing.T) {
	cases := []struct {
		name    string
		handler http.HandlerFunc
		status  int
		body    string
		retry   string
	}{
		{"throttling frame", func(w http.ResponseWriter, r *http.Request) {
			testgw.WriteChunks(w, eventStreamType, join(exception(t, "ThrottlingException", "Too many requests, please wait."), text(t, "never")), 1)
		}, 429, `{"type":"error","error":{"type":"rate_limit_error","message":"ThrottlingException: Too many requests, please wait."}}`, ""},
		{"validation frame", func(w http.ResponseWriter, r *http.Request) {
			testgw.WriteChunks(w, eventStreamType, exception(t, "ValidationException", "Improperly formed request."), 8)
		}, 400, `{"type":"error","error":{"type":"invalid_request_error","message":"ValidationException: Improperly formed request."}}`, ""},
		{"HTTP 400 throttling", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			w.Header().Set("Retry-After", "12")
			w.WriteHeader(400)
			_, _ = w.Write([]byte(`{"__type":"com.amazon.aws.codewhisperer#ThrottlingException","message":"Rate exceeded"}`))
		}, 429, `{"type":"error","error":{"type":"rate_limit_error","message":"ThrottlingException: Rate exceeded"}}`, "12"},
		{"HTTP 403 bad token", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(403)
			_, _ = w.Write([]byte(`{"message":"The bearer token included in the request is invalid.","reason":null}`))
		}, 403, `{"type":"error","error":{"type":"permission_error","message":"The bearer token included in the request is invalid."}}`, ""},
		{"HTTP 400 prompt too long", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			_, _ = w.Write([]byte(`{"message":"Input is too long.","reason":"CONTENT_LENGTH_EXCEEDS_THRESHOLD"}`))
		}, 400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: Input is too long. (CONTENT_LENGTH_EXCEEDS_THRESHOLD)"}}`, ""},
		{"200 with a JSON error", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"__type":"AccessDeniedException","message":"Not subscribed."}`))
		}, 403, `{"type":"error","error":{"type":"permission_error","message":"AccessDeniedException: Not subscribed."}}`, ""},
		{"corrupt first frame", func(w http.ResponseWriter, r *http.Request) {
			f := text(t, "Hello")
			f[len(f)-6] ^= 1
			testgw.WriteChunks(w, eventStreamType, f, 4)
		}, 502, `{"type":"error","error":{"type":"api_error","message":"malformed upstream event stream: frame checksum mismatch"}}`, ""},
		{"empty event stream", func(w http.ResponseWriter, r *http.Request) {
			testgw.WriteChunks(w, eventStreamType, nil, 1)
		}, 502, `{"type":"error","error":{"type":"api_error","message":"upstream returned an empty event stream"}}`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			up := testgw.NewUpstream(t, tc.handler)
			gw := testgw.Start(t, testgw.SlotAmazonQ, site(t, "", up))
			for _, stream := range []bool{true, false} {
				res, body := gw.PostRead("/v1/messages", fmt.Sprintf(`{"model":"m","max_tokens":10,"stream":%v,"messages":[{"role":"user","content":"Q"}]}`, stream))
				if res.StatusCode != tc.status || body != tc.body || res.Header.Get("Content-Type") != "application/json" || res.Header.Get("Retry-After") != tc.retry {
					t.Errorf("stream=%v: got %d %q retry %q\n%s\nwant %d\n%s", stream, res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Retry-After"), body, tc.status, tc.body)
				}
			}
		})
	}
}

// cutUpstream writes body and then drops the connection.
func cutUpstream(t *testing.T, body []byte) *testgw.Upstream {
	return testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", eventStreamType)
		w.WriteHeader(200)
		_, _ = w.Write(body)
		_ = http.NewResponseController(w).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		conn.Close()
	})
}

// TestErrorsAfterOutput: once the answer has begun, an exception frame, a
// corrupt frame or a cut connection closes the open block and ends the
// stream with an error event.
func TestErrorsAfterOutput(t *testing.T) {
	good := text(t, "Partial answer")
	corrupt := text(t, "more")
	corrupt[20] ^= 1
	cases := []struct {
		name string
		up   func(t *testing.T) *testgw.Upstream
		err  string
	}{
		{"exception frame", func(t *testing.T) *testgw.Upstream {
			return upstream(t, join(good, exception(t, "ThrottlingException", "Slow down."), text(t, "never")), 5)
		}, `{"type":"rate_limit_error","message":"ThrottlingException: Slow down."}`},
		{"corrupt frame", func(t *testing.T) *testgw.Upstream {
			return upstream(t, join(good, corrupt), 3)
		}, `{"type":"api_error","message":"malformed upstream event stream: frame checksum mismatch"}`},
		{"cut mid-frame", func(t *testing.T) *testgw.Upstream {
			return cutUpstream(t, join(good, corrupt[:10]))
		}, `{"type":"api_error","message":"upstream connection lost mid-stream"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gw := testgw.Start(t, testgw.SlotAmazonQ, site(t, "", tc.up(t)))
			res := gw.Post("/v1/messages", `{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"Q"}]}`)
			defer res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("status %d", res.StatusCode)
			}
			testgw.Diff(t, "events", testgw.Summary(t, testgw.ReadEvents(t, res.Body)), []string{
				"message_start",
				`content_block_start 0 {"type":"text","text":""}`,
				`text_delta 0 "Partial answer"`,
				"content_block_stop 0",
				"error " + tc.err,
			})
		})
	}
}

// TestCutBeforeOutput: a connection cut inside the first frame is a 502.
func TestCutBeforeOutput(t *testing.T) {
	gw := testgw.Start(t, testgw.SlotAmazonQ, site(t, "", cutUpstream(t, text(t, "Hello")[:15])))
	res, body := gw.PostRead("/v1/messages", `{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"Q"}]}`)
	if res.StatusCode != 502 || body != `{"type":"error","error":{"type":"api_error","message":"upstream connection lost mid-stream"}}` {
		t.Errorf("got %d %s", res.StatusCode, body)
	}
}

// TestProtocolAWS: the official addressing, with profile_arn and origin.
func TestProtocolAWS(t *testing.T) {
	up := upstream(t, answerStream(t, 50), 4096)
	gw := testgw.Start(t, testgw.SlotAmazonQ, site(t, "\tprotocol aws\n\tprofile_arn arn:aws:codewhisperer:us-east-1:123456789012:profile/TEST\n\torigin CLI", up))
	msg, _ := gw.Stream(userParams())
	if len(msg.Content) != 3 {
		t.Fatalf("content: %+v", msg.Content)
	}
	req := up.Last(t)
	if req.Path != "/" || req.Header.Get("X-Amz-Target") != "AmazonCodeWhispererStreamingService.GenerateAssistantResponse" || req.Header.Get("Authorization") != "Bearer q-token" {
		t.Errorf("request %s %v", req.Path, req.Header)
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/x-amz-json-1.0" {
		t.Errorf("Content-Type %q, want application/x-amz-json-1.0", ct)
	}
	var body struct {
		ProfileArn        string `json:"profileArn"`
		ConversationState struct {
			CurrentMessage struct {
				UserInputMessage struct{ Origin string } `json:"userInputMessage"`
			} `json:"currentMessage"`
		} `json:"conversationState"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.ProfileArn != "arn:aws:codewhisperer:us-east-1:123456789012:profile/TEST" || body.ConversationState.CurrentMessage.UserInputMessage.Origin != "CLI" {
		t.Errorf("body %s", req.Body)
	}
}

// TestSplitTagsOff: split_tags off leaves the model's tags in the text, and
// the client's own key is the bearer token when no api_key is set.
func TestSplitTagsOff(t *testing.T) {
	up := upstream(t, answerStream(t, 9), 100)
	gw := testgw.Start(t, testgw.SlotAmazonQ, fmt.Sprintf("thinkgate amazonq {\n\tsplit_tags off\n}\nreverse_proxy %s", up.Addr()))
	msg, _ := gw.Stream(userParams())
	if len(msg.Content) != 1 || msg.Content[0].Text != modelOut {
		t.Fatalf("content: %+v", msg.Content)
	}
	if auth := up.Last(t).Header.Get("Authorization"); auth != "Bearer client-key" {
		t.Errorf("Authorization %q", auth)
	}
}

// TestCountTokens: Amazon Q has no counting endpoint; the gateway counts
// the conversationState the request converts to (integration/tokens has
// the SDK's view) and calls no upstream.
func TestCountTokens(t *testing.T) {
	up := upstream(t, answerStream(t, 9), 100)
	gw := testgw.Start(t, testgw.SlotAmazonQ, site(t, "", up))
	const req = `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"Q"}]}`
	res, body := gw.PostRead("/v1/messages/count_tokens", req)
	if n := len(up.Requests()); n != 0 {
		t.Errorf("upstream got %d requests", n)
	}
	gw.PostRead("/v1/messages", req)
	want := fmt.Sprintf(`{"input_tokens":%d}`, amazonq.CountConversationTokens(up.Last(t).Body))
	if res.StatusCode != 200 || body != want {
		t.Errorf("got %d %s, want %s", res.StatusCode, body, want)
	}
}

// TestConfig: the options adapt to JSON and bad ones are refused by name.
func TestConfig(t *testing.T) {
	p := testgw.PortsFor(testgw.SlotAmazonQ)
	for _, c := range []struct{ site, want string }{
		{"thinkgate amazonq {\n\tregion us-east-1\n}\nrespond ok", "thinkgate amazonq: unknown option 'region'"},
		{"thinkgate amazonq {\n\tprotocol smithy\n}\nrespond ok", `protocol: must be json or aws, got "smithy"`},
		{"thinkgate amazonq {\n\tprofile_arn\n}\nrespond ok", "wrong argument count"},
	} {
		cfg := testgw.Preamble(p) + fmt.Sprintf("http://localhost:%d {\n%s\n}\n", p.HTTP, c.site)
		if got := testgw.LoadError(t, testgw.SlotAmazonQ, cfg); !strings.Contains(got, c.want) {
			t.Errorf("load error %q does not contain %q", got, c.want)
		}
	}
	cfg := ":8080\nthinkgate amazonq {\n\tapi_key {env.Q_TOKEN}\n\tprofile_arn {env.Q_PROFILE}\n\tprotocol aws\n\torigin CLI\n}\nreverse_proxy https://q.us-east-1.amazonaws.com\n"
	out, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cfg), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `"provider":{"api_key":"{env.Q_TOKEN}","name":"amazonq","origin":"CLI","profile_arn":"{env.Q_PROFILE}","protocol":"aws"}`
	if !bytes.Contains(out, []byte(want)) {
		t.Errorf("adapted config lacks %s:\n%s", want, out)
	}
}
