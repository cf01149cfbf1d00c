package responses

import (
	"net/http"
	"testing"

	"github.com/thinkgate/thinkgate/providers"
)

// TestHandle: every Responses answer is translated: an event stream as it
// flows (only when the client asked for one and not for count_tokens), any
// other 2xx body whole (a count_tokens answer as {"input_tokens":N}), an
// error mapped into Anthropic's shape; the upstream's own headers never pass.
func TestHandle(t *testing.T) {
	sse := http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}}
	jsonBody := http.Header{"Content-Type": {"application/json"}}
	for _, c := range []struct {
		request     string
		countTokens bool
		status      int
		header      http.Header
		want        string
	}{
		{streamRequest, false, 200, sse, "stream"},
		{streamRequest, false, 200, jsonBody, "body"},
		{messageRequest, false, 200, sse, "body"},
		{streamRequest, true, 200, sse, "body"},
		{streamRequest, false, 429, jsonBody, "error"},
	} {
		x := exchange(t, nil, c.request)
		x.CountTokens = c.countTokens
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
			t.Errorf("stream %v, count_tokens %v, status %d, %s: %s (upstream header %v), want %s",
				x.Streaming, c.countTokens, c.status, c.header.Get("Content-Type"), got, h.UpstreamHeader, c.want)
		}
	}

	// The count_tokens body is the input_tokens endpoint's answer.
	x := exchange(t, nil, messageRequest)
	x.CountTokens = true
	tr, _ := New(Config{}).Rewrite(x, &providers.Outbound{Header: http.Header{}})
	out, err := tr.Handle(200, jsonBody).Body([]byte(`{"object":"response.input_tokens","input_tokens":77}`))
	if err != nil || string(out) != `{"input_tokens":77}` {
		t.Errorf("count_tokens body: %s, %v", out, err)
	}
	// An OpenAI rate limit becomes Anthropic's, its message kept.
	e := tr.Handle(429, jsonBody).Error(429, jsonBody, []byte(`{"error":{"message":"Rate limit reached for gpt-5","type":"requests","code":"rate_limit_exceeded"}}`))
	if e.Status != 429 || e.Type != "rate_limit_error" || e.Message != "Rate limit reached for gpt-5" {
		t.Errorf("429: %+v", e)
	}
}
