package anthropic

import (
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// TestSplitStreamBeforeMessageStart: an upstream whose stream does not begin
// with message_start is malformed; nothing reaches the client before the
// error, and a ping before message_start is dropped, not forwarded.
func TestSplitStreamBeforeMessageStart(t *testing.T) {
	for _, tc := range []struct{ name, upstream, wantErr, wantOut string }{
		{"block", f(shapeText, 0), "malformed upstream event: content_block_start before message_start", ""},
		{"delta", f(shapeDelta, 0, "x"), "malformed upstream event: content_block_delta before message_start", ""},
		{"stop", "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n", "malformed upstream event: message_stop before message_start", ""},
		{"unnamed, cut", `data:{"type":"content_block_start","content_block":{"type":"tool_use"}}`, "malformed upstream event: content_block_start before message_start", ""},
		{"ping first", "event: ping\ndata: {\"type\":\"ping\"}\n\n" + shapeStart, "", "event: message_start\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			settings := &providers.Settings{SplitTags: true}
			x := providers.NewExchange(settings, &wire.Request{Model: "m"}, nil, providers.ExchangeOptions{})
			em := emit.NewEmitter(emit.FormThinking, nil)
			s := NewSplitStream(x, em)
			err := s.Write([]byte(tc.upstream))
			if err == nil && tc.wantErr != "" {
				err = s.Close()
			}
			got := ""
			if err != nil {
				e := wire.AsError(err)
				if got = e.Message; e.Status != 502 {
					t.Errorf("status %d, want 502", e.Status)
				}
			}
			if got != tc.wantErr {
				t.Fatalf("error %q, want %q", got, tc.wantErr)
			}
			if !strings.HasPrefix(string(em.Events()), tc.wantOut) || tc.wantOut == "" && len(em.Events()) > 0 {
				t.Errorf("emitted %q, want it to begin with %q", em.Events(), tc.wantOut)
			}
		})
	}
}
