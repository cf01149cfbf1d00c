package responses

import (
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/ssetest"
	rt "github.com/thinkgate/thinkgate/providers/responses/responsestest"
)

// ev is one upstream event of an output item, to be put in any order.
type ev struct {
	typ    string
	fields map[string]any
	phase  phase
	item   int // the item's position in its case
}

type phase uint8

const (
	phaseAdded phase = iota
	phaseBody
	phaseDone
)

// itemEvents are an item's events in the order the item itself sends them.
type itemEvents []ev

func (e itemEvents) of(p phase) []ev {
	var out []ev
	for _, x := range e {
		if x.phase == p {
			out = append(out, x)
		}
	}
	return out
}

// reasoning is a reasoning item's events; deltas false leaves its text to
// its done events. ident drops item_id from every event but
// output_item.* when false (a server that names items by output_index).
func reasoningItemEvents(oi int, id, enc string, parts []string, deltas bool) itemEvents {
	out := itemEvents{{typ: "response.output_item.added", phase: phaseAdded,
		fields: map[string]any{"output_index": oi, "item": map[string]any{"id": id, "type": "reasoning", "summary": []any{}}}}}
	var summary []any
	for si, p := range parts {
		if deltas {
			out = append(out, ev{typ: "response.reasoning_summary_part.added", phase: phaseBody,
				fields: map[string]any{"item_id": id, "output_index": oi, "summary_index": si, "part": map[string]any{"type": "summary_text", "text": ""}}})
			for _, d := range rt.Chunks(p, 9) {
				out = append(out, ev{typ: "response.reasoning_summary_text.delta", phase: phaseBody,
					fields: map[string]any{"item_id": id, "output_index": oi, "summary_index": si, "delta": d}})
			}
		}
		out = append(out, ev{typ: "response.reasoning_summary_text.done", phase: phaseDone,
			fields: map[string]any{"item_id": id, "output_index": oi, "summary_index": si, "text": p}})
		summary = append(summary, map[string]any{"type": "summary_text", "text": p})
	}
	if summary == nil {
		summary = []any{}
	}
	item := map[string]any{"id": id, "type": "reasoning", "summary": summary}
	if enc != "" {
		item["encrypted_content"] = enc
	}
	return append(out, ev{typ: "response.output_item.done", phase: phaseDone, fields: map[string]any{"output_index": oi, "item": item}})
}

func messageItemEvents(oi int, id, text string, deltas bool) itemEvents {
	out := itemEvents{{typ: "response.output_item.added", phase: phaseAdded,
		fields: map[string]any{"output_index": oi, "item": map[string]any{"id": id, "type": "message", "role": "assistant", "content": []any{}}}}}
	if deltas {
		for _, d := range rt.Chunks(text, 7) {
			out = append(out, ev{typ: "response.output_text.delta", phase: phaseBody,
				fields: map[string]any{"item_id": id, "output_index": oi, "content_index": 0, "delta": d}})
		}
	}
	part := map[string]any{"type": "output_text", "annotations": []any{}, "text": text}
	return append(out,
		ev{typ: "response.output_text.done", phase: phaseDone, fields: map[string]any{"item_id": id, "output_index": oi, "content_index": 0, "text": text}},
		ev{typ: "response.output_item.done", phase: phaseDone, fields: map[string]any{"output_index": oi,
			"item": map[string]any{"id": id, "type": "message", "role": "assistant", "status": "completed", "content": []any{part}}}})
}

func callItemEvents(oi int, id, callID, name string, args []string, deltas bool) itemEvents {
	out := itemEvents{{typ: "response.output_item.added", phase: phaseAdded,
		fields: map[string]any{"output_index": oi, "item": map[string]any{"id": id, "type": "function_call", "call_id": callID, "name": name, "arguments": ""}}}}
	if deltas {
		for _, a := range args {
			out = append(out, ev{typ: "response.function_call_arguments.delta", phase: phaseBody,
				fields: map[string]any{"item_id": id, "output_index": oi, "delta": a}})
		}
	}
	full := strings.Join(args, "")
	return append(out,
		ev{typ: "response.function_call_arguments.done", phase: phaseDone, fields: map[string]any{"item_id": id, "output_index": oi, "arguments": full}},
		ev{typ: "response.output_item.done", phase: phaseDone, fields: map[string]any{"output_index": oi,
			"item": map[string]any{"id": id, "type": "function_call", "call_id": callID, "name": name, "arguments": full, "status": "completed"}}})
}

