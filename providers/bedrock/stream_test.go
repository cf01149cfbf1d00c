package bedrock

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/eventstreamtest"
	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers"
)

const streamRequest = `{"model":"claude-sonnet","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`

// claudeEvents is a Claude answer as InvokeModelWithResponseStream's chunks
// carry it: a thinking block, text with inline tags, a tool call, and
// Bedrock's invocation metrics on message_stop.
var claudeEvents = []string{
	`{"type":"message_start","message":{"id":"msg_bdrk_01","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":21,"output_tokens":1}}}`,
	`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Greet back."}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBbedrock"}}`,
	`{"type":"content_block_stop","index":0}`,
	`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
	`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hello <think"}}`,
	`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"ing>inline</thinking> there \u2713"}}`,
	`{"type":"content_block_stop","index":1}`,
	`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_bdrk_1","name":"get_weather","input":{}}}`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"city\":"}}`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"\"Paris\"}"}}`,
	`{"type":"content_block_stop","index":2}`,
	`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":87}}`,
	`{"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":21,"outputTokenCount":87,"invocationLatency":1200,"firstByteLatency":300}}`,
}

func claudeStream(t testing.TB, events ...string) []byte {
	var b []byte
	for _, e := range events {
		b = append(b, chunk(t, e)...)
	}
	return b
}

// TestStreamPass: without split_tags every Anthropic event reaches the
// client as Claude sent it, the model name the client's.
func TestStreamPass(t *testing.T) {
	s := testSettings(false)
	s.Models = []providers.ModelRule{{From: "claude-sonnet", To: sonnet}}
	x := exchange(t, s, streamRequest, "/v1/messages")
	out, e := translate(t, x, claudeStream(t, claudeEvents...))
	if e != nil {
		t.Fatal(e)
	}
	want := `event: message_start
data: {"type":"message_start","message":{"id":"msg_bdrk_01","type":"message","role":"assistant","model":"claude-sonnet","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":21,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Greet back."}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBbedrock"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hello <think"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"ing>inline</thinking> there \u2713"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_bdrk_1","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"city\":"}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"\"Paris\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":87}}

event: message_stop
data: {"type":"message_stop"}

`
	if string(out) != want {
		t.Errorf("events:\n%s\nwant:\n%s", out, want)
	}
	if x.Usage.InputTokens != 21 || x.Usage.OutputTokens != 87 {
		t.Errorf("usage %+v", x.Usage)
	}
}

// TestStreamSplitTags: with split_tags the text's inline tags become a
// thinking block, as for the anthropic provider; Claude's own blocks pass.
func TestStreamSplitTags(t *testing.T) {
	x := exchange(t, testSettings(true), streamRequest, "/v1/messages")
	out, e := translate(t, x, claudeStream(t, claudeEvents...))
	if e != nil {
		t.Fatal(e)
	}
	providertest.Diff(t, "events", summary(t, out), []string{
		"message_start",
		`content_block_start 0 {"type":"thinking","thinking":"","signature":""}`,
		`thinking_delta 0 "Greet back."`,
		`signature_delta 0 "SIG"`,
		"content_block_stop 0",
		`content_block_start 1 {"type":"text","text":""}`,
		`text_delta 1 "Hello "`,
		"content_block_stop 1",
		`content_block_start 2 {"type":"thinking","thinking":""}`,
		`thinking_delta 2 "inline"`,
		`signature_delta 2 "SIG"`,
		"content_block_stop 2",
		`content_block_start 3 {"type":"text","text":""}`,
		`text_delta 3 " there ✓"`,
		"content_block_stop 3",
		`content_block_start 4 {"type":"tool_use","id":"toolu_bdrk_1","name":"get_weather","input":{}}`,
		`input_json_delta 4 "{\"city\":\"Paris\"}"`,
		"content_block_stop 4",
		`message_delta tool_use {"output_tokens":87}`,
		"message_stop",
	})
}

