package anthropic

import (
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/sse"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// TestEventBoundOnFastPath: a text_delta event the shape fast path would
// take is held to max_event_size like any other, so the outcome does not
// depend on whether the event looked like the one before it.
func TestEventBoundOnFastPath(t *testing.T) {
	small, large := f(shapeDelta, 0, "short"), f(shapeDelta, 0, strings.Repeat("x", 200))
	upstream := shapeStart + f(shapeText, 0) + small + small + large + small + f(shapeStop, 0) + shapeEnd
	for _, chunk := range []int{1, 64, len(upstream)} {
		x := providers.NewExchange(&providers.Settings{SplitTags: true, MaxEventSize: 200}, &wire.Request{Model: "m"}, nil, providers.ExchangeOptions{})
		em := emit.NewEmitter(emit.FormThinking, nil)
		s := NewSplitStream(x, em)
		var err error
		for p := []byte(upstream); len(p) > 0 && err == nil; {
			n := min(chunk, len(p))
			err = s.Write(p[:n])
			p = p[n:]
		}
		if err != sse.ErrEventTooLarge {
			t.Fatalf("chunk %d: error %v, want sse.ErrEventTooLarge", chunk, err)
		}
		// The two short deltas before it reach the client (merged into one
		// event); nothing of the large one or after it does.
		if out := string(em.Events()); !strings.Contains(out, `"text":"shortshort"}`) || strings.Contains(out, "xx") || strings.Count(out, "short") != 2 {
			t.Fatalf("chunk %d: emitted\n%s", chunk, out)
		}
	}
}

// TestCitationBeforeThinking: a citation followed by a thinking span in
// the same upstream text block goes on the text after the span, never on
// an empty text block of its own; streamed and not.
func TestCitationBeforeThinking(t *testing.T) {
	const cite = `{"type":"web_search_result_location","url":"https://example.com","title":"E","encrypted_index":"Eo8B","cited_text":"cited"}`
	upstream := shapeStart + f(shapeText, 0) +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"citations_delta\",\"citation\":" + cite + "}}\n\n" +
		f(shapeDelta, 0, "<thinking>check</thinking>The cited sentence.") + f(shapeStop, 0) + shapeEnd
	settings := &providers.Settings{SplitTags: true}
	x := providers.NewExchange(settings, &wire.Request{Model: "m"}, nil, providers.ExchangeOptions{})
	em := emit.NewEmitter(emit.FormThinking, nil)
	s := NewSplitStream(x, em)
	if err := s.Write([]byte(upstream)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	want := "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"citations_delta\",\"citation\":" + cite + "}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"The cited sentence.\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
	out := string(em.Events())
	if !strings.Contains(out, want) || strings.Count(out, "citations_delta") != 1 || !strings.Contains(out, `"index":0,"content_block":{"type":"thinking"`) {
		t.Errorf("stream:\n%s", out)
	}

	body := `{"id":"m","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"<thinking>check</thinking>The cited sentence.","citations":[` + cite + `]}],"stop_reason":"end_turn"}`
	got, err := SplitMessage(providers.NewExchange(settings, &wire.Request{Model: "m"}, nil, providers.ExchangeOptions{}), []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `{"type":"text","text":"The cited sentence.","citations":[`+cite+`]}]`) || strings.Count(string(got), "citations") != 1 {
		t.Errorf("message: %s", got)
	}
}

// TestWaitingCitationsBounded: citations that wait for a text block (here
// inside a thinking span that never ends) are bounded by max_event_size:
// past it they are placed at once instead of held.
func TestWaitingCitationsBounded(t *testing.T) {
	const cite = `{"type":"web_search_result_location","url":"https://example.com","title":"E","encrypted_index":"Eo8B","cited_text":"cited"}`
	x := providers.NewExchange(&providers.Settings{SplitTags: true, MaxEventSize: 300}, &wire.Request{Model: "m"}, nil, providers.ExchangeOptions{})
	em := emit.NewEmitter(emit.FormThinking, nil)
	s := NewSplitStream(x, em)
	if err := s.Write([]byte(shapeStart + f(shapeText, 0) + f(shapeDelta, 0, "<thinking>long"))); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		err := s.Write([]byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"citations_delta\",\"citation\":" + cite + "}}\n\n"))
		if err != nil || em.WaitingCitations() > 300 {
			t.Fatalf("citation %d: %v, %d bytes waiting", i, err, em.WaitingCitations())
		}
	}
	if n := strings.Count(string(em.Events()), "citations_delta"); n < 9 {
		t.Errorf("%d citations placed, want at least 9:\n%s", n, em.Events())
	}
}
