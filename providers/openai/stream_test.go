package openai

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/openai/openaitest"
)

const (
	seedIntro    = "I need to answer the user's question about the first three letters of the alphabet. "
	seedThinking = "Step 1: Identify the user's core question. Step 2: Recall the sequence of the alphabet. It starts with A, B, C. Step 3: Formulate the final answer."
	seedAnswer   = "The first three letters of the alphabet are A, B, and C."
	seedText     = seedIntro + "<thinking>" + seedThinking + "</thinking>" + seedAnswer

	messageStart = `message_start {"id":"msg_test","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}}`
	textStart    = `{"type":"text","text":""}`
	thinkStart   = `{"type":"thinking","thinking":""}`
)

// sig is the gateway's signature of a thinking block it made.
func sig(thinking string) string {
	return emit.NewSigner([]byte(testSigningKey)).Sign(emit.OriginTags, "", thinking)
}

// q is s as the summary writes a text.
func q(s string) string { return ssetest.Quote(s) }

func thinkingBlock(i int, text string) []string {
	return ssetest.ThinkingBlock(i, text, sig(text))
}

func line(s ...string) []string { return s }

type streamCase struct {
	name     string
	request  string
	settings func(*providers.Settings)
	state    func(*State)
	upstream []byte
	want     []string
	wantErr  string // the error Write or Close returns, "" for none
}

