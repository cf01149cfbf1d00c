package emit

import (
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/thinkparse"
)

// TestDeltaMerge: deltas of one block written back to back, unflushed, are
// one event; a flush, another event, or another block starts a new one.
func TestDeltaMerge(t *testing.T) {
	em := NewEmitter(FormThinking, nil)
	em.MessageStart("msg_1", "m", Usage{})
	em.Text([]byte("a"))
	em.Text([]byte("b\"<"))
	if got := strings.Count(string(em.Events()), "text_delta"); got != 1 || !strings.Contains(string(em.Events()), `"text":"ab\"\u003c"}}`+"\n\n") {
		t.Fatalf("unflushed deltas not merged:\n%s", em.Events())
	}
	em.Flush()
	em.Text([]byte("c"))
	if want := "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"c\"}}\n\n"; string(em.Events()) != want {
		t.Fatalf("after a flush:\n%q\nwant\n%q", em.Events(), want)
	}
	em.Ping()
	em.Text([]byte("d"))
	if got := strings.Count(string(em.Events()), "text_delta"); got != 2 {
		t.Fatalf("merged across a ping:\n%s", em.Events())
	}
	em.ThinkingStart(&thinkparse.Meta{})
	em.Thinking([]byte("x"))
	em.Thinking([]byte("y"))
	em.ThinkingEnd()
	em.Text([]byte("e"))
	out := string(em.Events())
	if strings.Count(out, "thinking_delta") != 1 || !strings.Contains(out, `"thinking":"xy"`) || !strings.Contains(out, `"index":2,"delta":{"type":"text_delta","text":"e"}`) {
		t.Fatalf("blocks:\n%s", out)
	}
	// Events written after a flush, up to exactly the length the buffer had,
	// are not mistaken for the unflushed delta.
	em2 := NewEmitter(FormThinking, nil)
	em2.MessageStart("msg_1", "m", Usage{})
	em2.Ping()
	em2.Flush()
	em2.Text([]byte("z"))
	n := len(em2.Events())
	em2.Flush()
	for len(em2.Events()) < n {
		em2.RawEvent("x", []byte(`{"type":"x"}`))
	}
	em2.sse.buf = em2.sse.buf[:n] // other events, exactly as long as the flushed delta
	em2.Text([]byte("w"))
	if !strings.HasSuffix(string(em2.Events()), `"text":"w"}}`+"\n\n") || strings.Count(string(em2.Events()), "text_delta") != 1 {
		t.Fatalf("merged into other events:\n%s", em2.Events())
	}
}
