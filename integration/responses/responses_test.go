// Package responses_test runs the responses provider through a real Caddy:
// the official Anthropic Go SDK (or raw HTTP where the exact bytes matter)
// in front, an httptest upstream speaking the Responses API's event
// streams behind.
package responses_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/internal/testgw"
	"github.com/thinkgate/thinkgate/providers/emit"
	rt "github.com/thinkgate/thinkgate/providers/responses/responsestest"
)

const signingKey = "test-signing-key"

var signer = emit.NewSigner([]byte(signingKey))

func site(options string, up *testgw.Upstream) string {
	return fmt.Sprintf("thinkgate responses {\n\tapi_key sk-upstream\n\tsigning_key %s\n%s\n}\nreverse_proxy %s", signingKey, options, up.Addr())
}

func q(s string) string { b, _ := json.Marshal(s); return string(b) }

func events(t *testing.T, gw *testgw.Gateway, path, body string, headers ...string) []string {
	t.Helper()
	res := gw.Post(path, body, headers...)
	defer res.Body.Close()
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("status %d: %s", res.StatusCode, b)
	}
	return testgw.Summary(t, testgw.ReadEvents(t, res.Body))
}

// upstream answers the i-th request with answers[i] (the last one after
// that), as an event stream written in pieces of n bytes, or as JSON when
// the request did not ask for a stream.
func upstream(t *testing.T, n int, answers ...*rt.Builder) *testgw.Upstream {
	calls := 0
	return testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		b := answers[min(calls, len(answers)-1)]
		calls++
		var req struct {
			Stream bool `json:"stream"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			w.Write(b.Response("completed", rt.Usage(300, 200, 90, 70)))
			return
		}
		testgw.WriteChunks(w, "text/event-stream; charset=utf-8", b.Bytes(), n)
	})
}

const (
	summary1 = "**Choosing a tool**\n\nThe user wants the weather in Paris; get_weather answers that."
	summary2 = "**Calling it**\n\nOne call with city Paris."
	enc1     = "gAAAAABo-encrypted-reasoning-one"
	enc2     = "gAAAAABo-encrypted-reasoning-two"
)

func weatherTool() anthropic.ToolUnionParam {
	return anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{
		Name:        "get_weather",
		Description: anthropic.String("Current weather for a city"),
		InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}, Required: []string{"city"}},
	}}
}

// TestReasoningAcrossToolCalls: a gpt-5 turn with a reasoning summary in two
// parts, a reasoning item without a summary, text and a function call
// reaches the client as a signed thinking block (the parts separated by a
// blank line), a redacted_thinking block, text and tool_use, whatever the
// upstream's byte splits; the SDK accumulates it; and when the SDK sends
// the turn back with the tool's result, the upstream receives both
// reasoning items again (id, summary, encrypted_content) before the call,
// then the call's output — exactly testdata/turn2.upstream.json.
func TestReasoningAcrossToolCalls(t *testing.T) {
	turn1 := rt.New("resp_1", "gpt-5").Reasoning("rs_1", enc1, []string{summary1, summary2}, 6).
		Reasoning("rs_2", enc2, nil, 0).Message("msg_1", "Let me check the weather.", 3).
		Call("fc_1", "call_Paris1", "get_weather", `{"ci`, `ty":"Pa`, `ris"}`).Completed(rt.Usage(1200, 1024, 250, 180))
	turn2 := rt.New("resp_2", "gpt-5").Message("msg_2", "It is 18°C in Paris.", 4).Completed(rt.Usage(1500, 1024, 12, 0))
	thinking := summary1 + "\n\n" + summary2
	for _, n := range []int{1, 7, 64, 1 << 16} {
		t.Run(fmt.Sprintf("writes of %d", n), func(t *testing.T) {
			up := upstream(t, n, turn1, turn2)
			gw := testgw.Start(t, testgw.SlotResponses, site("", up))
			params := anthropic.MessageNewParams{
				Model:     "gpt-5",
				MaxTokens: 16000, // above the budget, as Anthropic requires
				Thinking:  anthropic.ThinkingConfigParamOfEnabled(10000),
				Tools:     []anthropic.ToolUnionParam{weatherTool()},
				Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What is the weather in Paris?"))},
			}
			msg, _ := gw.Stream(params)
			if len(msg.Content) != 4 {
				t.Fatalf("content %+v", msg.Content)
			}
			if c := msg.Content[0]; c.Type != "thinking" || c.Thinking != thinking || c.Signature != signer.Sign(emit.OriginResponses, "rs_1\n"+enc1, thinking) {
				t.Errorf("block 0 %+v", c)
			}
			if c := msg.Content[1]; c.Type != "redacted_thinking" || c.Data != signer.Sign(emit.OriginResponses, "rs_2\n"+enc2, "") {
				t.Errorf("block 1 %+v", c)
			}
			if c := msg.Content[2]; c.Type != "text" || c.Text != "Let me check the weather." {
				t.Errorf("block 2 %+v", c)
			}
			if c := msg.Content[3]; c.Type != "tool_use" || c.ID != "call_Paris1" || c.Name != "get_weather" || string(c.Input) != `{"city":"Paris"}` {
				t.Errorf("block 3 %+v", c)
			}
			if msg.StopReason != "tool_use" || msg.Usage.InputTokens != 176 || msg.Usage.CacheReadInputTokens != 1024 || msg.Usage.OutputTokens != 250 {
				t.Errorf("stop %s usage %+v", msg.StopReason, msg.Usage)
			}
			first := up.Last(t)
			if first.Path != "/v1/responses" || first.Header.Get("Authorization") != "Bearer sk-upstream" || first.Header.Get("X-Api-Key") != "" {
				t.Errorf("upstream got %s %v", first.Path, first.Header)
			}
			golden.JSON(t, "turn1.upstream.json", first.Body)

			params.Messages = append(params.Messages, msg.ToParam(),
				anthropic.NewUserMessage(anthropic.NewToolResultBlock("call_Paris1", "18°C, cloudy", false)))
			msg2, _ := gw.Stream(params)
			if len(msg2.Content) != 1 || msg2.Content[0].Text != "It is 18°C in Paris." || msg2.StopReason != "end_turn" {
				t.Errorf("turn 2 %+v", msg2)
			}
			golden.JSON(t, "turn2.upstream.json", up.Last(t).Body)
		})
	}
}

// TestEventSequence: the exact events, once.
func TestEventSequence(t *testing.T) {
	up := upstream(t, 5, rt.New("resp_1", "o4-mini").Reasoning("rs_1", enc1, []string{"A", "B"}, 1).Message("msg_1", "Hi!", 1).
		Completed(rt.Usage(10, 0, 20, 12)))
	gw := testgw.Start(t, testgw.SlotResponses, site("", up))
	got := events(t, gw, "/v1/messages", `{"model":"o4-mini","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`)
	testgw.Diff(t, "events", got, []string{
		"message_start",
		`content_block_start 0 {"type":"thinking","thinking":""}`,
		`thinking_delta 0 "A\n\nB"`,
		"signature_delta 0 " + q(signer.Sign(emit.OriginResponses, "rs_1\n"+enc1, "A\n\nB")),
		"content_block_stop 0",
		`content_block_start 1 {"type":"text","text":""}`,
		`text_delta 1 "Hi!"`,
		"content_block_stop 1",
		"message_delta end_turn",
		"message_stop",
	})
}

// TestNonStreaming: a response object becomes one Message with the same blocks.
func TestNonStreaming(t *testing.T) {
	up := upstream(t, 1, rt.New("resp_1", "gpt-5").Reasoning("rs_1", enc1, []string{summary1}, 0).Message("msg_1", "Sunny.", 0).
		Call("fc_1", "call_1", "get_weather", `{"city":"Oslo"}`))
	gw := testgw.Start(t, testgw.SlotResponses, site("", up))
	client := gw.Client()
	msg, err := client.Messages.New(context.Background(), anthropic.MessageNewParams{
		Model: "gpt-5", MaxTokens: 512, Tools: []anthropic.ToolUnionParam{weatherTool()},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Oslo?"))},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 3 || msg.Content[0].Thinking != summary1 || msg.Content[0].Signature != signer.Sign(emit.OriginResponses, "rs_1\n"+enc1, summary1) ||
		msg.Content[1].Text != "Sunny." || msg.Content[2].ID != "call_1" || string(msg.Content[2].Input) != `{"city":"Oslo"}` {
		t.Errorf("content %+v", msg.Content)
	}
	if msg.StopReason != "tool_use" || msg.Model != "gpt-5" || msg.Usage.InputTokens != 100 || msg.Usage.CacheReadInputTokens != 200 || msg.Usage.OutputTokens != 90 {
		t.Errorf("message %s %s %+v", msg.Model, msg.StopReason, msg.Usage)
	}
	var sent struct {
		Stream    *bool `json:"stream"`
		Reasoning any   `json:"reasoning"`
	}
	_ = json.Unmarshal(up.Last(t).Body, &sent)
	if sent.Stream != nil || sent.Reasoning == nil {
		t.Errorf("upstream body %s", up.Last(t).Body)
	}
}

// TestUpstreamErrors: a non-2xx answer becomes the Anthropic error with its
// status, before any event; the SDK sees it typed.
func TestUpstreamErrors(t *testing.T) {
	for _, tc := range []struct {
		status     int
		body       string
		wantStatus int
		wantBody   string
	}{
		{400, `{"error":{"message":"Unsupported parameter: 'temperature' is not supported with this model.","type":"invalid_request_error","param":"temperature","code":"unsupported_parameter"}}`,
			400, `{"type":"error","error":{"type":"invalid_request_error","message":"Unsupported parameter: 'temperature' is not supported with this model."}}`},
		{400, `{"error":{"message":"Your input exceeds the context window of this model.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`,
			400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: Your input exceeds the context window of this model."}}`},
		{401, `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`,
			401, `{"type":"error","error":{"type":"authentication_error","message":"Incorrect API key provided."}}`},
		{429, `{"error":{"message":"Rate limit reached for gpt-5.","type":"tokens","code":"rate_limit_exceeded"}}`,
			429, `{"type":"error","error":{"type":"rate_limit_error","message":"Rate limit reached for gpt-5."}}`},
		{503, `{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error"}}`,
			529, `{"type":"error","error":{"type":"overloaded_error","message":"The engine is currently overloaded, please try again later"}}`},
	} {
		up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(tc.status)
			io.WriteString(w, tc.body)
		})
		gw := testgw.Start(t, testgw.SlotResponses, site("", up))
		for _, stream := range []bool{true, false} {
			res, got := gw.PostRead("/v1/messages", fmt.Sprintf(`{"model":"gpt-5","max_tokens":64,"stream":%v,"messages":[{"role":"user","content":"Hi"}]}`, stream))
			if res.StatusCode != tc.wantStatus || got != tc.wantBody || res.Header.Get("Content-Type") != "application/json" {
				t.Errorf("%d stream=%v: got %d %s, want %d %s", tc.status, stream, res.StatusCode, got, tc.wantStatus, tc.wantBody)
			}
		}
		if tc.status == 429 {
			client := gw.Client()
			_, err := client.Messages.New(context.Background(), anthropic.MessageNewParams{Model: "gpt-5", MaxTokens: 64,
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hi"))}})
			var apiErr *anthropic.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || !strings.Contains(apiErr.Error(), "rate_limit_error") {
				t.Errorf("SDK error %v", err)
			}
		}
	}
}

// TestStreamFailures: an error event, response.failed, a stream that ends
// without its final event and a cut connection all end the stream with the
// open block closed and an error event, which the SDK reports.
func TestStreamFailures(t *testing.T) {
	partial := rt.New("resp_1", "gpt-5").Reasoning("rs_1", enc1, []string{"Plan"}, 2).Message("msg_1", "Hello wor", 2)
	head := []string{
		"message_start",
		`content_block_start 0 {"type":"thinking","thinking":""}`,
		`thinking_delta 0 "Plan"`,
		"signature_delta 0 " + q(signer.Sign(emit.OriginResponses, "rs_1\n"+enc1, "Plan")),
		"content_block_stop 0",
		`content_block_start 1 {"type":"text","text":""}`,
		`text_delta 1 "Hello wor"`,
		"content_block_stop 1",
	}
	partialBytes := func() []byte { return append([]byte(nil), partial.Bytes()...) }
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"error event", func(w http.ResponseWriter, r *http.Request) {
			body := append(partialBytes(), "event: error\ndata: {\"type\":\"error\",\"sequence_number\":99,\"code\":\"server_is_overloaded\",\"message\":\"Our servers are overloaded.\",\"param\":null}\n\n"...)
			testgw.WriteChunks(w, "text/event-stream", body, 11)
		}, `error {"type":"overloaded_error","message":"Our servers are overloaded."}`},
		{"response.failed", func(w http.ResponseWriter, r *http.Request) {
			body := append(partialBytes(), "event: response.failed\ndata: {\"type\":\"response.failed\",\"sequence_number\":99,\"response\":{\"id\":\"resp_1\",\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"The model failed to generate a response.\"},\"output\":[]}}\n\n"...)
			testgw.WriteChunks(w, "text/event-stream", body, 11)
		}, `error {"type":"api_error","message":"The model failed to generate a response."}`},
		{"no final event", func(w http.ResponseWriter, r *http.Request) {
			testgw.WriteChunks(w, "text/event-stream", partialBytes(), 11)
		}, `error {"type":"api_error","message":"upstream stream ended without response.completed: the response is incomplete"}`},
		{"cut connection", func(w http.ResponseWriter, r *http.Request) {
			testgw.WriteChunks(w, "text/event-stream", partialBytes(), 11)
			time.Sleep(50 * time.Millisecond)
			panic(http.ErrAbortHandler) // the server drops the connection mid-body
		}, `error {"type":"api_error","message":"upstream connection lost mid-stream"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := testgw.NewUpstream(t, tc.handler)
			gw := testgw.Start(t, testgw.SlotResponses, site("", up))
			got := events(t, gw, "/v1/messages", `{"model":"gpt-5","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`)
			testgw.Diff(t, "events", got, append(append([]string(nil), head...), tc.want))
			client := gw.Client()
			stream := client.Messages.NewStreaming(context.Background(), anthropic.MessageNewParams{Model: "gpt-5", MaxTokens: 64,
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hi"))}})
			for stream.Next() {
			}
			if err := stream.Err(); err == nil {
				t.Error("SDK stream ended without an error")
			}
			stream.Close()
		})
	}
}

// TestMaxOutputTokens: response.incomplete for max_output_tokens ends with
// stop_reason max_tokens.
func TestMaxOutputTokens(t *testing.T) {
	up := upstream(t, 13, rt.New("resp_1", "gpt-5").Reasoning("rs_1", enc1, []string{"Long thought"}, 3).Incomplete("max_output_tokens", rt.Usage(40, 0, 64, 64)))
	gw := testgw.Start(t, testgw.SlotResponses, site("", up))
	msg, _ := gw.Stream(anthropic.MessageNewParams{Model: "gpt-5", MaxTokens: 2048, Thinking: anthropic.ThinkingConfigParamOfEnabled(1024),
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Prove it."))}})
	if msg.StopReason != "max_tokens" || len(msg.Content) != 1 || msg.Content[0].Thinking != "Long thought" || msg.Usage.OutputTokens != 64 {
		t.Errorf("%s %+v %+v", msg.StopReason, msg.Content, msg.Usage)
	}
	var sent struct {
		MaxOutputTokens int               `json:"max_output_tokens"`
		Reasoning       map[string]string `json:"reasoning"`
	}
	_ = json.Unmarshal(up.Last(t).Body, &sent)
	if sent.MaxOutputTokens != 2048 || sent.Reasoning["effort"] != "low" || sent.Reasoning["summary"] != "auto" {
		t.Errorf("upstream body %s", up.Last(t).Body)
	}
}

// TestCountTokens: count_tokens goes to the input_tokens endpoint beside
// the responses path, and its count comes back in Anthropic's shape.
func TestCountTokens(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"response.input_tokens","input_tokens":42}`)
	})
	gw := testgw.Start(t, testgw.SlotResponses, site("\tpath /openai/v1/responses?api-version=preview", up))
	res, body := gw.PostRead("/v1/messages/count_tokens?beta=true", `{"model":"gpt-5","system":"Be brief.","messages":[{"role":"user","content":"Hi"}]}`)
	if res.StatusCode != 200 || body != `{"input_tokens":42}` {
		t.Errorf("got %d %s", res.StatusCode, body)
	}
	req := up.Last(t)
	if req.Path != "/openai/v1/responses/input_tokens" || req.RawQuery != "api-version=preview" {
		t.Errorf("upstream got %s?%s", req.Path, req.RawQuery)
	}
	want := `{"model":"gpt-5","instructions":"Be brief.","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Hi"}]}],"reasoning":{"effort":"medium","summary":"auto"}}`
	if !golden.EqualJSON(t, req.Body, []byte(want)) {
		t.Errorf("upstream body %s\nwant %s", req.Body, want)
	}
}

// TestOptions: store, reasoning_summary and efforts through the Caddyfile
// reach the upstream request; thinking on without a budget asks for medium.
func TestOptions(t *testing.T) {
	up := upstream(t, 64, rt.New("resp_1", "gpt-5").Message("msg_1", "ok", 0).Completed(nil))
	gw := testgw.Start(t, testgw.SlotResponses, site("\tstore\n\treasoning_summary detailed\n\tefforts minimal:2000 low:8000 high", up))
	for _, tc := range []struct{ thinking, want string }{
		{`{"type":"enabled","budget_tokens":1500}`, `{"effort":"minimal","summary":"detailed"}`},
		{`{"type":"enabled","budget_tokens":8000}`, `{"effort":"low","summary":"detailed"}`},
		{`{"type":"enabled","budget_tokens":9000}`, `{"effort":"high","summary":"detailed"}`},
		{`{"type":"adaptive"}`, `{"effort":"medium","summary":"detailed"}`},
	} {
		events(t, gw, "/v1/messages", `{"model":"gpt-5","max_tokens":16000,"stream":true,"thinking":`+tc.thinking+`,"messages":[{"role":"user","content":"Hi"}]}`)
		var sent struct {
			Reasoning json.RawMessage `json:"reasoning"`
			Store     bool            `json:"store"`
		}
		_ = json.Unmarshal(up.Last(t).Body, &sent)
		if !golden.EqualJSON(t, sent.Reasoning, []byte(tc.want)) || !sent.Store {
			t.Errorf("thinking %s: upstream got %s", tc.thinking, up.Last(t).Body)
		}
	}
	// Thinking off: neither reasoning nor include.
	events(t, gw, "/v1/messages", `{"model":"gpt-5","max_tokens":99,"stream":true,"thinking":{"type":"disabled"},"messages":[{"role":"user","content":"Hi"}]}`)
	if b := up.Last(t).Body; strings.Contains(string(b), `"reasoning"`) || strings.Contains(string(b), `"include"`) {
		t.Errorf("thinking off: upstream got %s", b)
	}
}

// TestReasoningGoesBackOnlyToResponses: a reasoning item's thinking block
// sent to an openai (Chat Completions) upstream carries no id or encrypted
// content there, and a thinking block signed for another origin does not
// become a reasoning item here.
func TestReasoningGoesBackOnlyToResponses(t *testing.T) {
	fromResponses := signer.Sign(emit.OriginResponses, "rs_1\n"+enc1, "plan")
	fromGemini := signer.Sign(emit.OriginGemini, "gemini-sig", "other plan")
	body := `{"model":"gpt-5","max_tokens":99,"stream":true,"messages":[{"role":"user","content":"Hi"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"plan","signature":` + q(fromResponses) + `},{"type":"thinking","thinking":"other plan","signature":` + q(fromGemini) + `},{"type":"text","text":"Hello."}]},` +
		`{"role":"user","content":"Again"}]}`

	up := upstream(t, 64, rt.New("resp_1", "gpt-5").Message("msg_1", "ok", 0).Completed(nil))
	gw := testgw.Start(t, testgw.SlotResponses, site("", up))
	events(t, gw, "/v1/messages", body)
	var sent struct {
		Input []json.RawMessage `json:"input"`
	}
	_ = json.Unmarshal(up.Last(t).Body, &sent)
	if len(sent.Input) != 4 ||
		!golden.EqualJSON(t, sent.Input[1], []byte(`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"plan"}],"encrypted_content":"`+enc1+`"}`)) ||
		!golden.EqualJSON(t, sent.Input[2], []byte(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"<thinking>other plan</thinking>Hello.","annotations":[]}]}`)) {
		t.Errorf("responses upstream got %s", up.Last(t).Body)
	}

	chat := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		testgw.WriteChunks(w, "text/event-stream", []byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"), 64)
	})
	gw = testgw.Start(t, testgw.SlotResponses, fmt.Sprintf("thinkgate openai {\n\tsigning_key %s\n}\nreverse_proxy %s", signingKey, chat.Addr()))
	events(t, gw, "/v1/messages", body)
	if b := string(chat.Last(t).Body); strings.Contains(b, enc1) || strings.Contains(b, "rs_1") || strings.Contains(b, "reasoning\"") {
		t.Errorf("openai upstream got the reasoning item: %s", b)
	}
}