// withoutItemIDs drops item_id from the item's events: a server that names
// items by output_index alone.
func withoutItemIDs(e itemEvents) itemEvents {
	out := make(itemEvents, len(e))
	for i, x := range e {
		f := map[string]any{}
		for k, v := range x.fields {
			if k != "item_id" {
				f[k] = v
			}
		}
		out[i] = ev{typ: x.typ, fields: f, phase: x.phase, item: x.item}
	}
	return out
}

// stream writes events, then response.completed.
func stream(events ...[]ev) []byte {
	b := rt.New("resp_i", "gpt-x")
	for _, es := range events {
		for _, e := range es {
			b.Event(e.typ, e.fields)
		}
	}
	return b.Completed(rt.Usage(10, 0, 20, 5)).Bytes()
}

func evs(parts ...[]ev) []ev {
	var out []ev
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// TestStreamInterleavedItems: items that interleave, in the orders the
// Responses API allows, give each item's content once, in the blocks
// docs/thinking.md ("Items that interleave") describes. Golden files
// hold the events and the Message the SDK accumulates from them.
func TestStreamInterleavedItems(t *testing.T) {
	const (
		think  = "Counting the letters first."
		think2 = "Then checking the count."
		answer = "There are three."
	)
	r := reasoningItemEvents(0, "rs_1", "encLate", []string{think, think2}, true)
	rQuiet := reasoningItemEvents(0, "rs_1", "encLate", []string{think}, false)
	m := messageItemEvents(1, "msg_1", answer, true)
	mQuiet := messageItemEvents(1, "msg_1", answer, false)
	c := callItemEvents(1, "fc_1", "call_1", "count", []string{`{"word":`, `"strawberry",`, `"letter":"r"}`}, true)
	c2 := callItemEvents(2, "fc_2", "call_2", "spell", []string{`{"word":`, `"berry"}`}, true)
	m2 := messageItemEvents(2, "msg_2", answer, true)
	cases := []struct {
		name     string
		upstream []byte
		wantErr  string
	}{
		{"sequential", stream(r, m), ""},
		// The recorded case: the message opens while the reasoning item
		// is open; the reasoning's done events come last.
		{"reasoning_done_last", stream(r.of(phaseAdded), r.of(phaseBody), m, r.of(phaseDone)), ""},
		{"reasoning_done_last_index_only", stream(evs(withoutItemIDs(r).of(phaseAdded), withoutItemIDs(r).of(phaseBody)), withoutItemIDs(m), withoutItemIDs(r).of(phaseDone)), ""},
		{"both_added_first", stream(r.of(phaseAdded), m.of(phaseAdded), r.of(phaseBody), m.of(phaseBody), m.of(phaseDone), r.of(phaseDone)), ""},
		// Deltas of the two items alternate: each keeps its own text.
		{"deltas_alternate", stream(r.of(phaseAdded), m.of(phaseAdded), providertest.Alternate(r.of(phaseBody), m.of(phaseBody)), r.of(phaseDone), m.of(phaseDone)), ""},
		// A reasoning item with no deltas: its done is its only content.
		{"reasoning_without_deltas_done_last", stream(rQuiet.of(phaseAdded), m, rQuiet.of(phaseDone)), ""},
		{"message_without_deltas_done_first", stream(r.of(phaseAdded), r.of(phaseBody), mQuiet, r.of(phaseDone)), ""},
		{"done_repeated", stream(r, r.of(phaseDone), m, m.of(phaseDone)), ""},
		// A call's arguments are never cut: text that comes while the call
		// streams waits for the call's end.
		{"text_during_call", stream(m.of(phaseAdded), c2.of(phaseAdded), m.of(phaseBody)[:1], c2.of(phaseBody)[:1], m.of(phaseBody)[1:], c2.of(phaseBody)[1:], c2.of(phaseDone), m.of(phaseDone)), ""},
		{"calls_alternate", stream(c.of(phaseAdded), c2.of(phaseAdded), providertest.Alternate(c.of(phaseBody), c2.of(phaseBody)), c2.of(phaseDone), c.of(phaseDone)), ""},
		{"call_done_last", stream(r.of(phaseAdded), r.of(phaseBody), c.of(phaseAdded), c.of(phaseBody), m2, r.of(phaseDone), c.of(phaseDone)), ""},
		{"arguments_of_unannounced_call", stream(m.of(phaseAdded), []ev{{typ: "response.function_call_arguments.delta", fields: map[string]any{"item_id": "fc_9", "output_index": 3, "delta": "{}"}}}), "function call arguments for an item that is not open"},
		{"arguments_after_call_done", stream(c, []ev{{typ: "response.function_call_arguments.delta", fields: map[string]any{"item_id": "fc_1", "output_index": 1, "delta": "{}"}}}), "function call arguments for an item that is not open"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { interleave.Golden(t, tc.name, tc.upstream, tc.wantErr) })
	}
}

// FuzzInterleave: moving an item's output_item.added earlier or its done
// events later — past any events of other items — changes nothing the
// client accumulates: the SDK's Message is the one of the items sent one
// after another. (Each item's done carries nothing its deltas did not, so
// nothing is lost wherever it comes.)
func FuzzInterleave(f *testing.F) {
	items := []itemEvents{
		reasoningItemEvents(0, "rs_1", "", []string{"First thought.", "Second thought."}, true),
		messageItemEvents(1, "msg_1", "Some text <b>before</b> the call.", true),
		callItemEvents(2, "fc_1", "call_1", "count", []string{`{"word":`, `"strawberry"}`}, true),
		reasoningItemEvents(3, "rs_2", "", []string{"After the call."}, true),
		callItemEvents(4, "fc_2", "call_2", "spell", []string{`{"w":`, `1}`}, true),
		messageItemEvents(5, "msg_2", "The answer.", true),
	}
	var body []ev
	first := make([]int, len(items))
	last := make([]int, len(items))
	for i, it := range items {
		first[i] = len(body)
		for _, e := range it.of(phaseBody) {
			e.item = i
			body = append(body, e)
		}
		last[i] = len(body) - 1
	}
	var sequential []ev
	for _, it := range items {
		sequential = append(sequential, it...)
	}
	want := interleave.Message(f, stream(sequential))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255})
	f.Add([]byte{3, 9, 200, 17, 1, 2, 80, 40, 5, 6, 7, 250})
	f.Fuzz(func(t *testing.T, moves []byte) {
		// at[k] are the added and done events that go before body[k].
		at := make([][]ev, len(body)+1)
		for i, it := range items {
			pick := func(j int, lo, hi int) int {
				if j >= len(moves) {
					return -1
				}
				return lo + int(moves[j])%(hi-lo+1)
			}
			if k := pick(2*i, 0, first[i]); k >= 0 {
				at[k] = append(at[k], it.of(phaseAdded)...)
			} else {
				at[first[i]] = append(at[first[i]], it.of(phaseAdded)...)
			}
			if k := pick(2*i+1, last[i]+1, len(body)); k >= 0 {
				at[k] = append(at[k], it.of(phaseDone)...)
			} else {
				at[last[i]+1] = append(at[last[i]+1], it.of(phaseDone)...)
			}
		}
		var order []ev
		for k := range body {
			order = append(order, at[k]...)
			order = append(order, body[k])
		}
		order = append(order, at[len(body)]...)
		got := interleave.Message(t, stream(order))
		if got != want {
			t.Fatalf("the Message differs from the sequential one:\n%s\n--- sequential:\n%s\n--- events:\n%s", got, want, interleave.Events(t, stream(order)))
		}
	})
}

// runInterleaved translates upstream in writes of n bytes.
func runInterleaved(t testing.TB, upstream []byte, n int) ([]byte, error) {
	x := exchange(t, nil, streamRequest)
	return runStream(t, NewTranslator(x, nil), upstream, n)
}

var interleave = providertest.Interleave{Detail: ssetest.StopSequence | ssetest.Usage, Run: runInterleaved}
