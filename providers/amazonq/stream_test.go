package amazonq

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

const basicRequest = `{"model":"claude-test","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"Weather in Paris?"}]}`

// translate writes data to a fresh stream cut at the given offsets, then
// closes it; it returns the SSE bytes and the first error.
func translate(t testing.TB, x *providers.Exchange, data []byte, cuts ...int) (*emit.Emitter, []byte, error) {
	t.Helper()
	return translateWith(t, NewTranslator(x), data, cuts...)
}

// translateWith is translate with a given translator.
func translateWith(t testing.TB, tr *Translator, data []byte, cuts ...int) (*emit.Emitter, []byte, error) {
	t.Helper()
	x := tr.x
	em := emit.NewEmitter(x.Settings.Form, x.Settings.Signer)
	s := tr.NewStream(em)
	var out []byte
	prev := 0
	for _, c := range append(cuts, len(data)) {
		if err := s.Write(data[prev:c]); err != nil {
			return em, append(out, em.Events()...), err
		}
		out = append(out, em.Events()...)
		em.Flush()
		prev = c
	}
	err := s.Close()
	return em, append(out, em.Events()...), err
}

func chunked(n, size int) []int {
	var cuts []int
	for i := size; i < n; i += size {
		cuts = append(cuts, i)
	}
	return cuts
}

// agentStream is a realistic answer: text with an inline thinking span whose
// tag is split across events, then a tool call in fragments, then metadata.
func agentStream(t testing.TB) []byte {
	return concat(
		textFrame(t, "Let me check. <thin"),
		textFrame(t, "king>The user wants weather.</thinking>"),
		textFrame(t, "I'll look it up."),
		eventFrame(t, "toolUseEvent", `{"toolUseId":"tooluse_A","name":"get_weather"}`),
		eventFrame(t, "toolUseEvent", `{"toolUseId":"tooluse_A","input":"{\"ci"}`),
		eventFrame(t, "toolUseEvent", `{"toolUseId":"tooluse_A","input":"ty\":\"Paris\"}"}`),
		eventFrame(t, "toolUseEvent", `{"toolUseId":"tooluse_A","stop":true}`),
		eventFrame(t, "messageMetadataEvent", `{"conversationId":"c1","utteranceId":"u1"}`),
		eventFrame(t, "metadataEvent", `{"tokenUsage":{"uncachedInputTokens":120,"outputTokens":45,"cacheReadInputTokens":30,"cacheWriteInputTokens":5,"totalTokens":200}}`),
		eventFrame(t, "contextUsageEvent", `{"contextUsagePercentage":1.5}`),
	)
}

var agentSummary = []string{
	"message_start",
	`content_block_start 0 {"type":"text","text":""}`,
	`text_delta 0 "Let me check. "`,
	"content_block_stop 0",
	`content_block_start 1 {"type":"thinking","thinking":""}`,
	`thinking_delta 1 "The user wants weather."`,
	`signature_delta 1 "SIG"`,
	"content_block_stop 1",
	`content_block_start 2 {"type":"text","text":""}`,
	`text_delta 2 "I'll look it up."`,
	"content_block_stop 2",
	`content_block_start 3 {"type":"tool_use","id":"tooluse_A","name":"get_weather","input":{}}`,
	`input_json_delta 3 "{\"city\":\"Paris\"}"`,
	"content_block_stop 3",
	`message_delta tool_use {"input_tokens":120,"cache_creation_input_tokens":5,"cache_read_input_tokens":30,"output_tokens":45}`,
	"message_stop",
}

func TestStreamAgent(t *testing.T) {
	x := exchange(t, testSettings(), basicRequest)
	_, out, err := translate(t, x, agentStream(t))
	if err != nil {
		t.Fatal(err)
	}
	providertest.Diff(t, "events", summary(t, out), agentSummary)
	if x.Usage != (emit.Usage{InputTokens: 120, OutputTokens: 45, CacheReadInputTokens: 30, CacheCreationInputTokens: 5}) {
		t.Errorf("usage %+v", x.Usage)
	}
	if !strings.HasPrefix(string(out), `event: message_start
data: {"type":"message_start","message":{"id":"msg_test","type":"message","role":"assistant","model":"claude-test","content":[]`) {
		t.Errorf("message_start: %.200s", out)
	}
}