func TestStream(t *testing.T) {
	longTool := "mcp__weather-server.v2__get_current_conditions_for_a_city_by_name"
	var shortTool State
	shortName := shortTool.shorten(longTool)

	cases := []streamCase{
		{
			name:     "tags split from content",
			upstream: openaitest.New().Content(seedText, 3).Finish("stop").Usage(21, 87, 5).Done().Bytes(),
			want: ssetest.Seq(line(messageStart), ssetest.TextBlock(0, seedIntro), thinkingBlock(1, seedThinking), ssetest.TextBlock(2, seedAnswer),
				line("message_delta end_turn null "+ssetest.UsageJSON(16, 87, 5), "message_stop")),
		},
		{
			name:     "tags one rune per delta",
			upstream: openaitest.New().Content("答：<thinking>想😀</thinking>A, B, C", 1).Finish("stop").Done().Bytes(),
			want: ssetest.Seq(line(messageStart), ssetest.TextBlock(0, "答："), thinkingBlock(1, "想😀"), ssetest.TextBlock(2, "A, B, C"),
				line("message_delta end_turn null "+ssetest.UsageJSON(0, 0, 0), "message_stop")),
		},
		{
			name: "reasoning_content (DeepSeek)",
			upstream: openaitest.New().ReasoningContent("The user wants ABC.", 4).Content("A, B, C.", 2).
				Finish("stop").Data(`{"id":"1","object":"chat.completion.chunk","created":1,"model":"deepseek-reasoner","choices":[],"usage":{"prompt_tokens":30,"completion_tokens":12,"total_tokens":42,"prompt_cache_hit_tokens":10,"prompt_cache_miss_tokens":20}}`).
				Done().Bytes(),
			want: ssetest.Seq(line(messageStart), thinkingBlock(0, "The user wants ABC."), ssetest.TextBlock(1, "A, B, C."),
				line("message_delta end_turn null "+ssetest.UsageJSON(20, 12, 10), "message_stop")),
		},
		{
			name: "reasoning (vLLM) and tags in the content",
			upstream: openaitest.New().Reasoning("First thought.", 5).Content("Intro <thinking>second thought</thinking>answer", 6).
				Finish("stop").Done().Bytes(),
			want: ssetest.Seq(line(messageStart), thinkingBlock(0, "First thought."), ssetest.TextBlock(1, "Intro "), thinkingBlock(2, "second thought"),
				ssetest.TextBlock(3, "answer"), line("message_delta end_turn null "+ssetest.UsageJSON(0, 0, 0), "message_stop")),
		},
		{
			name: "both reasoning fields mean the same text",
			upstream: openaitest.New().Delta(`{"reasoning_content":"one","reasoning":"one"}`).Delta(`{"reasoning_content":null,"reasoning":null,"content":"two"}`).
				Finish("stop").Done().Bytes(),
			want: ssetest.Seq(line(messageStart), thinkingBlock(0, "one"), ssetest.TextBlock(1, "two"), line("message_delta end_turn null "+ssetest.UsageJSON(0, 0, 0), "message_stop")),
		},
		{
			name: "tool calls one after another (OpenAI)",
			upstream: openaitest.New().Content("Let me check.", 5).
				ToolStart(0, "call_a1", "get_weather").ToolArgs(0, `{"ci`).ToolArgs(0, `ty": "Par`).ToolArgs(0, `is"}`).
				ToolStart(1, "call_b2", "get_time").ToolArgs(1, `{}`).
				Finish("tool_calls").Usage(50, 20, 0).Done().Bytes(),
			want: ssetest.Seq(line(messageStart), ssetest.TextBlock(0, "Let me check."), ssetest.ToolBlock(1, "call_a1", "get_weather", `{"city": "Paris"}`),
				ssetest.ToolBlock(2, "call_b2", "get_time", `{}`), line("message_delta tool_use null "+ssetest.UsageJSON(50, 20, 0), "message_stop")),
		},
		{
			name: "tool calls interleaved by index",
			upstream: openaitest.New().Content("Checking both.", 0).
				ToolStart(0, "call_a", "get_weather").ToolStart(1, "call_b", "get_time").
				ToolArgs(0, `{"city":`).ToolArgs(1, `{"tz":`).ToolArgs(0, `"Paris"}`).ToolArgs(1, `"CET"}`).
				Finish("tool_calls").Done().Bytes(),
			want: ssetest.Seq(line(messageStart), ssetest.TextBlock(0, "Checking both."), ssetest.ToolBlock(1, "call_a", "get_weather", `{"city":"Paris"}`),
				ssetest.ToolBlock(2, "call_b", "get_time", `{"tz":"CET"}`), line("message_delta tool_use null "+ssetest.UsageJSON(0, 0, 0), "message_stop")),
		},
		{
			name: "text while a call is open waits for it, in order",
			upstream: openaitest.New().
				ToolStart(0, "call_a", "a").ToolArgs(0, `{"s":"}{\"`).Content("Note <thin", 0).Content("king>hm</thinking>.", 0).
				ToolStart(1, "call_b", "b").ToolArgs(0, `"}`).ToolArgs(1, `{"n":1}`).Content(" Done.", 0).
				Finish("tool_calls").Done().Bytes(),
			want: ssetest.Seq(line(messageStart), ssetest.ToolBlock(0, "call_a", "a", `{"s":"}{\""}`), ssetest.TextBlock(1, "Note "), thinkingBlock(2, "hm"), ssetest.TextBlock(3, "."),
				ssetest.ToolBlock(4, "call_b", "b", `{"n":1}`), ssetest.TextBlock(5, " Done."), line("message_delta tool_use null "+ssetest.UsageJSON(0, 0, 0), "message_stop")),
		},
		{
			name: "several whole calls in one delta, arguments as an object",
			upstream: openaitest.New().
				Delta(`{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"a","arguments":"{\"x\":1}"}},{"index":1,"id":"c2","type":"function","function":{"name":"b","arguments":{"y":[2]}}}]}`).
				Finish("tool_calls").Done().Bytes(),
			want: ssetest.Seq(line(messageStart), ssetest.ToolBlock(0, "c1", "a", `{"x":1}`), ssetest.ToolBlock(1, "c2", "b", `{"y":[2]}`),
				line("message_delta tool_use null "+ssetest.UsageJSON(0, 0, 0), "message_stop")),
		},
		{
			name: "calls without index, told apart by id",
			upstream: openaitest.New().
				Delta(`{"tool_calls":[{"id":"c1","type":"function","function":{"name":"a","arguments":"{\"x\""}}]}`).
				Delta(`{"tool_calls":[{"function":{"arguments":":1}"}}]}`).
				Delta(`{"tool_calls":[{"id":"c2","type":"function","function":{"name":"b","arguments":"{}"}}]}`).
				Finish("tool_calls").Done().Bytes(),
			want: ssetest.Seq(line(messageStart), ssetest.ToolBlock(0, "c1", "a", `{"x":1}`), ssetest.ToolBlock(1, "c2", "b", `{}`),
				line("message_delta tool_use null "+ssetest.UsageJSON(0, 0, 0), "message_stop")),
		},
		{
			name: "every call numbered 0, told apart by id",
			upstream: openaitest.New().ToolStart(0, "c1", "a").ToolArgs(0, `{"x":1}`).ToolStart(0, "c2", "b").ToolArgs(0, `{"y":`).ToolArgs(0, `2}`).
				Finish("tool_calls").Done().Bytes(),
			want: ssetest.Seq(line(messageStart), ssetest.ToolBlock(0, "c1", "a", `{"x":1}`), ssetest.ToolBlock(1, "c2", "b", `{"y":2}`),
				line("message_delta tool_use null "+ssetest.UsageJSON(0, 0, 0), "message_stop")),
		},
		{
			name:     "shortened tool name mapped back, odd id made safe",
			state:    func(s *State) { s.shorten(longTool) },
			upstream: openaitest.New().ToolStart(0, "chatcmpl-tool:7f.3", shortName).ToolArgs(0, `{"city":"Oslo"}`).Finish("tool_calls").Done().Bytes(),
			want: ssetest.Seq(line(messageStart), ssetest.ToolBlock(0, "chatcmpl-tool_7f_3", longTool, `{"city":"Oslo"}`),
				line("message_delta tool_use null "+ssetest.UsageJSON(0, 0, 0), "message_stop")),
		},
		{
			name:     "forced call ends with stop: still tool_use",
			upstream: openaitest.New().ToolStart(0, "call_1", "a").ToolArgs(0, `{}`).Finish("stop").Done().Bytes(),
			want:     ssetest.Seq(line(messageStart), ssetest.ToolBlock(0, "call_1", "a", `{}`), line("message_delta tool_use null "+ssetest.UsageJSON(0, 0, 0), "message_stop")),
		},
		{
			name:     "length",
			upstream: openaitest.New().Content("A, B", 0).Finish("length").Usage(9, 4, 0).Done().Bytes(),
			want:     ssetest.Seq(line(messageStart), ssetest.TextBlock(0, "A, B"), line("message_delta max_tokens null "+ssetest.UsageJSON(9, 4, 0), "message_stop")),
		},
		{
			name:     "length inside thinking closes the span",
			upstream: openaitest.New().Content("<thinking>Long thou", 0).Finish("length").Done().Bytes(),
			want:     ssetest.Seq(line(messageStart), thinkingBlock(0, "Long thou"), line("message_delta max_tokens null "+ssetest.UsageJSON(0, 0, 0), "message_stop")),
		},
		{
			name:     "content_filter",
			upstream: openaitest.New().Content("I can", 0).Finish("content_filter").Done().Bytes(),
			want:     ssetest.Seq(line(messageStart), ssetest.TextBlock(0, "I can"), line("message_delta refusal null "+ssetest.UsageJSON(0, 0, 0), "message_stop")),
		},
		{
			name:     "refusal field",
			upstream: openaitest.New().Delta(`{"refusal":"I can't help with that."}`).Finish("stop").Done().Bytes(),
			want:     ssetest.Seq(line(messageStart), ssetest.TextBlock(0, "I can't help with that."), line("message_delta refusal null "+ssetest.UsageJSON(0, 0, 0), "message_stop")),
		},
		{
			name:    "stop sequence reported by vLLM",
			request: `{"model":"claude-test","max_tokens":10,"stream":true,"stop_sequences":["END","\n\n"],"messages":[{"role":"user","content":"Hi"}]}`,
			upstream: openaitest.New().Content("A, B, C", 0).
				Data(`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"stop","stop_reason":"\n\n"}]}`).Done().Bytes(),
			want: ssetest.Seq(line(messageStart), ssetest.TextBlock(0, "A, B, C"), line("message_delta stop_sequence \n\n "+ssetest.UsageJSON(0, 0, 0), "message_stop")),
		},
		{
			name:     "no finish_reason",
			upstream: openaitest.New().Content("ok", 0).Done().Bytes(),
			want:     ssetest.Seq(line(messageStart), ssetest.TextBlock(0, "ok"), line("message_delta end_turn null "+ssetest.UsageJSON(0, 0, 0), "message_stop")),
		},
		{
			name:     "split_tags off",
			settings: func(s *providers.Settings) { s.SplitTags = false },
			upstream: openaitest.New().Reasoning("r", 0).Content("a <thinking>b</thinking> c", 4).Finish("stop").Done().Bytes(),
			want: ssetest.Seq(line(messageStart), thinkingBlock(0, "r"), ssetest.TextBlock(1, "a <thinking>b</thinking> c"),
				line("message_delta end_turn null "+ssetest.UsageJSON(0, 0, 0), "message_stop")),
		},
		{
			name:     "thinking_block text",
			settings: func(s *providers.Settings) { s.Form = emit.FormText },
			upstream: openaitest.New().ReasoningContent("r1", 0).Content("<thinking>t</thinking>a", 0).Finish("stop").Done().Bytes(),
			want: ssetest.Seq(line(messageStart), ssetest.TextBlock(0, "r1"), ssetest.TextBlock(1, "t"), ssetest.TextBlock(2, "a"),
				line("message_delta end_turn null "+ssetest.UsageJSON(0, 0, 0), "message_stop")),
		},
		{
			name:     "custom tags",
			settings: func(s *providers.Settings) { s.Parse.Tags = []string{"think"} },
			upstream: openaitest.New().Content("<think>x</think>y<thinking>z</thinking>", 2).Finish("stop").Done().Bytes(),
			want: ssetest.Seq(line(messageStart), thinkingBlock(0, "x"), ssetest.TextBlock(1, "y<thinking>z</thinking>"),
				line("message_delta end_turn null "+ssetest.UsageJSON(0, 0, 0), "message_stop")),
		},
		{
			name: "CRLF, comments and [DONE] without a final blank line",
			upstream: []byte(": OPENROUTER PROCESSING\r\n\r\n" + strings.ReplaceAll(string(openaitest.New().Content("hi", 0).Finish("stop").Bytes()), "\n", "\r\n") +
				"data: [DONE]"),
			want: ssetest.Seq(line(messageStart), ssetest.TextBlock(0, "hi"), line("message_delta end_turn null "+ssetest.UsageJSON(0, 0, 0), "message_stop")),
		},
		{
			name:     "bytes after [DONE] are ignored",
			upstream: append(openaitest.New().Content("hi", 0).Done().Bytes(), "data: {\"error\":{\"message\":\"late\"}}\n\n"...),
			want:     ssetest.Seq(line(messageStart), ssetest.TextBlock(0, "hi"), line("message_delta end_turn null "+ssetest.UsageJSON(0, 0, 0), "message_stop")),
		},
		{
			name:     "missing [DONE] inside thinking",
			upstream: openaitest.New().Content("Hi <thinking>half a thou", 3).Bytes(),
			want: ssetest.Seq(line(messageStart), ssetest.TextBlock(0, "Hi "), thinkingBlock(1, "half a thou"),
				line(`error {"type":"api_error","message":"upstream stream ended without [DONE]: the response is incomplete"}`)),
			wantErr: "api_error: upstream stream ended without [DONE]: the response is incomplete",
		},
		{
			name:     "missing [DONE] after finish_reason and usage",
			upstream: openaitest.New().Content("ok", 0).Finish("stop").Usage(3, 1, 0).Bytes(),
			want:     ssetest.Seq(line(messageStart), ssetest.TextBlock(0, "ok"), line(`error {"type":"api_error","message":"upstream stream ended without [DONE]: the response is incomplete"}`)),
			wantErr:  "api_error: upstream stream ended without [DONE]: the response is incomplete",
		},
		{
			name:     "cut inside tool arguments, a later call queued",
			upstream: openaitest.New().ToolStart(0, "c1", "a").ToolArgs(0, `{"x":`).ToolStart(1, "c2", "b").ToolArgs(1, `{}`).Bytes(),
			want: ssetest.Seq(line(messageStart), ssetest.ToolBlock(0, "c1", "a", `{"x":`), ssetest.ToolBlock(1, "c2", "b", `{}`),
				line(`error {"type":"api_error","message":"upstream stream ended without [DONE]: the response is incomplete"}`)),
			wantErr: "api_error: upstream stream ended without [DONE]: the response is incomplete",
		},
		{
			name: "error object mid-stream: overloaded",
			upstream: openaitest.New().Content("Hello <thinking>wor", 2).
				Data(`{"error":{"message":"The server is overloaded, please try again later.","type":"server_error","param":null,"code":null}}`).Bytes(),
			want: ssetest.Seq(line(messageStart), ssetest.TextBlock(0, "Hello "), thinkingBlock(1, "wor"),
				line(`error {"type":"overloaded_error","message":"The server is overloaded, please try again later."}`)),
			wantErr: "overloaded_error: The server is overloaded, please try again later.",
		},
		{
			name:     "error object mid-stream: OpenRouter rate limit code",
			upstream: openaitest.New().Content("Hel", 0).Data(`{"id":"gen-1","object":"chat.completion.chunk","error":{"code":429,"message":"Rate limit exceeded: free-models-per-min"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`).Bytes(),
			want:     ssetest.Seq(line(messageStart), ssetest.TextBlock(0, "Hel"), line(`error {"type":"rate_limit_error","message":"Rate limit exceeded: free-models-per-min"}`)),
			wantErr:  "rate_limit_error: Rate limit exceeded: free-models-per-min",
		},
		{
			name:     "named error event",
			upstream: []byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\nevent: error\ndata: {\"message\":\"context_length_exceeded\",\"code\":\"context_length_exceeded\"}\n\n"),
			want:     ssetest.Seq(line(messageStart), ssetest.TextBlock(0, "a"), line(`error {"type":"invalid_request_error","message":"prompt is too long: context_length_exceeded"}`)),
			wantErr:  "invalid_request_error: prompt is too long: context_length_exceeded",
		},
		{
			name:     "truncated JSON chunk",
			upstream: []byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[{\"delta\":\n\n"),
			want:     ssetest.Seq(line(messageStart), ssetest.TextBlock(0, "a"), line(`error {"type":"api_error","message":"malformed upstream response: chunk is not valid JSON: {\"choices\":[{\"delta\":"}`)),
			wantErr:  `api_error: malformed upstream response: chunk is not valid JSON: {"choices":[{"delta":`,
		},
		{
			name:     "malformed chunk",
			upstream: []byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: <html>Bad Gateway</html>\n\n"),
			want:     ssetest.Seq(line(messageStart), ssetest.TextBlock(0, "a"), line(`error {"type":"api_error","message":"malformed upstream response: chunk is not a JSON object: \u003chtml\u003eBad Gateway\u003c/html\u003e"}`)),
			wantErr:  "api_error: malformed upstream response: chunk is not a JSON object: <html>Bad Gateway</html>",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, n := range ssetest.WriteSizes {
				s := testSettings()
				if tc.settings != nil {
					tc.settings(s)
				}
				req := tc.request
				if req == "" {
					req = streamRequest
				}
				x := exchange(t, s, req)
				st := &State{}
				if tc.state != nil {
					tc.state(st)
				}
				out, err := runStream(t, NewTranslator(x, st, 0), tc.upstream, n)
				gotErr := ""
				if err != nil {
					gotErr = err.Error()
				}
				if gotErr != tc.wantErr {
					t.Errorf("write size %d: error %q, want %q", n, gotErr, tc.wantErr)
				}
				got, _ := summary(t, out)
				diff(t, fmt.Sprintf("write size %d", n), got, tc.want)
				if t.Failed() {
					return
				}
			}
		})
	}
}

