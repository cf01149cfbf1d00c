package emit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/thinkparse"
)

// blockContent is a stream's content as a client accumulates it.
type blockContent struct{ Type, Text, Signature string }

// accumulate decodes an SSE body into its blocks.
func accumulate(t *testing.T, sse []byte) []blockContent {
	t.Helper()
	var blocks []blockContent
	sc := bufio.NewScanner(bytes.NewReader(sse))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type         string
			Index        int
			ContentBlock struct{ Type string } `json:"content_block"`
			Delta        struct{ Type, Text, Thinking, Signature string }
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("event data %q: %v", line, err)
		}
		switch ev.Type {
		case "content_block_start":
			if ev.Index != len(blocks) {
				t.Fatalf("block %d starts as number %d", ev.Index, len(blocks))
			}
			blocks = append(blocks, blockContent{Type: ev.ContentBlock.Type})
		case "content_block_delta":
			b := &blocks[ev.Index]
			b.Text += ev.Delta.Text + ev.Delta.Thinking
			b.Signature += ev.Delta.Signature
		}
	}
	return blocks
}

// FuzzEmitterDrain: with a sink set, the events are handed over between
// events once they reach drainAt bytes, so the emitter never holds more
// than drainAt plus one event
// (a delta event of at most DrainAt bytes of text, escaped); and the client
// accumulates exactly the blocks it would without draining.
func FuzzEmitterDrain(f *testing.F) {
	f.Add("Hi <thinking>plan</thinking>answer", uint16(16))
	f.Add(strings.Repeat("<thinking>a</thinking>", 200), uint16(64))
	f.Add(strings.Repeat("€\x00\"\\é", 300)+"<thinking>"+strings.Repeat("x", 5000), uint16(100))
	f.Fuzz(func(t *testing.T, text string, drainAt uint16) {
		at := int(drainAt%2048) + 1
		run := func(drain bool) (out []byte, largest int) {
			em := NewEmitter(FormThinking, NewSigner([]byte("fuzz-key")))
			if drain {
				em = NewStreamEmitter(FormThinking, NewSigner([]byte("fuzz-key")), func(events []byte, _ StreamStatus) []byte {
					largest = max(largest, len(events))
					out = append(out, events...)
					return events[:0]
				}, at)
			}
			em.MessageStart("msg_1", "m", Usage{})
			p := thinkparse.New(thinkparse.Options{}, em)
			p.Write([]byte(text))
			p.Close()
			em.Finish("end_turn", "", Usage{})
			largest = max(largest, len(em.Events()))
			return append(out, em.Events()...), largest
		}
		whole, _ := run(false)
		drained, largest := run(true)
		// One event (a delta of at most `at` bytes escaped six to one, or
		// a signature and block stop) and the fixed-size events that are
		// never drained (message_start; message_delta and message_stop).
		if bound := at + 6*at + 1024; largest > bound {
			t.Fatalf("the emitter held %d bytes with drainAt %d (bound %d)", largest, at, bound)
		}
		a, b := accumulate(t, whole), accumulate(t, drained)
		if len(a) != len(b) {
			t.Fatalf("%d blocks without draining, %d with", len(a), len(b))
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("block %d differs:\n%+v\n%+v", i, a[i], b[i])
			}
		}
	})
}
