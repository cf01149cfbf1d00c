package responses_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/thinkgate/thinkgate/internal/testgw"
	rt "github.com/thinkgate/thinkgate/providers/responses/responsestest"
)

const streamJSON = `{"model":"gpt-5","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`

// TestEventSizeBound: an upstream event whose data passes max_event_size
// (a reasoning model's delta that never ends) ends the stream with an error
// event after what came before it.
func TestEventSizeBound(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(rt.New("resp_1", "gpt-5").Message("msg_1", "Hi", 0).Bytes())
		_, _ = io.WriteString(w, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"")
		for range 4 {
			if _, err := io.WriteString(w, strings.Repeat("x", 1<<10)); err != nil {
				return
			}
		}
	})
	gw := testgw.Start(t, testgw.SlotResponses, site("\tmax_event_size 2KiB", up))
	testgw.Diff(t, "events", events(t, gw, "/v1/messages", streamJSON), []string{
		"message_start",
		`content_block_start 0 {"type":"text","text":""}`,
		`text_delta 0 "Hi"`,
		"content_block_stop 0",
		`error {"type":"api_error","message":"upstream event-stream event too large"}`,
	})
}

// TestKeepalive: message_start goes out with the upstream's headers, so
// pings flow while the model reasons before its first event.
func TestKeepalive(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		http.NewResponseController(w).Flush()
		time.Sleep(350 * time.Millisecond)
		w.Write(rt.New("resp_1", "gpt-5").Message("msg_1", "done", 0).Completed(nil).Bytes())
	})
	gw := testgw.Start(t, testgw.SlotResponses, site("\tkeepalive 100ms", up))
	got := events(t, gw, "/v1/messages", streamJSON)
	if len(got) < 3 || got[0] != "message_start" || got[1] != "ping" || got[len(got)-1] != "message_stop" {
		t.Errorf("events %v", got)
	}
}
