package amazonq

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers/emit"
)

// qEvent is one event of an item of the answer, to be put in any order.
type qEvent struct {
	typ     string
	payload string
	stop    bool // a tool call's stop:true fragment
}

type qItem []qEvent

func (e qItem) body() []qEvent { return e.part(false) }
func (e qItem) end() []qEvent  { return e.part(true) }

func (e qItem) part(stop bool) []qEvent {
	var out []qEvent
	for _, x := range e {
		if x.stop == stop {
			out = append(out, x)
		}
	}
	return out
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func textEvents(parts ...string) qItem {
	var out qItem
	for _, p := range parts {
		out = append(out, qEvent{typ: "assistantResponseEvent", payload: jsonOf(map[string]string{"content": p})})
	}
	return out
}

func reasoningEvents(signature string, parts ...string) qItem {
	var out qItem
	for _, p := range parts {
		out = append(out, qEvent{typ: "reasoningContentEvent", payload: jsonOf(map[string]string{"text": p})})
	}
	if signature != "" {
		out = append(out, qEvent{typ: "reasoningContentEvent", payload: jsonOf(map[string]string{"signature": signature})})
	}
	return out
}

// toolEvents is a call as Amazon Q streams it: a fragment with its name,
// its input in string fragments, and a fragment with stop:true.
func toolEvents(id, name string, input ...string) qItem {
	out := qItem{toolEvent(map[string]any{"toolUseId": id, "name": name})}
	for _, p := range input {
		out = append(out, toolEvent(map[string]any{"toolUseId": id, "input": p}))
	}
	stop := toolEvent(map[string]any{"toolUseId": id, "stop": true})
	stop.stop = true
	return append(out, stop)
}

func toolEvent(fields map[string]any) qEvent {
	return qEvent{typ: "toolUseEvent", payload: jsonOf(fields)}
}

// qStream frames the events, then the answer's metadata.
func qStream(t testing.TB, events ...[]qEvent) []byte {
	return append(qFrames(t, events...), eventFrame(t, "metadataEvent", `{"tokenUsage":{"uncachedInputTokens":10,"outputTokens":20}}`)...)
}

// qFrames frames the events.
func qFrames(t testing.TB, events ...[]qEvent) []byte {
	var b bytes.Buffer
	for _, es := range events {
		for _, e := range es {
			b.Write(eventFrame(t, e.typ, e.payload))
		}
	}
	return b.Bytes()
}

// runInterleaved translates upstream in writes of n bytes.
func runInterleaved(t testing.TB, upstream []byte, n int) ([]byte, error) {
	x := exchange(t, testSettings(), basicRequest)
	em := emit.NewEmitter(x.Settings.Form, x.Settings.Signer)
	return providertest.RunStream(t, em, NewTranslator(x).NewStream(em), upstream, n)
}

var interleave = providertest.Interleave{Detail: ssetest.Usage | ssetest.MaskSignatures, Run: runInterleaved}

// TestStreamInterleavedItems: tool calls whose fragments interleave with
// each other's and with text and reasoning give each call its whole input
// once, in the blocks docs/thinking.md ("Items that interleave")
// describes. Golden files hold the events and the Message the SDK
// accumulates from them.
func TestStreamInterleavedItems(t *testing.T) {
	r := reasoningEvents("sigR", "Counting ", "the letters.")
	m := textEvents("There are ", "three.")
	c := toolEvents("t1", "count", `{"word":`, `"straw`, `berry"}`)
	c2 := toolEvents("t2", "spell", `{"w":`, `1}`)
	cases := []struct {
		name     string
		upstream []byte
		wantErr  string
	}{
		{"sequential", qStream(t, r, m, c, c2), ""},
		// Text and reasoning that come while a call's input streams wait
		// for its stop.
		{"text_during_call", qStream(t, c.body()[:2], m, c.body()[2:], c.end()), ""},
		{"reasoning_during_call", qStream(t, c.body()[:1], r, c.body()[1:], m[:1], c.end(), m[1:]), ""},
		{"calls_alternate", qStream(t, providertest.Alternate(c.body(), c2.body()), c2.end(), c.end()), ""},
		// A repeated stop, and input for a call that ended, add nothing
		// and are not taken for a new call.
		{"stop_repeated", qStream(t, c, c.end(), m, c.end()), ""},
		{"input_after_its_stop", qStream(t, c, []qEvent{toolEvent(map[string]any{"toolUseId": "t1", "input": "{}"})}, m), ""},
		// Input that only comes with the stop, as a string or as an
		// object, is the call's input.
		{"input_only_in_stop", qStream(t, []qEvent{
			toolEvent(map[string]any{"toolUseId": "t1", "name": "count", "input": `{"word":"strawberry"}`, "stop": true}),
			toolEvent(map[string]any{"toolUseId": "t2", "name": "spell", "input": map[string]any{"w": 1}, "stop": true}),
		}), ""},
		// A whole input after fragments carried it adds nothing.
		{"whole_input_after_fragments", qStream(t, c.body(), []qEvent{
			toolEvent(map[string]any{"toolUseId": "t1", "input": map[string]any{"word": "strawberry"}, "stop": true}),
		}), ""},
		// A call that never stops ends with the answer; what it held
		// back follows.
		{"call_never_stops", qStream(t, c.body(), m, c2), ""},
		// What waits when the stream fails goes out before the error: it
		// arrived.
		{"exception_during_call", concat(qFrames(t, c.body()[:2], m, c2.body()), exceptionFrame(t, "ThrottlingException", `{"message":"slow down"}`)), "slow down"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { interleave.Golden(t, tc.name, tc.upstream, tc.wantErr) })
	}
}

// TestStreamInterleavedBounds: what waits behind an open call, and the
// calls one answer remembers, are bounded; past the bound the stream ends
// with an error event.
func TestStreamInterleavedBounds(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	held := []qEvent{toolEvent(map[string]any{"toolUseId": "t1", "name": "count", "input": `{"a":`})}
	for range 5 {
		held = append(held, textEvents(big)...)
	}
	var calls []qEvent
	for i := range MaxToolCalls + 1 {
		calls = append(calls, toolEvent(map[string]any{"toolUseId": fmt.Sprint("t", i), "name": "n", "stop": true}))
	}
	for _, tc := range []struct {
		name     string
		upstream []byte
		want     string
	}{
		{"held", qStream(t, held), `error {"type":"api_error","message":"malformed upstream response: more than 4 MiB of other items arrived while a tool call was open"}`},
		{"calls", qStream(t, calls), `error {"type":"api_error","message":"malformed upstream event stream: more than 4096 tool calls in one answer"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runInterleaved(t, tc.upstream, 1<<20)
			if err == nil {
				t.Fatal("no error")
			}
			lines := summary(t, out)
			if got := lines[len(lines)-1]; got != tc.want {
				t.Fatalf("last event %s, want %s", got, tc.want)
			}
		})
	}
}

// FuzzInterleave: items are independent of each other where the rules of
// docs/thinking.md make them so, and any order of their events that keeps
// each item's own gives the Message the SDK accumulates from the items
// sent one after another: a call's stop may come later, past other items'
// events, and once a call has started, the events of the items after it
// may come between its fragments. (Text and reasoning carry no identity:
// their events keep their order.)
func FuzzInterleave(f *testing.F) {
	items := []qItem{
		reasoningEvents("sigA", "First ", "thought."),
		textEvents("Some ", "text."),
		toolEvents("t1", "count", `{"word":`, `"straw`, `berry"}`),
		reasoningEvents("sigB", "Second."),
		toolEvents("t2", "spell", `{"w":`, `1}`),
		textEvents("The ", "answer."),
	}
	var sequential []qEvent
	pieces := make([]providertest.Piece[qEvent], len(items))
	for i, it := range items {
		sequential = append(sequential, it...)
		pieces[i] = providertest.Piece[qEvent]{Events: it, Body: len(it.body()), Call: it[0].typ == "toolUseEvent"}
	}
	want := interleave.Message(f, qStream(f, sequential))
	f.Add([]byte{0, 0, 0, 0, 0, 0})
	f.Add([]byte{255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255})
	f.Add([]byte{3, 9, 200, 17, 1, 2, 5, 5, 5, 1, 0, 7, 250, 3})
	f.Fuzz(func(t *testing.T, choice []byte) {
		// An item's events may come once every item before it sent its
		// body, or is a call that started.
		order := providertest.InterleavedOrder(pieces, choice)
		if got := interleave.Message(t, qStream(t, order)); got != want {
			t.Fatalf("the Message differs from the sequential one:\n%s\n--- sequential:\n%s\n--- events:\n%s", got, want, interleave.Events(t, qStream(t, order)))
		}
	})
}