// TestStreamSplitEverywhere: the bytes the client gets do not depend on how
// the upstream's bytes were cut: every single cut, and chunks of many sizes.
func TestStreamSplitEverywhere(t *testing.T) {
	data := agentStream(t)
	_, want, err := translate(t, exchange(t, testSettings(), basicRequest), data)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(data); i++ {
		_, got, err := translate(t, exchange(t, testSettings(), basicRequest), data, i)
		if err != nil || string(ssetest.Coalesce(got)) != string(ssetest.Coalesce(want)) {
			t.Fatalf("cut at %d: err %v\n%s", i, err, got)
		}
	}
	for _, size := range []int{1, 2, 3, 5, 7, 11, 12, 13, 16, 64, 100, 1000} {
		_, got, err := translate(t, exchange(t, testSettings(), basicRequest), data, chunked(len(data), size)...)
		if err != nil || string(ssetest.Coalesce(got)) != string(ssetest.Coalesce(want)) {
			t.Fatalf("chunks of %d: err %v\n%s", size, err, got)
		}
	}
	// Two cuts, at many pairs of offsets.
	for i := 1; i < len(data); i += 7 {
		for j := i + 1; j < len(data); j += 13 {
			_, got, err := translate(t, exchange(t, testSettings(), basicRequest), data, i, j)
			if err != nil || string(ssetest.Coalesce(got)) != string(ssetest.Coalesce(want)) {
				t.Fatalf("cuts at %d,%d: err %v", i, j, err)
			}
		}
	}
}

// TestStreamCorruption: every single flipped byte of a stream ends in a
// clean 502 error (CRCs cover everything), never a panic or a success.
func TestStreamCorruption(t *testing.T) {
	data := concat(textFrame(t, "Hello"), eventFrame(t, "metadataEvent", `{"tokenUsage":{"outputTokens":1}}`))
	for i := range data {
		for _, cut := range []int{0, i, len(data) / 2} {
			bad := append([]byte(nil), data...)
			bad[i] ^= 0x20
			var cuts []int
			if cut > 0 {
				cuts = []int{cut}
			}
			_, _, err := translate(t, exchange(t, testSettings(), basicRequest), bad, cuts...)
			var e *wire.Error
			if !errors.As(err, &e) || e.Status != 502 || e.Type != "api_error" {
				t.Fatalf("byte %d flipped (cut %d): err %v", i, cut, err)
			}
		}
	}
}

