package anthropic

import (
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/providers"
)

// TestEventBoundOnFastPath: a text_delta event the shape fast path would
// take is held to max_event_size like any other, so the outcome does not
// depend on whether the event looked like the one before it.
func TestEventBoundOnFastPath(t *testing.T) {
	small, large := f(shapeDelta, 0, "short"), f(shapeDelta, 0, strings.Repeat("x", 200))
	upstream := shapeStart + f(shapeText, 0) + small + small + large + small + f(shapeStop, 0) + shapeEnd
	for _, chunk := range []int{1, 64, len(upstream)} {
		x := providers.NewExchange(&providers.Settings{SplitTags: true, MaxEventSize: 200}, &providers.Request{Model: "m"}, nil, nil)
		em := providers.NewEmitter(providers.FormThinking, nil)
		s := NewSplitStream(x, em)
		var err error
		for p := []byte(upstream); len(p) > 0 && err == nil; {
			n := min(chunk, len(p))
			err = s.Write(p[:n])
			p = p[n:]
		}
		if err != providers.ErrSSEEventTooLarge {
			t.Fatalf("chunk %d: error %v, want ErrSSEEventTooLarge", chunk, err)
		}
		// The two short deltas before it reach the client (merged into one
		// event); nothing of the large one or after it does.
		if out := string(em.Buf); !strings.Contains(out, `"text":"shortshort"}`) || strings.Contains(out, "xx") || strings.Count(out, "short") != 2 {
			t.Fatalf("chunk %d: emitted\n%s", chunk, out)
		}
	}
}
