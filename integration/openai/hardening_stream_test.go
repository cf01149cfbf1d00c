package openai_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
	"github.com/thinkgate/thinkgate/providers/openai/openaitest"
)

const startEvent = `message_start`

// TestHardeningEventSizeBound: data lines without a blank line end the
// stream with an error event past max_event_size, default 16 MiB.
func TestHardeningEventSizeBound(t *testing.T) {
	line := "data: " + strings.Repeat("x", 1<<20-1) + "\n"
	for _, tc := range []struct {
		name, options string
		lines         int
	}{{"default", "", 40}, {"option", "\tmax_event_size 2MiB", 4}} {
		t.Run(tc.name, func(t *testing.T) {
			up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write(openaitest.New().Content("Hi", 0).Bytes())
				for range tc.lines {
					if _, err := io.WriteString(w, line); err != nil {
						return
					}
				}
			})
			gw := testgw.Start(t, testgw.SlotOpenAI, site(tc.options, up))
			_, got := events(t, gw, "/v1/messages", streamJSON)
			testgw.Diff(t, "events", got, []string{
				startEvent,
				`content_block_start 0 {"type":"text","text":""}`,
				`text_delta 0 "Hi"`,
				"content_block_stop 0",
				`error {"type":"api_error","message":"upstream event-stream event too large"}`,
			})
		})
	}
}

// TestHardeningQueueBound: an open tool call followed by more other output
// than max_queued ends the stream with an error event; the client is not
// left with pings while the gateway's memory grows.
func TestHardeningQueueBound(t *testing.T) {
	for _, tc := range []struct {
		name, options, bound string
		pieces               int
	}{{"default", "", "16777216", 17 * 16},
		{"option", "\tmax_queued 256KiB", "262144", 5}} {
		t.Run(tc.name, func(t *testing.T) {
			piece := openaitest.New().Content(strings.Repeat("y", 64<<10), 0).Bytes()
			up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write(openaitest.New().ToolStart(0, "call_1", "get_weather").ToolArgs(0, `{"city":`).Bytes())
				for range tc.pieces {
					if _, err := w.Write(piece); err != nil {
						return
					}
				}
				_, _ = w.Write(openaitest.New().ToolArgs(0, `"Paris"}`).Finish("tool_calls").Done().Bytes())
			})
			gw := testgw.Start(t, testgw.SlotOpenAI, site(tc.options, up))
			_, got := events(t, gw, "/v1/messages", streamJSON)
			testgw.Diff(t, "events", got, []string{
				startEvent,
				`content_block_start 0 {"type":"tool_use","id":"call_1","name":"get_weather","input":{}}`,
				`input_json_delta 0 "{\"city\":"`,
				"content_block_stop 0",
				`error {"type":"api_error","message":"upstream sent more than ` + tc.bound + ` bytes of other output while a tool call's arguments were incomplete"}`,
			})
		})
	}
}

// TestHardeningLoneSurrogate: a lone surrogate escape is U+FFFD and the
// escapes beside it decode; before, the whole delta reached the client
// undecoded (a backslash and an n for a line feed).
func TestHardeningLoneSurrogate(t *testing.T) {
	up := streaming(t, openaitest.New().Delta(`{"content":"a\ud800b\nc"}`).Delta(`{"content":" \ud83d\ude00 <thinking>t\udc00</thinking>ok"}`).
		Finish("stop").Done().Bytes(), 3)
	gw := testgw.Start(t, testgw.SlotOpenAI, site("", up))
	msg, _ := gw.Stream(userParams())
	if len(msg.Content) != 3 || msg.Content[0].Text != "a\uFFFDb\nc 😀 " || msg.Content[1].Thinking != "t\uFFFD" || msg.Content[2].Text != "ok" {
		t.Errorf("SDK message: %s", msg.RawJSON())
	}
}
