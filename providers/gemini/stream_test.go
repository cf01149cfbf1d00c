package gemini

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

const streamRequest = `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"hi"}]}`

// TestStreamGolden: each Gemini stream in testdata/streams becomes exactly
// the Anthropic event stream pinned beside it, whatever the chunking of the
// upstream's bytes (down to one byte at a time, splitting CRLFs, escapes and
// multi-byte runes).
func TestStreamGolden(t *testing.T) {
	cases := []struct {
		name      string
		splitTags bool
		form      emit.BlockForm
		closeErr  string // the error Close reports, if the stream is incomplete
		writeErr  string
	}{
		{name: "thinking_text"},
		{name: "thinking_text", form: emit.FormText},
		{name: "text_signature"},
		{name: "function_call"},
		{name: "pending_signature"},
		{name: "two_thoughts"},
		{name: "max_tokens"},
		{name: "safety"},
		{name: "prompt_blocked"},
		{name: "error_midstream"},
		{name: "incomplete", closeErr: "api_error: Gemini stream ended without a finishReason"},
		{name: "malformed", writeErr: "api_error: malformed Gemini response:"},
		{name: "tags", splitTags: true},
		{name: "tags"},
		{name: "unknown_parts"},
	}
	for _, c := range cases {
		goldenName := c.name
		if c.splitTags {
			goldenName += ".split_tags"
		}
		if c.form == emit.FormText {
			goldenName += ".text_form"
		}
		t.Run(goldenName, func(t *testing.T) {
			body := readTestdata(t, "streams/"+c.name+".sse")
			s := testSettings()
			s.SplitTags, s.Form = c.splitTags, c.form
			var first []byte
			for _, n := range []int{len(body), 1, 2, 3, 5, 7, 64, 1000} {
				x := exchange(t, s, streamRequest)
				r := runStream(t, x, body, n)
				if got := errText(r.closeErr); !strings.HasPrefix(got, c.closeErr) || (c.closeErr == "") != (r.closeErr == nil) {
					t.Errorf("chunk %d: Close error %q, want %q", n, got, c.closeErr)
				}
				if got := errText(r.writeErr); !strings.HasPrefix(got, c.writeErr) || (c.writeErr == "") != (r.writeErr == nil) {
					t.Errorf("chunk %d: Write error %q, want %q", n, got, c.writeErr)
				}
				// Delta boundaries follow the chunking; the events do not.
				out := ssetest.Coalesce(normalizeToolIDs(t, s.Signer, r.events))
				if first == nil {
					first = out
					golden.Bytes(t, "streams/"+goldenName+".golden", out)
					continue
				}
				if !bytes.Equal(out, first) {
					t.Fatalf("chunk size %d changes the output:\n%s\n--- whole body gives\n%s", n, out, first)
				}
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestStreamUsage: usage is the latest running total, thoughts count as
// output, cached tokens are reported apart from input, and the exchange
// learns it for logs.
func TestStreamUsage(t *testing.T) {
	x := exchange(t, testSettings(), streamRequest)
	r := runStream(t, x, readTestdata(t, "streams/thinking_text.sse"), 17)
	want := emit.Usage{InputTokens: 14, OutputTokens: 43, CacheReadInputTokens: 1000}
	if x.Usage != want {
		t.Errorf("usage %+v, want %+v", x.Usage, want)
	}
	if !bytes.Contains(r.events, []byte(`"usage":{"input_tokens":14,"cache_creation_input_tokens":0,"cache_read_input_tokens":1000,"output_tokens":43}`)) {
		t.Errorf("message_delta usage missing:\n%s", r.events)
	}
}

// TestStreamSignaturesRoundTrip: the signatures a stream hands the client
// come back, through the converter, on the parts Gemini put them on.
func TestStreamSignaturesRoundTrip(t *testing.T) {
	s := testSettings()
	x := exchange(t, s, streamRequest)
	em := emit.NewCollector(s.Form, s.Signer)
	em.MessageStart("msg_1", "m", emit.Usage{})
	tr := newAnswerTranslator(x, em)
	for _, ev := range bytes.Split(readTestdata(t, "streams/function_call.sse"), []byte("\n\n")) {
		if d, ok := bytes.CutPrefix(ev, []byte("data: ")); ok {
			if err := tr.chunk(d); err != nil {
				t.Fatal(err)
			}
		}
	}
	tr.end()
	msg := string(em.MessageJSON())
	// The assistant message as the client keeps it, then a tool result turn.
	ids := toolIDPattern.FindAllString(msg, -1)
	if len(ids) != 2 {
		t.Fatalf("tool ids %v in %s", ids, msg)
	}
	content := msg[strings.Index(msg, `"content":`)+len(`"content":`) : strings.Index(msg, `,"stop_reason"`)]
	body := fmt.Sprintf(`{"model":"gemini-3-pro-preview","max_tokens":9,"messages":[
	  {"role":"user","content":"weather?"},
	  {"role":"assistant","content":%s},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":"sunny"},{"type":"tool_result","tool_use_id":%q,"content":"rain"}]}]}`,
		content, ids[0], ids[1])
	out, err := rewrite(t, New(Config{}), exchange(t, s, body), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `"contents":[{"role":"user","parts":[{"text":"weather?"}]},{"role":"model","parts":[` +
		`{"text":"I should look up both cities.","thought":true},` +
		`{"functionCall":{"name":"get_weather","args":{"city":"Paris","days":2,"opts":{"unit":"c"}}},"thoughtSignature":"Q2FsbFNpZ25hdHVyZQ=="},` +
		`{"functionCall":{"name":"get_weather","args":{"city":"London"}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"sunny"}}},{"functionResponse":{"name":"get_weather","response":{"output":"rain"}}}]}]`
	if !strings.Contains(string(out.Body), want) {
		t.Errorf("request:\n%s\nwant it to contain\n%s", out.Body, want)
	}
}

// TestMessageGolden: generateContent bodies (and the JSON-array form of
// streamGenerateContent) become exactly the Message pinned beside them.
func TestMessageGolden(t *testing.T) {
	for _, name := range []string{"thinking_call", "array", "blocked", "no_finish"} {
		t.Run(name, func(t *testing.T) {
			s := testSettings()
			x := exchange(t, s, `{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"hi"}]}`)
			got, err := Message(x, readTestdata(t, "messages/"+name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			golden.JSON(t, "messages/"+name+".anthropic.json", normalizeToolIDs(t, s.Signer, got))
		})
	}
}

func TestMessageErrors(t *testing.T) {
	x := exchange(t, testSettings(), `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`)
	cases := []struct {
		body       string
		status     int
		typ, inMsg string
	}{
		{`{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED"}}`, 429, "rate_limit_error", "Resource has been exhausted"},
		{`not json`, 502, "api_error", "malformed Gemini response"},
		{`[{"candidates":[]}, 7]`, 502, "api_error", "malformed Gemini response"},
	}
	for _, c := range cases {
		_, err := Message(x, []byte(c.body))
		e := wire.AsError(err)
		if err == nil || e.Status != c.status || e.Type != c.typ || !strings.Contains(e.Message, c.inMsg) {
			t.Errorf("%s: got %v", c.body, err)
		}
	}
}

// TestStreamBadEscape: a part whose text is not a valid JSON string fails
// the stream instead of losing the text quietly.
func TestStreamBadEscape(t *testing.T) {
	x := exchange(t, testSettings(), streamRequest)
	body := []byte("data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"ok\"}]}}]}\n\n" +
		"data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"bad \\uZZZZ escape\"}]}}]}\n\n")
	r := runStream(t, x, body, 9)
	if r.writeErr == nil || !strings.Contains(r.writeErr.Error(), "malformed Gemini response") ||
		!bytes.HasSuffix(r.events, []byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"malformed Gemini response: bad string in a part's text\"}}\n\n")) {
		t.Errorf("write error %v, events:\n%s", r.writeErr, r.events)
	}
}
