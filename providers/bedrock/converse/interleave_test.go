package converse

import (
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/ssetest"
)

// blockEvent is one event of a content block, to be put in any order.
type blockEvent struct {
	typ    string
	fields map[string]any
	stop   bool // the block's contentBlockStop
}

type blockEvents []blockEvent

func (e blockEvents) body() []blockEvent { return e.part(false) }
func (e blockEvents) end() []blockEvent  { return e.part(true) }

func (e blockEvents) part(stop bool) []blockEvent {
	var out []blockEvent
	for _, x := range e {
		if x.stop == stop {
			out = append(out, x)
		}
	}
	return out
}

func deltaEvent(i int, d map[string]any) blockEvent {
	return blockEvent{typ: "contentBlockDelta", fields: map[string]any{"contentBlockIndex": i, "delta": d}}
}

func stopEvent(i int) blockEvent {
	return blockEvent{typ: "contentBlockStop", fields: map[string]any{"contentBlockIndex": i}, stop: true}
}

func textEvents(i int, parts ...string) blockEvents {
	var out blockEvents
	for _, p := range parts {
		out = append(out, deltaEvent(i, map[string]any{"text": p}))
	}
	return append(out, stopEvent(i))
}

func reasoningEvents(i int, signature string, parts ...string) blockEvents {
	var out blockEvents
	for _, p := range parts {
		out = append(out, deltaEvent(i, map[string]any{"reasoningContent": map[string]any{"text": p}}))
	}
	if signature != "" {
		out = append(out, deltaEvent(i, map[string]any{"reasoningContent": map[string]any{"signature": signature}}))
	}
	return append(out, stopEvent(i))
}

func toolEvents(i int, id, name string, input ...string) blockEvents {
	out := blockEvents{{typ: "contentBlockStart", fields: map[string]any{"contentBlockIndex": i, "start": map[string]any{"toolUse": map[string]any{"toolUseId": id, "name": name}}}}}
	for _, p := range input {
		out = append(out, deltaEvent(i, map[string]any{"toolUse": map[string]any{"input": p}}))
	}
	return append(out, stopEvent(i))
}

// converseStream frames the events between messageStart and messageStop.
func converseStream(events ...[]blockEvent) []byte {
	f := new(frames).start()
	for _, es := range events {
		for _, e := range es {
			fields := map[string]any{}
			for k, v := range e.fields {
				fields[k] = v
			}
			f.event(e.typ, fields)
		}
	}
	return f.stop("end_turn").metadata(10, 20, 0, 0).bytes()
}

// runInterleaved translates upstream in writes of n bytes; the answer
// is a stream, never an HTTP error.
func runInterleaved(t testing.TB, upstream []byte, n int) ([]byte, error) {
	x := exchange(t, nil, "", streamRequest)
	out, err, httpErr := runStream(t, x, upstream, n)
	if httpErr != nil {
		t.Fatalf("writes of %d: HTTP error %v", n, httpErr)
	}
	return out, err
}

var interleave = providertest.Interleave{Detail: ssetest.StopSequence | ssetest.Usage, Run: runInterleaved}

// TestStreamInterleavedBlocks: blocks whose events interleave give each
// block's content once, in the blocks docs/thinking.md ("Items that
// interleave") describes. Golden files hold the events and the Message the
// SDK accumulates from them.
func TestStreamInterleavedBlocks(t *testing.T) {
	r := reasoningEvents(0, "sigR", "Counting ", "the letters.")
	m := textEvents(1, "There are ", "three.")
	c := toolEvents(1, "t1", "count", `{"word":`, `"strawberry"}`)
	c2 := toolEvents(2, "t2", "spell", `{"w":`, `1}`)
	m2 := textEvents(2, "There are ", "three.")
	sig := r.body()[len(r.body())-1:]
	rText := r.body()[:len(r.body())-1]
	cases := []struct {
		name     string
		upstream []byte
		wantErr  string
	}{
		{"sequential", converseStream(r, m), ""},
		{"stop_last", converseStream(r.body(), m, r.end()), ""},
		// The signature comes after the answer began: the reasoning block
		// closed without it.
		{"signature_after_text", converseStream(rText, m.body(), sig, r.end(), m.end()), ""},
		{"deltas_alternate", converseStream(providertest.Alternate(r.body(), m.body()), r.end(), m.end()), ""},
		{"text_during_call", converseStream(m2.body()[:1], c.body()[:2], m2.body()[1:], c.body()[2:], c.end(), m2.end()), ""},
		{"calls_alternate", converseStream(providertest.Alternate(c.body(), c2.body()), c2.end(), c.end()), ""},
		{"stop_repeated", converseStream(r, r.end(), m, m.end()), ""},
		{"tool_input_for_a_text_block", converseStream(m.body(), []blockEvent{deltaEvent(1, map[string]any{"toolUse": map[string]any{"input": "{}"}})}), "tool input for a content block that is not a tool call"},
		{"tool_input_after_its_stop", converseStream(c, []blockEvent{deltaEvent(1, map[string]any{"toolUse": map[string]any{"input": "{}"}})}), "tool input for a content block that is not a tool call"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { interleave.Golden(t, tc.name, tc.upstream, tc.wantErr) })
	}
}

// FuzzInterleave: blocks are independent of each other where the rules
// of docs/thinking.md make them so, and any order of their events that
// keeps each block's own gives the Message the SDK accumulates from the
// blocks sent one after another: a block's contentBlockStop may come
// later, past other blocks' events, and once a tool call has started,
// the events of the blocks after it may come between its input deltas.
func FuzzInterleave(f *testing.F) {
	blocks := []blockEvents{
		reasoningEvents(0, "sigA", "First ", "thought."),
		textEvents(1, "Some ", "text."),
		toolEvents(2, "t1", "count", `{"word":`, `"straw`, `berry"}`),
		reasoningEvents(3, "sigB", "Second."),
		toolEvents(4, "t2", "spell", `{"w":`, `1}`),
		textEvents(5, "The ", "answer."),
	}
	var sequential []blockEvent
	pieces := make([]providertest.Piece[blockEvent], len(blocks))
	for i, b := range blocks {
		sequential = append(sequential, b...)
		pieces[i] = providertest.Piece[blockEvent]{Events: b, Body: len(b.body()), Call: b[0].typ == "contentBlockStart"}
	}
	want := interleave.Message(f, converseStream(sequential))
	f.Add([]byte{0, 0, 0, 0, 0, 0})
	f.Add([]byte{255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255})
	f.Add([]byte{3, 9, 200, 17, 1, 2, 5, 5, 5, 1, 0, 7, 250, 3})
	f.Fuzz(func(t *testing.T, choice []byte) {
		// A block's events may come once every block before it finished
		// its deltas, or is a tool call that started.
		order := providertest.InterleavedOrder(pieces, choice)
		if got := interleave.Message(t, converseStream(order)); got != want {
			t.Fatalf("the Message differs from the sequential one:\n%s\n--- sequential:\n%s\n--- events:\n%s", got, want, interleave.Events(t, converseStream(order)))
		}
	})
}
