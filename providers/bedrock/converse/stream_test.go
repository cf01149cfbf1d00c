package converse

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

const streamRequest = `{"model":"us.anthropic.claude-sonnet-4-5-20250929-v1:0","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`

// runStream drives the translation the way the response writer does,
// through providertest.OpenStream: upstream bytes in writes of chunk
// bytes, a failed Write or Close ended by Fail. httpErr is the error Fail
// returned for the client to get as an HTTP status (nothing was sent).
func runStream(t testing.TB, x *providers.Exchange, upstream []byte, chunk int) (out []byte, streamErr error, httpErr *wire.Error) {
	t.Helper()
	h := NewTranslator(x, &State{}).Handle(200, http.Header{"Content-Type": {EventStreamType}})
	if h.NewStream == nil {
		t.Fatal("a 2xx event stream is not translated as a stream")
	}
	s := providertest.OpenStream(x, h.NewStream, func(events []byte) { out = append(out, events...) }, 16<<10)
	for p := upstream; len(p) > 0 && streamErr == nil; {
		n := min(chunk, len(p))
		streamErr = s.Write(p[:n])
		p = p[n:]
	}
	if streamErr == nil {
		streamErr = s.Close()
	}
	if streamErr != nil {
		httpErr = s.Fail(streamErr)
	}
	return out, streamErr, httpErr
}

const (
	thought   = "The user greets me. I answer and check the weather."
	claudeSig = "EqQBCkgIBxABGAIiQMt+vR3yS0Y="
	answer    = "Hello! Let me check."
)