// TestStreamUsageRecorded: the exchange's usage, for logs and metrics, is
// the upstream's final one.
func TestStreamUsageRecorded(t *testing.T) {
	x := exchange(t, nil, streamRequest)
	if _, err := runStream(t, NewTranslator(x, nil, 0), openaitest.New().Content("a", 0).Finish("stop").Usage(100, 7, 40).Done().Bytes(), 5); err != nil {
		t.Fatal(err)
	}
	if want := (emit.Usage{InputTokens: 60, OutputTokens: 7, CacheReadInputTokens: 40}); x.Usage != want {
		t.Errorf("usage %+v, want %+v", x.Usage, want)
	}
}

// TestStreamSDKMessage: what the official SDK accumulates from a mixed
// stream is the message a client expects.
func TestStreamSDKMessage(t *testing.T) {
	x := exchange(t, nil, streamRequest)
	up := openaitest.New().ReasoningContent("plan", 1).Content("Sure.<thinking>more</thinking>", 1).
		ToolStart(0, "call_1", "Bash").ToolArgs(0, `{"command":"ls -la"}`).Finish("tool_calls").Usage(10, 5, 0).Done().Bytes()
	out, err := runStream(t, NewTranslator(x, nil, 0), up, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, msg := summary(t, out)
	if len(msg.Content) != 4 || msg.Content[0].Thinking != "plan" || msg.Content[1].Text != "Sure." || msg.Content[2].Thinking != "more" ||
		msg.Content[3].Name != "Bash" || string(msg.Content[3].Input) != `{"command":"ls -la"}` || msg.StopReason != "tool_use" ||
		msg.Usage.InputTokens != 10 || msg.Usage.OutputTokens != 5 || msg.ID != "msg_test" || msg.Model != "claude-test" {
		t.Errorf("message %+v", msg)
	}
	for _, i := range []int{0, 2} {
		if _, _, ok := x.Settings.Signer.Open(msg.Content[i].Signature, msg.Content[i].Thinking); !ok {
			t.Errorf("block %d signature %q does not verify", i, msg.Content[i].Signature)
		}
	}
}

func TestJSONEnd(t *testing.T) {
	for _, tc := range []struct {
		in       string
		complete bool
	}{
		{`{}`, true},
		{`{"a":"}"}`, true},
		{`{"a":"\"}"}`, true},
		{`{"a":"\\"}`, true},
		{`{"a":[1,{"b":2}]}`, true},
		{`{"a":[1,{"b":2}]`, false},
		{`{"a":"\\\"}`, false},
		{``, false},
		{`  `, false},
	} {
		for _, split := range []int{1, 2, 5} {
			var j jsonEnd
			for i := 0; i < len(tc.in); i += split {
				j.feed([]byte(tc.in[i:min(i+split, len(tc.in))]))
			}
			if j.complete != tc.complete {
				t.Errorf("%q split %d: complete %v", tc.in, split, j.complete)
			}
		}
	}
}