// TestStreamSplitEverywhere: the client's bytes do not depend on where the
// upstream's frames were cut, at every single byte.
func TestStreamSplitEverywhere(t *testing.T) {
	for _, split := range []bool{false, true} {
		data := claudeStream(t, claudeEvents...)
		want, e := translate(t, exchange(t, testSettings(split), streamRequest, "/v1/messages"), data)
		if e != nil {
			t.Fatal(e)
		}
		// Each single cut within the first frames (prelude, headers,
		// payload, checksum, frame boundaries), then every cut at once.
		for i := 1; i < min(len(data), 3*len(chunk(t, claudeEvents[1]))); i++ {
			got, e := translate(t, exchange(t, testSettings(split), streamRequest, "/v1/messages"), data, i)
			if e != nil || string(ssetest.Coalesce(got)) != string(ssetest.Coalesce(want)) {
				t.Fatalf("split_tags %v, cut at %d: %v\n%s", split, i, e, got)
			}
		}
		var cuts []int
		for i := 1; i < len(data); i++ {
			cuts = append(cuts, i)
		}
		got, e := translate(t, exchange(t, testSettings(split), streamRequest, "/v1/messages"), data, cuts...)
		if e != nil || string(ssetest.Coalesce(got)) != string(ssetest.Coalesce(want)) {
			t.Fatalf("split_tags %v, byte by byte: %v\n%s", split, e, got)
		}
	}
}

// TestStreamExceptions: an exception before the first event is the HTTP
// error of its exception; after it, an error event ending the stream.
func TestStreamExceptions(t *testing.T) {
	for _, tc := range []struct {
		name, message string
		status        int
		typ, text     string
	}{
		{"throttlingException", "Too many requests, please wait before trying again.", 429, "rate_limit_error",
			"ThrottlingException: Too many requests, please wait before trying again."},
		{"validationException", "Input is too long for requested model.", 400, "invalid_request_error",
			"prompt is too long: Input is too long for requested model. (ValidationException)"},
		{"serviceUnavailableException", "Bedrock is unable to process your request.", 503, "api_error",
			"ServiceUnavailableException: Bedrock is unable to process your request."},
		{"modelStreamErrorException", "Model stream error.", 502, "api_error", "ModelStreamErrorException: Model stream error."},
		{"modelTimeoutException", "Model has timed out in processing the request.", 504, "timeout_error",
			"ModelTimeoutException: Model has timed out in processing the request."},
		{"internalServerException", "An internal server error occurred.", 500, "api_error",
			"InternalServerException: An internal server error occurred."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, e := translate(t, exchange(t, testSettings(false), streamRequest, "/v1/messages"), exception(t, tc.name, tc.message))
			if e == nil || len(out) != 0 {
				t.Fatalf("before the first event: error %v, events %q", e, out)
			}
			if e.Status != tc.status || e.Type != tc.typ || e.Message != tc.text {
				t.Errorf("before the first event: %d %s %q, want %d %s %q", e.Status, e.Type, e.Message, tc.status, tc.typ, tc.text)
			}
			data := append(claudeStream(t, claudeEvents[:7]...), exception(t, tc.name, tc.message)...)
			out, e = translate(t, exchange(t, testSettings(false), streamRequest, "/v1/messages"), data)
			if e != nil {
				t.Fatalf("after the first event: an HTTP error %v", e)
			}
			lines := summary(t, out)
			wantTail := []string{
				`text_delta 1 "Hello <think"`,
				"content_block_stop 1",
				`error {"type":"` + tc.typ + `","message":"` + tc.text + `"}`,
			}
			providertest.Diff(t, "tail", lines[len(lines)-3:], wantTail)
		})
	}
}

// TestStreamCut: a stream cut inside a frame, or after whole frames but
// before message_stop, ends with an error event; one with no frame at all
// is a 502.
func TestStreamCut(t *testing.T) {
	full := claudeStream(t, claudeEvents[:7]...)
	cut := append(append([]byte(nil), full...), chunk(t, claudeEvents[7])[:20]...)
	out, e := translate(t, exchange(t, testSettings(false), streamRequest, "/v1/messages"), cut)
	if e != nil {
		t.Fatal(e)
	}
	if !bytes.HasSuffix(out, []byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"malformed upstream event stream: event stream ended inside a frame (20 bytes of it received)\"}}\n\n")) {
		t.Errorf("cut inside a frame:\n%s", out)
	}
	out, _ = translate(t, exchange(t, testSettings(false), streamRequest, "/v1/messages"), full)
	if !bytes.HasSuffix(out, []byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"upstream stream ended before message_stop\"}}\n\n")) {
		t.Errorf("cut between frames:\n%s", out)
	}
	_, e = translate(t, exchange(t, testSettings(false), streamRequest, "/v1/messages"), nil)
	if e == nil || e.Status != 502 || e.Message != "upstream returned an empty event stream" {
		t.Errorf("empty: %v", e)
	}
	// A JSON error under a 200 is the error it says.
	_, e = translate(t, exchange(t, testSettings(false), streamRequest, "/v1/messages"), []byte(`{"message":"Too many tokens","__type":"ThrottlingException"}`))
	if e == nil || e.Status != 429 || e.Message != "ThrottlingException: Too many tokens" {
		t.Errorf("JSON body: %v", e)
	}
}