func TestStreamCorruptionMessages(t *testing.T) {
	frame := textFrame(t, "Hello")
	cases := []struct {
		name string
		data []byte
		// stop: Write must fail at once, without waiting for the rest.
		partial bool
		want    string
	}{
		{"payload byte", flip(frame, len(frame)-6), false, "malformed upstream event stream: frame checksum mismatch"},
		{"message crc", flip(frame, len(frame)-1), false, "malformed upstream event stream: frame checksum mismatch"},
		{"prelude crc, seen before the frame is whole", flip(frame, 10)[:12], true, "malformed upstream event stream: frame prelude checksum mismatch"},
		{"length too small", setLen(frame, 8), true, "malformed upstream event stream: bad frame prelude (length 8, headers"},
		{"length too large", setLen(frame, 0x01000001), true, "malformed upstream event stream: bad frame prelude (length 16777217"},
		{"headers longer than the frame", setHeadersLen(frame, 1000), true, "malformed upstream event stream: bad frame prelude"},
		{"not an event stream", []byte("<html>oops</html>"), false, "upstream answered without an event stream: <html>oops</html>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := exchange(t, testSettings(), basicRequest)
			em := emit.NewEmitter(x.Settings.Form, x.Settings.Signer)
			s := NewTranslator(x).NewStream(em)
			err := s.Write(tc.data)
			if tc.partial && err == nil {
				t.Fatal("Write accepted a corrupt prelude")
			}
			if err == nil {
				err = s.Close()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || em.Started() {
				t.Errorf("err %v (started %v), want %q", err, em.Started(), tc.want)
			}
			if err2 := s.Write([]byte{0}); err2 != err {
				t.Errorf("a failed stream must keep failing: %v", err2)
			}
		})
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0x01
	return c
}

func setLen(b []byte, n uint32) []byte {
	c := append([]byte(nil), b...)
	binary.BigEndian.PutUint32(c, n)
	return c
}

func setHeadersLen(b []byte, n uint32) []byte {
	c := append([]byte(nil), b...)
	binary.BigEndian.PutUint32(c[4:], n)
	return c
}

func TestStreamEnds(t *testing.T) {
	whole := textFrame(t, "Hi")
	cases := []struct {
		name string
		data []byte
		want string // error, or "" for a normal end
	}{
		{"EOF after whole frames, no metadata", whole, ""},
		{"EOF inside a frame", concat(whole, whole[:9]), "event stream ended inside a frame (9 bytes of it received)"},
		{"EOF inside the first frame", whole[:20], "event stream ended inside a frame (20 bytes of it received)"},
		{"empty body", nil, "upstream returned an empty event stream"},
		{"JSON exception body", []byte(`{"__type":"com.amazon#ThrottlingException","message":"slow down"}`), "rate_limit_error: ThrottlingException: slow down"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			em, out, err := translate(t, exchange(t, testSettings(), basicRequest), tc.data)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				providertest.Diff(t, "events", summary(t, out), []string{
					"message_start",
					`content_block_start 0 {"type":"text","text":""}`,
					`text_delta 0 "Hi"`,
					"content_block_stop 0",
					`message_delta end_turn {"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}`,
					"message_stop",
				})
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want %q", err, tc.want)
			}
			if tc.name != "EOF inside a frame" && em.Started() {
				t.Errorf("nothing may be sent before an error that has a status")
			}
		})
	}
}

// TestStreamExceptions: an exception frame is an Anthropic error with the
// mapped status. As the first frame nothing has been emitted, so the
// response writer can still answer with that status.
func TestStreamExceptions(t *testing.T) {
	cases := []struct {
		name               string
		frame              []byte
		status             int
		typ, msg           string
		afterOutputStarted bool
	}{
		{"throttling", exceptionFrame(t, "ThrottlingException", `{"message":"Too many requests"}`), 429, "rate_limit_error", "ThrottlingException: Too many requests", false},
		{"validation", exceptionFrame(t, "ValidationException", `{"message":"Improperly formed request."}`), 400, "invalid_request_error", "ValidationException: Improperly formed request.", false},
		{"access denied", exceptionFrame(t, "AccessDeniedException", `{"message":"no"}`), 403, "permission_error", "AccessDeniedException: no", false},
		{"quota", exceptionFrame(t, "ServiceQuotaExceededException", `{"message":"limit"}`), 429, "rate_limit_error", "ServiceQuotaExceededException: limit", false},
		{"internal", exceptionFrame(t, "InternalServerException", `{"message":"boom"}`), 500, "api_error", "InternalServerException: boom", false},
		{"too long", exceptionFrame(t, "ValidationException", `{"message":"Input is too long.","reason":"CONTENT_LENGTH_EXCEEDS_THRESHOLD"}`), 400, "invalid_request_error", "prompt is too long: Input is too long. (ValidationException: CONTENT_LENGTH_EXCEEDS_THRESHOLD)", false},
		{"name only in the payload", encodeFrame(t, nil, ""), 0, "", "", false}, // replaced below
		{"unknown exception", exceptionFrame(t, "ModelStreamErrorException", `{"message":"stream broke"}`), 502, "api_error", "ModelStreamErrorException: stream broke", false},
		{"error message", errorFrame(t, "InternalFailure", "it failed"), 502, "api_error", "InternalFailure: it failed", false},
	}
	cases[6].frame = encodeFrameHeaders(t, "exception", `{"__type":"com.amazon.aws.codewhisperer#ThrottlingException","message":"later"}`)
	cases[6].status, cases[6].typ, cases[6].msg = 429, "rate_limit_error", "ThrottlingException: later"
	for _, tc := range cases {
		for _, after := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/after_output=%v", tc.name, after), func(t *testing.T) {
				data := tc.frame
				if after {
					data = concat(textFrame(t, "Partial answer"), tc.frame, textFrame(t, "never seen"))
				}
				for _, cuts := range [][]int{nil, chunked(len(data), 1), chunked(len(data), 9)} {
					em, out, err := translate(t, exchange(t, testSettings(), basicRequest), data, cuts...)
					var e *wire.Error
					if !errors.As(err, &e) || e.Status != tc.status || e.Type != tc.typ || e.Message != tc.msg {
						t.Fatalf("err %#v", err)
					}
					if em.Started() != after {
						t.Fatalf("started %v, want %v", em.Started(), after)
					}
					if after && !strings.Contains(string(out), "Partial answer") || strings.Contains(string(out), "never seen") {
						t.Fatalf("output %s", out)
					}
				}
			})
		}
	}
}

