package openai

import (
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/openai/openaitest"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// runQueued is runStream with the provider's max_queued set.
func runQueued(t *testing.T, maxQueued int, upstream []byte, chunk int) []string {
	t.Helper()
	x := exchange(t, nil, streamRequest)
	em := emit.NewEmitter(x.Settings.Form, x.Settings.Signer)
	s := NewTranslator(x, nil, maxQueued).NewStream(em)
	var out []byte
	var err error
	for p := upstream; len(p) > 0 && err == nil; {
		n := min(chunk, len(p))
		err = s.Write(p[:n])
		p = p[n:]
	}
	if err == nil {
		err = s.Close()
	}
	if err != nil {
		e := wire.AsError(err)
		em.Fail(e.Type, e.Message)
	}
	out = append(out, em.Events()...)
	got, _ := summary(t, out)
	return got
}

// TestQueueBound: what arrives while a tool call's arguments are incomplete
// is queued only up to max_queued; past it the open call is closed as it
// stands, what waited is dropped, and the stream ends with an error event.
// Below the bound the queue is delivered after the call, in order.
func TestQueueBound(t *testing.T) {
	upstream := func(pieces int, reasoning bool) []byte {
		c := openaitest.New().ToolStart(0, "call_1", "get_weather").ToolArgs(0, `{"city":`)
		for range pieces {
			c.Delta(`{"content":"0123456789"}`)
			if reasoning {
				c.Delta(`{"reasoning_content":"abcdefghij"}`)
			}
		}
		return c.ToolArgs(0, `"Paris"}`).Finish("tool_calls").Done().Bytes()
	}
	head := []string{
		`message_start {"id":"msg_test","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}}`,
		`content_block_start 0 {"type":"tool_use","id":"call_1","name":"get_weather","input":{}}`,
	}
	for _, chunk := range []int{7, 1 << 20} {
		// 50 pieces of 10 bytes, joined into one queue item: within 1 KiB.
		diff(t, "within the bound", runQueued(t, 1024, upstream(50, false), chunk), append(head[:2:2],
			`input_json_delta 0 "{\"city\":\"Paris\"}"`,
			"content_block_stop 0",
			`content_block_start 1 {"type":"text","text":""}`,
			`text_delta 1 "`+strings.Repeat("0123456789", 50)+`"`,
			"content_block_stop 1",
			`message_delta tool_use null {"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}`,
			"message_stop",
		))
		// 60 pieces of text and reasoning by turns, an item each: past 1 KiB.
		diff(t, "past the bound", runQueued(t, 1024, upstream(30, true), chunk), append(head[:2:2],
			`input_json_delta 0 "{\"city\":"`,
			"content_block_stop 0",
			`error {"type":"api_error","message":"upstream sent more than 1024 bytes of other output while a tool call's arguments were incomplete"}`,
		))
	}
	// The default bound is 16 MiB: 17 MiB of content behind an open call fails.
	var b strings.Builder
	b.WriteString(string(openaitest.New().ToolStart(0, "call_1", "f").ToolArgs(0, `{"a":`).Bytes()))
	piece := `data: {"choices":[{"index":0,"delta":{"content":"` + strings.Repeat("x", 64<<10) + `"}}]}` + "\n\n"
	for range 17 * 16 {
		b.WriteString(piece)
	}
	got := runQueued(t, 0, []byte(b.String()), 32<<10)
	if last := got[len(got)-1]; last != `error {"type":"api_error","message":"upstream sent more than 16777216 bytes of other output while a tool call's arguments were incomplete"}` {
		t.Fatalf("default bound: last event %s", last)
	}
}

// TestStringEscapes: a lone surrogate is U+FFFD and the escapes beside it
// decode (before, the whole string went through undecoded); an escape JSON
// does not define fails the stream instead of reaching the client raw.
func TestStringEscapes(t *testing.T) {
	x := exchange(t, nil, streamRequest)
	up := openaitest.New().Delta(`{"content":"a\ud800b\nc"}`).Delta(`{"content":" d\"\u00e9"}`).
		Delta(`{"reasoning_content":"r\udc00\t"}`).Finish("stop").Done().Bytes()
	for _, chunk := range []int{1, 5, len(up)} {
		out, err := runStream(t, NewTranslator(x, nil, 0), up, chunk)
		if err != nil {
			t.Fatal(err)
		}
		_, msg := summary(t, out)
		if len(msg.Content) != 2 || msg.Content[0].Text != "a\uFFFDb\nc d\"é" || msg.Content[1].Thinking != "r\uFFFD\t" {
			t.Fatalf("chunk %d: %s", chunk, msg.RawJSON())
		}
	}
	bad := openaitest.New().Content("ok ", 0).Delta(`{"content":"x\qy"}`).Finish("stop").Done().Bytes()
	for _, chunk := range []int{1, len(bad)} {
		out, err := runStream(t, NewTranslator(exchange(t, nil, streamRequest), nil, 0), bad, chunk)
		got, _ := summary(t, out)
		if err == nil || got[len(got)-1] != `error {"type":"api_error","message":"malformed upstream response: chunk holds a malformed string escape"}` || strings.Contains(string(out), `\\q`) {
			t.Fatalf("chunk %d: %v\n%s", chunk, err, strings.Join(got, "\n"))
		}
	}
}