// TestStreamMalformedChunk: a chunk whose bytes are not base64, or decode
// to something without a type, is a malformed event.
func TestStreamMalformedChunk(t *testing.T) {
	for body, want := range map[string]string{
		string(frameChunkPayload(t, `{"bytes":"!!"}`)): "malformed upstream event: a chunk's bytes are not base64",
		string(frameChunkPayload(t, `{"nobytes":1}`)):  "malformed upstream event: a chunk without bytes",
		string(chunk(t, `{"no":"type"}`)):              "malformed upstream event: a chunk's event has no type",
		string(chunk(t, `{"type":"evil\nevent: x"}`)):  "malformed upstream event: a chunk's event has no type",
	} {
		_, e := translate(t, exchange(t, testSettings(false), streamRequest, "/v1/messages"), []byte(body))
		if e == nil || e.Status != 502 || e.Message != want {
			t.Errorf("%v, want %q", e, want)
		}
	}
}

// TestStreamChunkLineBreaks: an event JSON with line breaks between its
// tokens still makes one well-formed SSE event.
func TestStreamChunkLineBreaks(t *testing.T) {
	events := append([]string{strings.Replace(claudeEvents[0], `"type":"message",`, "\"type\":\r\n\"message\",\n", 1)}, claudeEvents[1:]...)
	out, e := translate(t, exchange(t, testSettings(false), streamRequest, "/v1/messages"), claudeStream(t, events...))
	if e != nil {
		t.Fatal(e)
	}
	if _, err := ssetest.Parse(out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), `event: message_start
data: {"type":"message_start","message":{"id":"msg_bdrk_01","type":"message","role"`) {
		t.Errorf("%.200s", out)
	}
}

func frameChunkPayload(t testing.TB, payload string) []byte {
	return eventstreamtest.Event("chunk", []byte(payload))
}

// TestMessage: a non-streaming answer keeps Claude's Message, the model the
// client's; with split_tags its text is split.
func TestMessage(t *testing.T) {
	body := `{"id":"msg_bdrk_02","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"<thinking>hm</thinking>Hi!"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":4}}`
	s := testSettings(false)
	s.Models = []providers.ModelRule{{From: "claude-sonnet", To: sonnet}}
	x := exchange(t, s, strings.Replace(streamRequest, `"stream":true,`, "", 1), "/v1/messages")
	h := NewTranslator(x).Handle(200, http.Header{"Content-Type": {"application/json"}})
	got, err := h.Body([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(body, `"model":"claude-sonnet-4-5-20250929"`, `"model":"claude-sonnet"`, 1); string(got) != want {
		t.Errorf("message:\n%s\nwant:\n%s", got, want)
	}
	if x.Usage.InputTokens != 9 || x.Usage.OutputTokens != 4 {
		t.Errorf("usage %+v", x.Usage)
	}
	x = exchange(t, testSettings(true), strings.Replace(streamRequest, `"stream":true,`, "", 1), "/v1/messages")
	got, err = NewTranslator(x).Handle(200, http.Header{}).Body([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `"content":[{"type":"thinking","thinking":"hm","signature":"`) || !strings.Contains(string(got), `{"type":"text","text":"Hi!"}]`) {
		t.Errorf("split message: %s", got)
	}
}

// TestCountTokensAnswer: {"inputTokens":N} becomes {"input_tokens":N}.
func TestCountTokensAnswer(t *testing.T) {
	x := exchange(t, testSettings(false), `{"model":"m","messages":[{"role":"user","content":"Hi"}]}`, "/v1/messages/count_tokens")
	got, err := NewTranslator(x).Handle(200, http.Header{}).Body([]byte(`{"inputTokens":1234}`))
	if err != nil || string(got) != `{"input_tokens":1234}` {
		t.Errorf("%s %v", got, err)
	}
	if _, err := CountTokensAnswer([]byte(`{"input_tokens":1}`)); err == nil {
		t.Error("a body without inputTokens is taken")
	}
}