func TestStreamToolUse(t *testing.T) {
	x := exchange(t, testSettings(), basicRequest)
	tr := &Translator{x: x, st: &state{toolNames: map[string]string{"mcp__short_1234abcd": "mcp__the_original_very_long_name"}}}
	data := concat(
		eventFrame(t, "toolUseEvent", `{"toolUseId":"t1","name":"mcp__short_1234abcd","input":""}`),
		eventFrame(t, "toolUseEvent", `{"toolUseId":"t1","input":"{\"path\":"}`),
		eventFrame(t, "toolUseEvent", `{"toolUseId":"t1","input":"\"/tmp/\u00e9\"}","stop":true}`),
		eventFrame(t, "toolUseEvent", `{"toolUseId":"t1","stop":true}`),                            // a repeated stop is dropped
		eventFrame(t, "toolUseEvent", `{"toolUseId":"t2","name":"Bash","input":{"command":"ls"}}`), // a whole input ends t2
		eventFrame(t, "toolUseEvent", `{"toolUseId":"t3","name":"Read"}`),
		eventFrame(t, "toolUseEvent", `{"toolUseId":"t2","input":"late"}`), // t2 ended: dropped
		eventFrame(t, "toolUseEvent", `{"toolUseId":"t3","input":"{}"}`),
		textFrame(t, "Done."), // waits for t3, which ends with the answer
		eventFrame(t, "metadataEvent", `{"tokenUsage":{"outputTokens":9},"stopReason":"TOOL_USE"}`),
	)
	_, out, err := translateWith(t, tr, data)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Diff(t, "events", summary(t, out), []string{
		"message_start",
		`content_block_start 0 {"type":"tool_use","id":"t1","name":"mcp__the_original_very_long_name","input":{}}`,
		`input_json_delta 0 "{\"path\":\"/tmp/é\"}"`,
		"content_block_stop 0",
		`content_block_start 1 {"type":"tool_use","id":"t2","name":"Bash","input":{}}`,
		`input_json_delta 1 "{\"command\":\"ls\"}"`,
		"content_block_stop 1",
		`content_block_start 2 {"type":"tool_use","id":"t3","name":"Read","input":{}}`,
		`input_json_delta 2 "{}"`,
		"content_block_stop 2",
		`content_block_start 3 {"type":"text","text":""}`,
		`text_delta 3 "Done."`,
		"content_block_stop 3",
		`message_delta tool_use {"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":9}`,
		"message_stop",
	})
}