func TestStream(t *testing.T) {
	done := "message_stop"
	incomplete := `error {"type":"api_error","message":"upstream stream ended without messageStop: the response is incomplete"}`
	for _, tc := range []struct {
		name     string
		settings func(*providers.Settings)
		request  string
		upstream []byte
		want     []string
		wantErr  string
	}{
		{
			name: "reasoning with a signature, text, a tool call, usage with cache",
			upstream: new(frames).start().reasoning(0, claudeSig, "The user greets me. ", "I answer and check the weather.").
				text(1, "Hello! ", "Let me check.").tool(2, "tooluse_abc", "get_weather", `{"city":`, `"Paris"}`).
				stop("tool_use").metadata(12, 80, 1000, 200).bytes(),
			want: ssetest.Seq(ssetest.ThinkingBlock(0, thought, bedrockSig(claudeSig, thought)), ssetest.TextBlock(1, answer),
				ssetest.ToolBlock(2, "tooluse_abc", "get_weather", `{"city":"Paris"}`),
				line("message_delta tool_use null "+usageJSON(12, 80, 200, 1000), done)),
		},
		{
			name:     "redacted reasoning: redacted_thinking wrapping its content",
			upstream: new(frames).start().redacted(0, "EmwKAhgBEgy3va3pzix/LafPsn4=").text(1, "Done.").stop("end_turn").metadata(5, 9, 0, 0).bytes(),
			want: ssetest.Seq(ssetest.RedactedBlock(0, testSigner.Sign(emit.OriginBedrock, "EmwKAhgBEgy3va3pzix/LafPsn4=", "")), ssetest.TextBlock(1, "Done."),
				line("message_delta end_turn null "+usageJSON(5, 9, 0, 0), done)),
		},
		{
			name:     "reasoning without a signature (DeepSeek-R1): signed with an empty one",
			upstream: new(frames).start().reasoning(0, "", "Think.").text(1, "Answer.").stop("end_turn").metadata(3, 4, 0, 0).bytes(),
			want: ssetest.Seq(ssetest.ThinkingBlock(0, "Think.", bedrockSig("", "Think.")), ssetest.TextBlock(1, "Answer."),
				line("message_delta end_turn null "+usageJSON(3, 4, 0, 0), done)),
		},
		{
			name:     "split_tags on: tags in the text become thinking",
			settings: func(s *providers.Settings) { s.SplitTags = true },
			upstream: new(frames).start().text(0, "Hm <thin", "king>plan</thinking>Done.").stop("end_turn").metadata(1, 2, 0, 0).bytes(),
			want: ssetest.Seq(ssetest.TextBlock(0, "Hm "), ssetest.ThinkingBlock(1, "plan", testSigner.Sign(emit.OriginTags, "", "plan")), ssetest.TextBlock(2, "Done."),
				line("message_delta end_turn null "+usageJSON(1, 2, 0, 0), done)),
		},
		{
			name:     "thinking as text: no signature, no redacted block",
			settings: func(s *providers.Settings) { s.Form = emit.FormText },
			upstream: new(frames).start().reasoning(0, claudeSig, "A").redacted(1, "eA==").text(2, "B").stop("end_turn").metadata(1, 2, 0, 0).bytes(),
			want:     ssetest.Seq(ssetest.TextBlock(0, "A"), ssetest.TextBlock(1, "B"), line("message_delta end_turn null "+usageJSON(1, 2, 0, 0), done)),
		},
		{
			name:     "guardrail: refusal",
			upstream: new(frames).start().text(0, "I can").stop("guardrail_intervened").metadata(1, 2, 0, 0).bytes(),
			want:     ssetest.Seq(ssetest.TextBlock(0, "I can"), line("message_delta refusal null "+usageJSON(1, 2, 0, 0), done)),
		},
		{
			name:     "content filtered: refusal",
			upstream: new(frames).start().text(0, "x").stop("content_filtered").metadata(1, 1, 0, 0).bytes(),
			want:     ssetest.Seq(ssetest.TextBlock(0, "x"), line("message_delta refusal null "+usageJSON(1, 1, 0, 0), done)),
		},
		{
			name:     "max_tokens",
			upstream: new(frames).start().text(0, "A, B").stop("max_tokens").metadata(1, 16, 0, 0).bytes(),
			want:     ssetest.Seq(ssetest.TextBlock(0, "A, B"), line("message_delta max_tokens null "+usageJSON(1, 16, 0, 0), done)),
		},
		{
			name:     "stop_sequence",
			upstream: new(frames).start().text(0, "A").stop("stop_sequence").metadata(1, 1, 0, 0).bytes(),
			want:     ssetest.Seq(ssetest.TextBlock(0, "A"), line("message_delta stop_sequence null "+usageJSON(1, 1, 0, 0), done)),
		},
		{
			name:     "stop_sequence with the one that matched (Claude)",
			upstream: new(frames).start().text(0, "A").event("messageStop", map[string]any{"stopReason": "stop_sequence", "additionalModelResponseFields": map[string]any{"stop_sequence": "END"}}).metadata(1, 1, 0, 0).bytes(),
			want:     ssetest.Seq(ssetest.TextBlock(0, "A"), line("message_delta stop_sequence END "+usageJSON(1, 1, 0, 0), done)),
		},
		{
			name:     "a stop_sequence field that is not a string",
			upstream: new(frames).start().text(0, "A").event("messageStop", map[string]any{"stopReason": "stop_sequence", "additionalModelResponseFields": map[string]any{"stop_sequence": 7}}).bytes(),
			want:     ssetest.Seq(ssetest.TextBlock(0, "A"), line("message_delta stop_sequence null "+usageJSON(0, 0, 0, 0), done)),
		},
		{
			name:     "stop_sequence of a request with one: that one",
			request:  `{"model":"mistral.mistral-large-2407-v1:0","max_tokens":10,"stream":true,"stop_sequences":["###"],"messages":[{"role":"user","content":"Hi"}]}`,
			upstream: new(frames).start().text(0, "A").stop("stop_sequence").bytes(),
			want:     ssetest.Seq(ssetest.TextBlock(0, "A"), line("message_delta stop_sequence ### "+usageJSON(0, 0, 0, 0), done)),
		},
		{
			name:     "context window exceeded",
			upstream: new(frames).start().text(0, "A").stop("model_context_window_exceeded").metadata(1, 1, 0, 0).bytes(),
			want:     ssetest.Seq(ssetest.TextBlock(0, "A"), line("message_delta model_context_window_exceeded null "+usageJSON(1, 1, 0, 0), done)),
		},
		{
			name:     "malformed tool use: the turn ends",
			upstream: new(frames).start().text(0, "A").stop("malformed_tool_use").metadata(1, 1, 0, 0).bytes(),
			want:     ssetest.Seq(ssetest.TextBlock(0, "A"), line("message_delta end_turn null "+usageJSON(1, 1, 0, 0), done)),
		},
		{
			name:     "messageStop without metadata: zero usage",
			upstream: new(frames).start().text(0, "A").stop("end_turn").bytes(),
			want:     ssetest.Seq(ssetest.TextBlock(0, "A"), line("message_delta end_turn null "+usageJSON(0, 0, 0, 0), done)),
		},
		{
			name:     "blocks without contentBlockStop close when the next begins",
			upstream: new(frames).start().event("contentBlockDelta", map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"reasoningContent": map[string]any{"text": "T"}}}).event("contentBlockDelta", map[string]any{"contentBlockIndex": 1, "delta": map[string]any{"text": "X"}}).stop("end_turn").bytes(),
			want:     ssetest.Seq(ssetest.ThinkingBlock(0, "T", bedrockSig("", "T")), ssetest.TextBlock(1, "X"), line("message_delta end_turn null "+usageJSON(0, 0, 0, 0), done)),
		},
		{
			name:     "cut stream: what came, then an error event",
			upstream: new(frames).start().reasoning(0, claudeSig, "Half").text(1, "Half an ans").bytes(),
			want:     ssetest.Seq(ssetest.ThinkingBlock(0, "Half", bedrockSig(claudeSig, "Half")), ssetest.TextBlock(1, "Half an ans"), line(incomplete)),
			wantErr:  "without messageStop",
		},
		{
			name: "cut inside a frame",
			upstream: func() []byte {
				b := new(frames).start().text(0, "Partial").bytes()
				return append(b, new(frames).stop("end_turn").bytes()[:9]...)
			}(),
			want:    ssetest.Seq(ssetest.TextBlock(0, "Partial"), line(`error {"type":"api_error","message":"malformed upstream event stream: event stream ended inside a frame (9 bytes of it received)"}`)),
			wantErr: "inside a frame",
		},
		{
			name:     "exception after the first content: an error event",
			upstream: new(frames).start().event("contentBlockDelta", map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"text": "Par"}}).exception("throttlingException", "Too many tokens, please wait before trying again.").bytes(),
			want:     ssetest.Seq(ssetest.TextBlock(0, "Par"), line(`error {"type":"rate_limit_error","message":"ThrottlingException: Too many tokens, please wait before trying again."}`)),
			wantErr:  "ThrottlingException",
		},
		{
			name:     "model stream error inside a tool call",
			upstream: new(frames).start().event("contentBlockStart", map[string]any{"contentBlockIndex": 0, "start": map[string]any{"toolUse": map[string]any{"toolUseId": "t1", "name": "f"}}}).exception("modelStreamErrorException", "The model failed.").bytes(),
			want: line(`content_block_start 0 {"type":"tool_use","id":"t1","name":"f","input":{}}`, "content_block_stop 0",
				`error {"type":"api_error","message":"ModelStreamErrorException: The model failed."}`),
			wantErr: "ModelStreamErrorException",
		},
		{
			name:     "tool input without a tool call",
			upstream: new(frames).start().event("contentBlockDelta", map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"text": "A"}}).event("contentBlockDelta", map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"toolUse": map[string]any{"input": "{}"}}}).bytes(),
			want:     ssetest.Seq(ssetest.TextBlock(0, "A"), line(`error {"type":"api_error","message":"malformed upstream event stream: tool input for a content block that is not a tool call"}`)),
			wantErr:  "not a tool call",
		},
		{
			name:     "an event that is not JSON",
			upstream: new(frames).start().text(0, "A").frame(map[string]string{":event-type": "contentBlockDelta", ":message-type": "event"}, []byte("<html>")).bytes(),
			want:     ssetest.Seq(ssetest.TextBlock(0, "A"), line(`error {"type":"api_error","message":"malformed upstream event stream: contentBlockDelta event is not a JSON object: \u003chtml\u003e"}`)),
			wantErr:  "not a JSON object",
		},
		{
			name: "a signature past MaxForeign",
			upstream: func() []byte {
				f := new(frames).start().event("contentBlockDelta", map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"reasoningContent": map[string]any{"text": "T"}}})
				piece := strings.Repeat("s", MaxForeign/2)
				for range 3 {
					f.event("contentBlockDelta", map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"reasoningContent": map[string]any{"signature": piece}}})
				}
				return f.bytes()
			}(),
			want: line(`content_block_start 0 {"type":"thinking","thinking":""}`, `thinking_delta 0 "T"`, `signature_delta 0 `+q(bedrockSig(strings.Repeat("s", MaxForeign), "T")), "content_block_stop 0",
				`error {"type":"api_error","message":"malformed upstream response: a reasoning block's signature or redacted content passed 4 MiB"}`),
			wantErr: "passed 4 MiB",
		},
		{
			name:     "unknown event types are skipped",
			upstream: new(frames).start().event("somethingNew", map[string]any{"x": 1}).text(0, "A").stop("end_turn").metadata(1, 1, 0, 0).bytes(),
			want:     ssetest.Seq(ssetest.TextBlock(0, "A"), line("message_delta end_turn null "+usageJSON(1, 1, 0, 0), done)),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, n := range []int{1, 2, 3, 7, 64, 1 << 20} {
				if len(tc.upstream) > 1<<20 && n < 64 {
					continue // megabytes a byte at a time prove nothing more
				}
				s := testSettings()
				if tc.settings != nil {
					tc.settings(s)
				}
				request := streamRequest
				if tc.request != "" {
					request = tc.request
				}
				x := exchange(t, s, "", request)
				out, err, httpErr := runStream(t, x, tc.upstream, n)
				if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
					t.Fatalf("writes of %d: error %v, want %q", n, err, tc.wantErr)
				}
				if httpErr != nil {
					t.Fatalf("writes of %d: an HTTP error after content: %v", n, httpErr)
				}
				got, _ := summary(t, out)
				if len(got) == 0 || got[0] != "message_start" {
					t.Fatalf("first event %v", got)
				}
				providertest.Diff(t, tc.name+" (writes of "+strconv.Itoa(n)+")", got[1:], tc.want)
			}
		})
	}
}

