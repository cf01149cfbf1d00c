package responses

import (
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	rt "github.com/thinkgate/thinkgate/providers/responses/responsestest"
)

const (
	partOne = "**Recalling the alphabet**\n\nThe user asks for the first three letters."
	partTwo = "**Answering**\n\nThey are A, B and C."
	enc1    = "gAAAAABoEncryptedReasoningOne=="
	answer  = "The first three letters are A, B and C."
)

type streamCase struct {
	name     string
	settings func(*providers.Settings)
	state    *State
	upstream []byte
	want     []string
	wantErr  string
}

func TestStream(t *testing.T) {
	long := "mcp__weather-server.v2__get_current_conditions_for_a_city_by_name"
	var st State
	short := st.Shorten(long)
	done := "message_stop"
	cases := []streamCase{
		{
			name: "reasoning summary parts, text, usage",
			upstream: rt.New("resp_1", "gpt-5").Reasoning("rs_1", enc1, []string{partOne, partTwo}, 5).
				Message("msg_1", answer, 4).Completed(rt.Usage(120, 100, 80, 64)).Bytes(),
			want: ssetest.Seq(ssetest.ThinkingBlock(0, partOne+"\n\n"+partTwo, respSig("rs_1", enc1, partOne+"\n\n"+partTwo)), ssetest.TextBlock(1, answer),
				line("message_delta end_turn null "+ssetest.UsageJSON(20, 80, 100), done)),
		},
		{
			name: "reasoning without summary but encrypted: redacted_thinking",
			upstream: rt.New("resp_1", "o4-mini").Reasoning("rs_2", "gAAAAsecret", nil, 0).
				Call("fc_1", "call_abc", "get_weather", `{"city":`, `"Paris"}`).Completed(rt.Usage(50, 0, 30, 20)).Bytes(),
			want: ssetest.Seq(ssetest.RedactedBlock(0, testSigner.Sign(emit.OriginResponses, "rs_2\ngAAAAsecret", "")),
				ssetest.ToolBlock(1, "call_abc", "get_weather", `{"city":"Paris"}`), line("message_delta tool_use null "+ssetest.UsageJSON(50, 30, 0), done)),
		},
		{
			name:     "reasoning with neither summary nor encrypted content: nothing",
			upstream: rt.New("resp_1", "o3").Reasoning("rs_3", "", nil, 0).Message("msg_1", "Hi.", 0).Completed(rt.Usage(5, 0, 9, 6)).Bytes(),
			want:     ssetest.Seq(ssetest.TextBlock(0, "Hi."), line("message_delta end_turn null "+ssetest.UsageJSON(5, 9, 0), done)),
		},
		{
			name: "two reasoning items around a call: one block each",
			upstream: rt.New("resp_1", "gpt-5").Reasoning("rs_a", "encA", []string{"First."}, 0).
				Call("fc_1", "call_1", "a", `{}`).Reasoning("rs_b", "encB", []string{"Second."}, 0).
				Call("fc_2", "call_2", "b", `{"n":`, `1}`).Completed(rt.Usage(1, 0, 2, 1)).Bytes(),
			want: ssetest.Seq(ssetest.ThinkingBlock(0, "First.", respSig("rs_a", "encA", "First.")), ssetest.ToolBlock(1, "call_1", "a", `{}`),
				ssetest.ThinkingBlock(2, "Second.", respSig("rs_b", "encB", "Second.")), ssetest.ToolBlock(3, "call_2", "b", `{"n":1}`),
				line("message_delta tool_use null "+ssetest.UsageJSON(1, 2, 0), done)),
		},
		{
			name:     "shortened tool name mapped back",
			state:    &st,
			upstream: rt.New("resp_1", "gpt-5").Call("fc_1", "call_9", short, `{"city":"Oslo"}`).Completed(rt.Usage(1, 0, 1, 0)).Bytes(),
			want:     ssetest.Seq(ssetest.ToolBlock(0, "call_9", long, `{"city":"Oslo"}`), line("message_delta tool_use null "+ssetest.UsageJSON(1, 1, 0), done)),
		},
		{
			name: "arguments only in output_item.done",
			upstream: rt.New("resp_1", "gpt-5").Event("response.output_item.done", map[string]any{"output_index": 0,
				"item": map[string]any{"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "f", "arguments": `{"x":1}`}}).
				Completed(nil).Bytes(),
			want: ssetest.Seq(ssetest.ToolBlock(0, "call_1", "f", `{"x":1}`), line("message_delta tool_use null "+ssetest.UsageJSON(0, 0, 0), done)),
		},
		{
			name:     "incomplete: max_output_tokens",
			upstream: rt.New("resp_1", "gpt-5").Reasoning("rs_1", enc1, []string{"Long"}, 0).Message("msg_1", "A, B", 0).Incomplete("max_output_tokens", rt.Usage(9, 0, 16, 12)).Bytes(),
			want: ssetest.Seq(ssetest.ThinkingBlock(0, "Long", respSig("rs_1", enc1, "Long")), ssetest.TextBlock(1, "A, B"),
				line("message_delta max_tokens null "+ssetest.UsageJSON(9, 16, 0), done)),
		},
		{
			name:     "incomplete: content_filter",
			upstream: rt.New("resp_1", "gpt-5").Message("msg_1", "I can", 0).Incomplete("content_filter", nil).Bytes(),
			want:     ssetest.Seq(ssetest.TextBlock(0, "I can"), line("message_delta refusal null "+ssetest.UsageJSON(0, 0, 0), done)),
		},
		{
			name: "refusal",
			upstream: rt.New("resp_1", "gpt-5").Event("response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{"id": "msg_1", "type": "message", "content": []any{}}}).
				Event("response.refusal.delta", map[string]any{"item_id": "msg_1", "delta": "I can't help"}).
				Event("response.refusal.delta", map[string]any{"item_id": "msg_1", "delta": " with that."}).
				Event("response.output_item.done", map[string]any{"output_index": 0, "item": map[string]any{"id": "msg_1", "type": "message"}}).Completed(nil).Bytes(),
			want: ssetest.Seq(ssetest.TextBlock(0, "I can't help with that."), line("message_delta refusal null "+ssetest.UsageJSON(0, 0, 0), done)),
		},
		{
			name:     "response.failed after text: error event",
			upstream: rt.New("resp_1", "gpt-5").Message("msg_1", "Partial", 0).Failed("server_error", "The server had an error processing your request.").Bytes(),
			want:     ssetest.Seq(ssetest.TextBlock(0, "Partial"), line(`error {"type":"api_error","message":"The server had an error processing your request."}`)),
			wantErr:  "The server had an error",
		},
		{
			name:     "error event: rate limit",
			upstream: rt.New("resp_1", "gpt-5").Reasoning("rs_1", "", []string{"Thin"}, 0).Error("rate_limit_exceeded", "Rate limit reached.").Bytes(),
			want: ssetest.Seq(line(`content_block_start 0 {"type":"thinking","thinking":""}`, `thinking_delta 0 "Thin"`, `signature_delta 0 `+q(respSig("rs_1", "", "Thin")), "content_block_stop 0"),
				line(`error {"type":"rate_limit_error","message":"Rate limit reached."}`)),
			wantErr: "Rate limit reached.",
		},
		{
			name:     "cut before the final event",
			upstream: rt.New("resp_1", "gpt-5").Reasoning("rs_1", enc1, []string{"Cut"}, 0).Message("msg_1", "Half an ans", 3).Bytes(),
			want: ssetest.Seq(ssetest.ThinkingBlock(0, "Cut", respSig("rs_1", enc1, "Cut")), ssetest.TextBlock(1, "Half an ans"),
				line(`error {"type":"api_error","message":"upstream stream ended without response.completed: the response is incomplete"}`)),
			wantErr: "without response.completed",
		},
		{
			name:     "cut inside a reasoning item: the block closes unsigned by the upstream",
			upstream: []byte(strings.SplitAfter(string(rt.New("r", "m").Reasoning("rs_1", enc1, []string{"Half"}, 0).Bytes()), "response.reasoning_summary_text.done")[0]),
			want: ssetest.Seq(ssetest.ThinkingBlock(0, "Half", testSigner.Sign(emit.OriginTags, "", "Half")),
				line(`error {"type":"api_error","message":"upstream stream ended without response.completed: the response is incomplete"}`)),
			wantErr: "without response.completed",
		},
		{
			name:     "not JSON",
			upstream: []byte("event: response.output_text.delta\ndata: <html>\n\n"),
			want:     line(`error {"type":"api_error","message":"malformed upstream response: event is not a JSON object: \u003chtml\u003e"}`),
			wantErr:  "not a JSON object",
		},
		{
			name:     "a delta with an escape JSON does not define",
			upstream: rt.New("r", "m").Message("msg_1", "ok ", 0).Raw("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"delta\":\"bad \\q\"}\n\n").Bytes(),
			want:     ssetest.Seq(ssetest.TextBlock(0, "ok "), line(`error {"type":"api_error","message":"malformed upstream response: event holds a malformed string escape"}`)),
			wantErr:  "malformed string escape",
		},
		{
			name: "escapes and a lone surrogate decode as JSON defines; [DONE] after the end is ignored",
			upstream: rt.New("r", "m").Raw("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"\\u00e9\\n\\ud800!\"}\n\n").
				Completed(nil).Raw("data: [DONE]\n\n").Bytes(),
			want: ssetest.Seq(ssetest.TextBlock(0, "é\n\uFFFD!"), line("message_delta end_turn null "+ssetest.UsageJSON(0, 0, 0), done)),
		},
		{
			name: "arguments for a call that is not open",
			upstream: rt.New("r", "m").Call("fc_1", "call_1", "f", "{}").
				Event("response.function_call_arguments.delta", map[string]any{"item_id": "fc_1", "output_index": 0, "delta": "{}"}).Bytes(),
			want:    ssetest.Seq(ssetest.ToolBlock(0, "call_1", "f", "{}"), line(`error {"type":"api_error","message":"malformed upstream response: function call arguments for an item that is not open"}`)),
			wantErr: "not open",
		},
		{
			name:     "split_tags on: tags in the text become thinking",
			settings: func(s *providers.Settings) { s.SplitTags = true },
			upstream: rt.New("resp_1", "gpt-4.1").Message("msg_1", "Hm <thinking>plan</thinking>Done.", 2).Completed(nil).Bytes(),
			want: ssetest.Seq(ssetest.TextBlock(0, "Hm "), ssetest.ThinkingBlock(1, "plan", testSigner.Sign(emit.OriginTags, "", "plan")), ssetest.TextBlock(2, "Done."),
				line("message_delta end_turn null "+ssetest.UsageJSON(0, 0, 0), done)),
		},
		{
			name:     "thinking_block text: summaries as text, no signature",
			settings: func(s *providers.Settings) { s.Form = emit.FormText },
			upstream: rt.New("resp_1", "gpt-5").Reasoning("rs_1", enc1, []string{"A", "B"}, 0).Reasoning("rs_2", enc1, nil, 0).Message("msg_1", "C", 0).Completed(nil).Bytes(),
			want:     ssetest.Seq(ssetest.TextBlock(0, "A\n\nB"), ssetest.TextBlock(1, "C"), line("message_delta end_turn null "+ssetest.UsageJSON(0, 0, 0), done)),
		},
	}
	for _, tc := range cases {
		for _, n := range ssetest.WriteSizes {
			s := testSettings()
			if tc.settings != nil {
				tc.settings(s)
			}
			x := exchange(t, s, streamRequest)
			out, err := runStream(t, NewTranslator(x, tc.state), tc.upstream, n)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("%s (writes of %d): error %v, want %q", tc.name, n, err, tc.wantErr)
			}
			got, _ := summary(t, out)
			if len(got) == 0 || got[0] != "message_start" {
				t.Fatalf("%s: first event %v", tc.name, got)
			}
			diff(t, tc.name+" (writes of "+itoa(n)+")", got[1:], tc.want)
		}
	}
}

func itoa(n int) string { return string(jsonbytes.AppendJSONInt(nil, int64(n))) }