func TestStreamStopReasons(t *testing.T) {
	tool := concat(eventFrame(t, "toolUseEvent", `{"toolUseId":"t1","name":"Write","input":"{\"a\":"}`))
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"text only", textFrame(t, "x"), "end_turn"},
		{"tool without metadata", tool, "tool_use"},
		{"END_TURN with a tool", concat(tool, eventFrame(t, "metadataEvent", `{"stopReason":"END_TURN"}`)), "tool_use"},
		{"cut tool input", concat(tool, eventFrame(t, "metadataEvent", `{"stopReason":"MAX_TOKENS"}`)), "max_tokens"},
		{"context window", concat(textFrame(t, "x"), eventFrame(t, "metadataEvent", `{"stopReason":"MODEL_CONTEXT_WINDOW_EXCEEDED"}`)), "model_context_window_exceeded"},
		{"filtered", concat(textFrame(t, "x"), eventFrame(t, "metadataEvent", `{"stopReason":"CONTENT_FILTERED"}`)), "refusal"},
		{"unknown reason", concat(textFrame(t, "x"), eventFrame(t, "metadataEvent", `{"stopReason":"UNKNOWN"}`)), "end_turn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, out, err := translate(t, exchange(t, testSettings(), basicRequest), tc.data)
			if err != nil {
				t.Fatal(err)
			}
			lines := summary(t, out)
			if got := lines[len(lines)-2]; !strings.HasPrefix(got, "message_delta "+tc.want+" ") {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestStreamReasoning: reasoningContentEvent is a thinking block whose
// signature is the gateway's envelope around Amazon Q's own signature.
func TestStreamReasoning(t *testing.T) {
	x := exchange(t, testSettings(), `{"model":"claude-test","max_tokens":1024,"messages":[{"role":"user","content":"Q"}]}`)
	data := concat(
		eventFrame(t, "reasoningContentEvent", `{"text":"Step 1. "}`),
		eventFrame(t, "reasoningContentEvent", `{"text":"Step 2."}`),
		eventFrame(t, "reasoningContentEvent", `{"signature":"QSIG+/=="}`),
		eventFrame(t, "reasoningContentEvent", `{"redactedContent":"AAAA"}`),
		textFrame(t, "Answer."),
		eventFrame(t, "metadataEvent", `{"tokenUsage":{"uncachedInputTokens":3,"outputTokens":4}}`),
	)
	_, out, err := translate(t, x, data, 5, 40)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Diff(t, "events", summary(t, out), []string{
		"message_start",
		`content_block_start 0 {"type":"thinking","thinking":""}`,
		`thinking_delta 0 "Step 1. Step 2."`,
		`signature_delta 0 "SIG"`,
		"content_block_stop 0",
		`content_block_start 1 {"type":"text","text":""}`,
		`text_delta 1 "Answer."`,
		"content_block_stop 1",
		`message_delta end_turn {"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":4}`,
		"message_stop",
	})

	// The same body as a non-streaming answer: one Message, and its
	// signature opens to Amazon Q's.
	x = exchange(t, testSettings(), `{"model":"claude-test","max_tokens":1024,"messages":[{"role":"user","content":"Q"}]}`)
	msg, err := NewTranslator(x).Message(data)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Content []wire.Block `json:"content"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		t.Fatal(err)
	}
	origin, foreign, ok := x.Settings.Signer.Open(m.Content[0].Signature, "Step 1. Step 2.")
	if !ok || origin != emit.OriginAmazonQ || foreign != "QSIG+/==" {
		t.Errorf("signature %q opens to %c %q %v", m.Content[0].Signature, origin, foreign, ok)
	}
	want := `{"id":"msg_test","type":"message","role":"assistant","model":"claude-test","content":[` +
		`{"type":"thinking","thinking":"Step 1. Step 2.","signature":"` + m.Content[0].Signature + `"},` +
		`{"type":"text","text":"Answer."}],"stop_reason":"end_turn","stop_sequence":null,` +
		`"usage":{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":4}}`
	if string(msg) != want {
		t.Errorf("message:\n%s\nwant:\n%s", msg, want)
	}
}

// TestStreamCumulative: an upstream that resends the whole text so far in
// every event gives the same answer as one that sends deltas.
func TestStreamCumulative(t *testing.T) {
	want := ssetest.Seq([]string{"message_start"}, ssetest.ThinkingBlock(0, "Plan it", "SIG"), ssetest.TextBlock(1, "Result: 42."), endTurn(0))
	cumulative := concat(
		textFrame(t, "<thinking>Pl"),
		textFrame(t, "<thinking>Plan it</thi"),
		textFrame(t, "<thinking>Plan it</thi"), // a resend with nothing new
		textFrame(t, "<thinking>Plan it</thinking>Result"),
		textFrame(t, "<thinking>Plan it</thinking>Result: 42."),
	)
	deltas := concat(
		textFrame(t, "<thinking>Pl"),
		textFrame(t, "an it</thi"),
		textFrame(t, "nking>Result"),
		textFrame(t, ": 42."),
	)
	for name, data := range map[string][]byte{"cumulative": cumulative, "deltas": deltas} {
		_, out, err := translate(t, exchange(t, testSettings(), basicRequest), data, chunked(len(data), 10)...)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Diff(t, name, summary(t, out), want)
	}
}

func TestAccumulator(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string
		want string
	}{
		{"deltas", []string{"Hel", "lo", " world"}, "Hello world"},
		{"cumulative", []string{"Hel", "Hello", "Hello world"}, "Hello world"},
		{"cumulative with resends", []string{"a", "ab", "ab", "abc"}, "abc"},
		{"cumulative that restarts", []string{"one", "one two", "three", "three four"}, "one twothree four"},
		{"repeated delta", []string{"ab", "ab", "ab"}, "ababab"},
		{"deltas stay deltas", []string{"x", "y", "xy z"}, "xyxy z"},
		{"empty events", []string{"", "a", "", "b"}, "ab"},
		// The documented limit: a second delta that repeats the whole first one.
		{"misread delta", []string{"Hi", "Hi there"}, "Hi there"},
	} {
		var a accumulator
		var got []byte
		for _, p := range tc.in {
			got = append(got, a.next([]byte(p))...)
		}
		if string(got) != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// endTurn is how a summarised stream that ends its turn ends.
func endTurn(outputTokens int) []string {
	return []string{"message_delta end_turn " + ssetest.UsageJSON(0, outputTokens, 0), "message_stop"}
}

// TestStreamTagOptions: with split_tags off, or thinking off for the
// request, the model's tags stay in the text; with thinking_block text,
// thinking spans become text blocks (docs/thinking.md).
func TestStreamTagOptions(t *testing.T) {
	data := textFrame(t, "<thinking>hmm</thinking>ok")
	tagsKept := ssetest.Seq([]string{"message_start"}, ssetest.TextBlock(0, "<thinking>hmm</thinking>ok"), endTurn(0))
	for _, tc := range []struct {
		name     string
		settings func(*providers.Settings)
		request  string
		want     []string
	}{
		{"split_tags off", func(s *providers.Settings) { s.SplitTags = false }, basicRequest, tagsKept},
		{"thinking off", func(*providers.Settings) {}, `{"model":"claude-test","max_tokens":1,"thinking":{"type":"disabled"},"messages":[{"role":"user","content":"Q"}]}`, tagsKept},
		{"thinking_block text", func(s *providers.Settings) { s.Form = emit.FormText }, basicRequest,
			ssetest.Seq([]string{"message_start"}, ssetest.TextBlock(0, "hmm"), ssetest.TextBlock(1, "ok"), endTurn(0))},
	} {
		s := testSettings()
		tc.settings(s)
		_, out, err := translate(t, exchange(t, s, tc.request), data)
		if err != nil {
			t.Fatal(err)
		}
		providertest.Diff(t, tc.name, summary(t, out), tc.want)
	}
}

// TestStreamEventsWithoutType: frames without an :event-type header are
// recognised by their payload; unknown events are skipped.
func TestStreamEventsWithoutType(t *testing.T) {
	data := concat(
		encodeFrame(t, nil, `{"content":"Hi"}`),
		eventFrame(t, "followupPromptEvent", `{"followupPrompt":{"content":"ignored"}}`),
		eventFrame(t, "invalidStateEvent", `{"reason":"INVALID_TASK_ASSIST_PLAN","message":"x"}`),
		encodeFrame(t, nil, `{"tokenUsage":{"outputTokens":2}}`),
	)
	_, out, err := translate(t, exchange(t, testSettings(), basicRequest), data)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Diff(t, "events", summary(t, out), ssetest.Seq([]string{"message_start"}, ssetest.TextBlock(0, "Hi"), endTurn(2)))
}

func TestStreamMalformedPayload(t *testing.T) {
	for _, p := range []string{`{"content":12}`, `{"content":"bad \x"}`, `{"toolUseId":""}`, `not json`} {
		event := "assistantResponseEvent"
		if strings.Contains(p, "toolUseId") {
			event = "toolUseEvent"
		}
		_, _, err := translate(t, exchange(t, testSettings(), basicRequest), eventFrame(t, event, p))
		var e *wire.Error
		if !errors.As(err, &e) || e.Status != 502 || !strings.HasPrefix(e.Message, "malformed upstream event stream") {
			t.Errorf("%s: err %v", p, err)
		}
	}
}

// TestMessage: a non-streaming client request gets the collected Message.
func TestMessage(t *testing.T) {
	x := exchange(t, testSettings(), `{"model":"claude-test","max_tokens":1024,"messages":[{"role":"user","content":"Weather?"}]}`)
	msg, err := NewTranslator(x).Message(agentStream(t))
	if err != nil {
		t.Fatal(err)
	}
	sig := x.Settings.Signer.Sign(emit.OriginTags, "", "The user wants weather.")
	want := `{"id":"msg_test","type":"message","role":"assistant","model":"claude-test","content":[` +
		`{"type":"text","text":"Let me check. "},` +
		`{"type":"thinking","thinking":"The user wants weather.","signature":"` + sig + `"},` +
		`{"type":"text","text":"I'll look it up."},` +
		`{"type":"tool_use","id":"tooluse_A","name":"get_weather","input":{"city":"Paris"}}],` +
		`"stop_reason":"tool_use","stop_sequence":null,` +
		`"usage":{"input_tokens":120,"cache_creation_input_tokens":5,"cache_read_input_tokens":30,"output_tokens":45}}`
	if string(msg) != want {
		t.Errorf("message:\n%s\nwant:\n%s", msg, want)
	}
	// An exception in the collected stream is the error, with its status.
	_, err = NewTranslator(x).Message(concat(textFrame(t, "a"), exceptionFrame(t, "ThrottlingException", `{"message":"slow"}`)))
	if e := wire.AsError(err); e.Status != 429 || e.Message != "ThrottlingException: slow" {
		t.Errorf("exception: %v", err)
	}
	_, err = NewTranslator(x).Message([]byte(`{"message":"Improperly formed request."}`))
	if e := wire.AsError(err); e.Status != 502 || e.Message != "Improperly formed request." {
		t.Errorf("JSON body: %v", err)
	}
}

// FuzzStream: no input, however cut, makes the translator panic or emit a
// malformed Anthropic stream.
func FuzzStream(f *testing.F) {
	f.Add(agentStream(f), uint16(7))
	f.Add(concat(textFrame(f, "<thinking>a"), exceptionFrame(f, "ThrottlingException", `{}`)), uint16(3))
	f.Add([]byte{0, 0, 0, 16, 0, 0, 0, 0}, uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, size uint16) {
		x := exchange(t, testSettings(), basicRequest)
		_, out, err := translate(t, x, data, chunked(len(data), int(size%64)+1)...)
		if err == nil {
			lines := summary(t, out)
			if lines[0] != "message_start" || lines[len(lines)-1] != "message_stop" {
				t.Fatalf("incomplete stream: %v", lines)
			}
		} else if _, ok := err.(*wire.Error); !ok {
			t.Fatalf("error of type %T: %v", err, err)
		}
	})
}
