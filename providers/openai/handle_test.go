package openai

import (
	"net/http"
	"testing"

	"github.com/thinkgate/thinkgate/providers"
)

// TestHandle: every Chat Completions response is translated: an event
// stream as it flows (only when the client asked for one), any other 2xx
// body whole, an error mapped; the upstream's own headers never pass.
func TestHandle(t *testing.T) {
	sse := http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}}
	jsonBody := http.Header{"Content-Type": {"application/json"}}
	for _, c := range []struct {
		request string
		status  int
		header  http.Header
		want    string
	}{
		{streamRequest, 200, sse, "stream"},
		{streamRequest, 200, jsonBody, "body"},
		{nonStreamRequest, 200, sse, "body"},
		{streamRequest, 429, jsonBody, "error"},
	} {
		x := exchange(t, nil, c.request)
		tr, err := New(Config{}).Rewrite(x, &providers.Outbound{Header: http.Header{}})
		if err != nil {
			t.Fatal(err)
		}
		h := tr.Handle(c.status, c.header)
		got := "pass"
		switch {
		case h.NewStream != nil:
			got = "stream"
		case h.Body != nil:
			got = "body"
		case h.Error != nil:
			got = "error"
		}
		if got != c.want || h.UpstreamHeader {
			t.Errorf("stream %v, status %d, %s: %s (upstream header %v), want %s", x.Streaming, c.status, c.header.Get("Content-Type"), got, h.UpstreamHeader, c.want)
		}
	}
}
