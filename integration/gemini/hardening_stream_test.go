package gemini_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

const hardeningRequest = `{"model":"claude-sonnet-4-5","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"q"}]}`

// TestHardeningEventSizeBound: data lines without a blank line end the
// stream with an error event past max_event_size, default 16 MiB.
func TestHardeningEventSizeBound(t *testing.T) {
	line := "data: " + strings.Repeat("x", 1<<20-1) + "\r\n"
	for _, tc := range []struct {
		name, options string
		lines         int
	}{{"default", "", 40}, {"option", "\tmax_event_size 2MiB", 4}} {
		t.Run(tc.name, func(t *testing.T) {
			up := mockGemini(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write(sse(chunk(`{"text": "Hi"}`, "", "")))
				for range tc.lines {
					if _, err := io.WriteString(w, line); err != nil {
						return
					}
				}
			})
			gw := testgw.Start(t, testgw.SlotGemini, site(tc.options, up))
			res := gw.Post("/v1/messages", hardeningRequest)
			defer res.Body.Close()
			testgw.Diff(t, "events", testgw.Summary(t, testgw.ReadEvents(t, res.Body)), []string{
				"message_start",
				`content_block_start 0 {"type":"text","text":""}`,
				`text_delta 0 "Hi"`,
				"content_block_stop 0",
				`error {"type":"api_error","message":"upstream event-stream event too large"}`,
			})
		})
	}
}

// TestHardeningLoneSurrogate: a lone surrogate escape in a part's text is
// U+FFFD, as encoding/json has it; the stream no longer fails with "bad
// string in a part's text".
func TestHardeningLoneSurrogate(t *testing.T) {
	up := mockGemini(t, func(w http.ResponseWriter, r *http.Request) {
		testgw.WriteChunks(w, "text/event-stream", sse(
			chunk(`{"text": "t\ud800\n","thought": true}`, "", ""),
			chunk(`{"text": "a\udc00b \ud83d\ude00\t."}`, "STOP", usage(5, 3, 2, 0)),
		), 4)
	})
	gw := testgw.Start(t, testgw.SlotGemini, site("", up))
	msg, _ := gw.Stream(userParams("claude-sonnet-4-5", "q"))
	if len(msg.Content) != 2 || msg.Content[0].Thinking != "t\uFFFD\n" || msg.Content[1].Text != "a\uFFFDb 😀\t." || msg.StopReason != "end_turn" {
		t.Errorf("SDK message: %s", msg.RawJSON())
	}
}
