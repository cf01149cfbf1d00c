package responses

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	rt "github.com/thinkgate/thinkgate/providers/responses/responsestest"
	"github.com/thinkgate/thinkgate/providers/sse"
)

// TestStreamEndlessReasoningStreams: a reasoning item that never ends
// costs no memory: each delta reaches the client with the write that
// carried it (nothing is collected for the item's done), and the stream
// ends when the upstream's does.
func TestStreamEndlessReasoningStreams(t *testing.T) {
	x := exchange(t, nil, streamRequest)
	em := emit.NewEmitter(x.Settings.Form, x.Settings.Signer)
	s := NewTranslator(x, nil).NewStream(em).(*StreamTranslator)
	b := rt.New("resp_1", "gpt-5").Event("response.output_item.added", map[string]any{"output_index": 0,
		"item": map[string]any{"id": "rs_1", "type": "reasoning", "summary": []any{}}})
	if err := s.Write(b.Bytes()); err != nil {
		t.Fatal(err)
	}
	em.Flush()
	piece := strings.Repeat("think ", 700) // 4200 bytes
	for i := range 2000 {                  // 8.4 MB in all
		ev := rt.New("r", "m").Event("response.reasoning_summary_text.delta", map[string]any{"item_id": "rs_1", "output_index": 0, "delta": piece}).Bytes()
		ev = ev[strings.Index(string(ev), "event: response.reasoning_summary_text.delta"):]
		if err := s.Write(ev); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		if got := string(em.Events()); !strings.Contains(got, `"thinking_delta"`) || !strings.Contains(got, "think think") {
			t.Fatalf("write %d: the delta did not reach the client with its write: %q", i, got)
		}
		em.Flush()
	}
	if s.t.held.Len() != 0 || s.t.held.Bytes() != 0 {
		t.Fatalf("%d bytes held for an item nothing interleaved with", s.t.held.Bytes())
	}
	if err := s.Close(); err == nil || !strings.Contains(err.Error(), "without response.completed") {
		t.Fatalf("Close: %v, want the stream's unfinished end", err)
	}
}

// TestStreamHostileFrames: each hostile upstream gets the error that names
// what was wrong, after the content that came before it, and never a
// second copy of any content.
func TestStreamHostileFrames(t *testing.T) {
	added := func(b *rt.Builder, oi int, id, typ string) *rt.Builder {
		return b.Event("response.output_item.added", map[string]any{"output_index": oi, "item": map[string]any{"id": id, "type": typ, "call_id": "c_" + id, "name": "f"}})
	}
	manyItems := rt.New("r", "m")
	for i := range MaxItems + 1 {
		added(manyItems, i, fmt.Sprintf("rs_%d", i), "reasoning")
	}
	held := added(added(rt.New("r", "m"), 0, "fc_1", "function_call"), 1, "msg_1", "message").
		Event("response.function_call_arguments.delta", map[string]any{"item_id": "fc_1", "output_index": 0, "delta": `{"a":`})
	for range providers.MaxHeld/(64<<10) + 1 {
		held.Event("response.output_text.delta", map[string]any{"item_id": "msg_1", "output_index": 1, "delta": strings.Repeat("x", 64<<10)})
	}
	cases := []struct {
		name     string
		upstream []byte
		maxEvent int
		want     string
	}{
		{name: "giant single delta", maxEvent: 1 << 20,
			upstream: added(rt.New("r", "m"), 0, "msg_1", "message").Event("response.output_text.delta", map[string]any{"item_id": "msg_1", "output_index": 0, "delta": strings.Repeat("y", 2<<20)}).Completed(nil).Bytes(),
			want:     sse.ErrEventTooLarge.Message},
		{name: "more items than MaxItems", upstream: manyItems.Completed(nil).Bytes(),
			want: fmt.Sprintf("more than %d output items", MaxItems)},
		{name: "other items' text held past providers.MaxHeld while a call streams", upstream: held.Completed(nil).Bytes(),
			want: fmt.Sprintf("more than %d bytes of other items", providers.MaxHeld)},
		{name: "arguments for a call never opened",
			upstream: rt.New("r", "m").Event("response.function_call_arguments.delta", map[string]any{"item_id": "fc_9", "output_index": 0, "delta": "{}"}).Completed(nil).Bytes(),
			want:     "function call arguments for an item that is not open"},
		{name: "an item that never ends, cut off",
			upstream: added(rt.New("r", "m"), 0, "fc_1", "function_call").Event("response.function_call_arguments.delta", map[string]any{"item_id": "fc_1", "output_index": 0, "delta": `{"a":`}).Bytes(),
			want:     "without response.completed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := testSettings()
			s.MaxEventSize = tc.maxEvent
			x := exchange(t, s, streamRequest)
			out, err := runStream(t, NewTranslator(x, nil), tc.upstream, 1<<16)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			lines := providertest.Lines(t, out, 0)
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, "error ") {
				t.Fatalf("the stream does not end with an error event: %v", lines)
			}
		})
	}
}

// TestStreamItemNeverEnds: a response that completes with items still open
// closes each block once; the call's input is whole JSON.
func TestStreamItemNeverEnds(t *testing.T) {
	up := rt.New("r", "m").
		Event("response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{"id": "rs_1", "type": "reasoning"}}).
		Event("response.reasoning_summary_text.delta", map[string]any{"item_id": "rs_1", "output_index": 0, "delta": "Hmm."}).
		Event("response.output_item.added", map[string]any{"output_index": 1, "item": map[string]any{"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "f"}}).
		Event("response.function_call_arguments.delta", map[string]any{"item_id": "fc_1", "output_index": 1, "delta": `{"a":1}`}).
		Event("response.output_item.added", map[string]any{"output_index": 2, "item": map[string]any{"id": "msg_1", "type": "message"}}).
		Event("response.output_text.delta", map[string]any{"item_id": "msg_1", "output_index": 2, "delta": "Held."}).
		Completed(nil).Bytes()
	x := exchange(t, nil, streamRequest)
	out, err := runStream(t, NewTranslator(x, nil), up, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := summary(t, out)
	want := ssetest.Seq(line("message_start"),
		ssetest.ThinkingBlock(0, "Hmm.", respSig("rs_1", "", "Hmm.")),
		ssetest.ToolBlock(1, "call_1", "f", `{"a":1}`), ssetest.TextBlock(2, "Held."),
		line("message_delta tool_use null "+ssetest.UsageJSON(0, 0, 0), "message_stop"))
	diff(t, "events", got, want)
}