// An exception before any content is the client's HTTP status and body:
// nothing was sent yet.
func TestStreamExceptionBeforeContent(t *testing.T) {
	for _, tc := range []struct {
		name     string
		upstream []byte
		status   int
		body     string
	}{
		{"throttling", new(frames).start().exception("throttlingException", "Too many requests, please wait before trying again.").bytes(),
			429, `{"type":"error","error":{"type":"rate_limit_error","message":"ThrottlingException: Too many requests, please wait before trying again."}}`},
		{"validation, prompt too long", new(frames).exception("validationException", "Input is too long for requested model.").bytes(),
			400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: Input is too long for requested model. (ValidationException)"}}`},
		{"service unavailable", new(frames).start().exception("serviceUnavailableException", "Bedrock is unable to process your request.").bytes(),
			503, `{"type":"error","error":{"type":"api_error","message":"ServiceUnavailableException: Bedrock is unable to process your request."}}`},
		{"empty body", nil, 502, `{"type":"error","error":{"type":"api_error","message":"upstream returned an empty event stream"}}`},
		{"a JSON error under a 200", []byte(`{"message":"The security token included in the request is expired","__type":"ExpiredTokenException"}`),
			401, `{"type":"error","error":{"type":"authentication_error","message":"ExpiredTokenException: The security token included in the request is expired"}}`},
		{"only messageStart, then the end", new(frames).start().bytes(), 502,
			`{"type":"error","error":{"type":"api_error","message":"upstream stream ended without messageStop: the response is incomplete"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, n := range []int{1, 5, 1 << 20} {
				out, err, httpErr := runStream(t, exchange(t, nil, "", streamRequest), tc.upstream, n)
				if err == nil || httpErr == nil {
					t.Fatalf("writes of %d: stream error %v, HTTP error %v; want an HTTP error", n, err, httpErr)
				}
				if len(out) != 0 {
					t.Fatalf("writes of %d: events were sent: %s", n, out)
				}
				if httpErr.Status != tc.status || string(httpErr.Body()) != tc.body {
					t.Fatalf("writes of %d: got %d %s\nwant %d %s", n, httpErr.Status, httpErr.Body(), tc.status, tc.body)
				}
			}
		})
	}
}

// Frames split at every byte make the same events as one write, and the
// official SDK accumulates them into the Message the blocks say.
func TestStreamSplitAtEveryByte(t *testing.T) {
	upstream := new(frames).start().reasoning(0, claudeSig, "The user greets me. ", "I answer and check the weather.").
		text(1, "Hello! ", "Let me check.").tool(2, "tooluse_abc", "get_weather", `{"city":`, `"Paris"}`).
		stop("tool_use").metadata(12, 80, 1000, 200).bytes()
	whole, err, _ := runStream(t, exchange(t, nil, "", streamRequest), upstream, len(upstream))
	if err != nil {
		t.Fatal(err)
	}
	golden.Bytes(t, "streams/reasoning_text_tool.sse", whole)
	wantLines, _ := summary(t, whole)
	for cut := 1; cut < len(upstream); cut++ {
		x := exchange(t, nil, "", streamRequest)
		h := NewTranslator(x, nil).Handle(200, http.Header{"Content-Type": {EventStreamType}})
		var out []byte
		st := providertest.OpenStream(x, h.NewStream, func(ev []byte) { out = append(out, ev...) }, 16<<10)
		if err := st.Write(upstream[:cut]); err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if err := st.Write(upstream[cut:]); err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if err := st.Close(); err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		// Deltas of one write merge: the events are compared as the
		// summary joins them.
		got, _ := summary(t, out)
		if strings.Join(got, "\n") != strings.Join(wantLines, "\n") {
			t.Fatalf("cut at %d: the events differ:\n%s\n--- whole:\n%s", cut, out, whole)
		}
	}
	_, msg := summary(t, whole)
	if len(msg.Content) != 3 || msg.Content[0].Thinking != thought || msg.Content[0].Signature != bedrockSig(claudeSig, thought) ||
		msg.Content[1].Text != answer || msg.Content[2].Name != "get_weather" || string(msg.Content[2].Input) != `{"city":"Paris"}` ||
		msg.StopReason != "tool_use" || msg.Usage.InputTokens != 12 || msg.Usage.OutputTokens != 80 ||
		msg.Usage.CacheReadInputTokens != 1000 || msg.Usage.CacheCreationInputTokens != 200 {
		t.Fatalf("SDK accumulated %+v", msg)
	}
	if x := exchange(t, nil, "", streamRequest); x.Usage != (emit.Usage{}) {
		t.Fatal("a fresh exchange has usage")
	}
}

// The thinking block a stream made goes back to Bedrock as the
// reasoningContent it came as.
func TestStreamHistoryRoundTrip(t *testing.T) {
	upstream := new(frames).start().reasoning(0, claudeSig, thought).redacted(1, "cmVkYWN0ZWQ=").text(2, answer).stop("end_turn").metadata(1, 1, 0, 0).bytes()
	out, err, _ := runStream(t, exchange(t, nil, "", streamRequest), upstream, 5)
	if err != nil {
		t.Fatal(err)
	}
	_, msg := summary(t, out)
	var blocks []string
	for _, b := range msg.Content {
		blocks = append(blocks, b.RawJSON())
	}
	body := `{"model":"` + claude + `","max_tokens":2000,"thinking":{"type":"enabled","budget_tokens":1024},"messages":[{"role":"user","content":"Hi"},` +
		`{"role":"assistant","content":[` + strings.Join(blocks, ",") + `]},{"role":"user","content":"Go on"}]}`
	got, _, err := ConvertRequest(exchange(t, nil, "", body), Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"` + thought + `","signature":"` + claudeSig + `"}}},` +
		`{"reasoningContent":{"redactedContent":"cmVkYWN0ZWQ="}},{"text":"` + answer + `"}]}`
	if !strings.Contains(string(got), want) {
		t.Fatalf("the history went back as\n%s\nwant it to hold\n%s", got, want)
	}
}

// The client's exact bytes for a few answers, whole.
func TestStreamGolden(t *testing.T) {
	for _, tc := range []struct {
		golden   string
		settings func(*providers.Settings)
		upstream []byte
	}{
		{"deepseek_reasoning_redacted.sse", nil, new(frames).start().reasoning(0, "", "Think ", "twice.").redacted(1, "EmwKAhgBEgy3va3pzix").
			text(2, "Answer.").stop("end_turn").metadata(30, 12, 0, 0).bytes()},
		{"split_tags.sse", func(s *providers.Settings) { s.SplitTags = true }, new(frames).start().text(0, "<thinking>The user", " wants a haiku.</thinking>", "Autumn moonlight—").
			stop("max_tokens").metadata(9, 16, 0, 0).bytes()},
		{"exception_after_content.sse", nil, new(frames).start().event("contentBlockDelta", map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"text": "Partial answ"}}).
			exception("modelStreamErrorException", "Model stream error: the model produced an invalid sequence.").bytes()},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			s := testSettings()
			if tc.settings != nil {
				tc.settings(s)
			}
			out, _, httpErr := runStream(t, exchange(t, s, "", streamRequest), tc.upstream, len(tc.upstream))
			if httpErr != nil {
				t.Fatalf("HTTP error: %v", httpErr)
			}
			summary(t, out) // the SDK accepts every event
			golden.Bytes(t, "streams/"+tc.golden, out)
		})
	}
}
