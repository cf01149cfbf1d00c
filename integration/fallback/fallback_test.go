// Package fallback_test runs thinkgate_fallback through a real Caddy: the
// official SDK in front, an OpenAI-compatible upstream as the first step and
// a Gemini upstream as the second, each an httptest server speaking its own
// wire format, failing in each of the ways that move a request on.
package fallback_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/thinkgate/thinkgate/internal/testgw"
	"github.com/thinkgate/thinkgate/providers/openai/openaitest"
)

// slot is this package's own ports (testgw's list names the older packages).
const slot = testgw.SlotFallback

// site is a fallback from an OpenAI-compatible first step to a Gemini second.
// options go in the fallback's block; first1 in the first step's
// reverse_proxy block.
func site(options, first, firstProxy, second string) string {
	return fmt.Sprintf(`header >X-Fallback-Step {http.thinkgate.fallback.step}
header >X-Fallback-Tried {http.thinkgate.fallback.tried}
header >X-Fallback-Provider {http.thinkgate.provider}
thinkgate_fallback {
%s
	try {
		thinkgate openai {
			api_key sk-openai
			model claude-* gpt-4.1-mini
		}
		reverse_proxy %s {
%s
		}
	}
	try {
		thinkgate gemini {
			api_key gemini-key
			model claude-* gemini-2.5-flash
		}
		reverse_proxy %s
	}
}`, options, first, firstProxy, second)
}

const (
	openaiText = "Hello from the first step."
	geminiText = "Hello from the second step."
)

// openaiAnswer answers a Chat Completions request, streamed or not.
func openaiAnswer(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if strings.Contains(string(body), `"stream":true`) {
		testgw.WriteChunks(w, "text/event-stream", openaitest.New().Content(openaiText, 0).Finish("stop").Usage(9, 5, 0).Done().Bytes(), 1<<20)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1730000000,"model":"gpt-4.1-mini","choices":[{"index":0,"message":{"role":"assistant","content":"`+
		openaiText+`"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":5,"total_tokens":14}}`)
}

func geminiChunk(text string) string {
	return `{"candidates":[{"content":{"parts":[{"text":"` + text + `"}],"role":"model"},"finishReason":"STOP","index":0}],` +
		`"usageMetadata":{"promptTokenCount":11,"candidatesTokenCount":6,"totalTokenCount":17},"modelVersion":"gemini-2.5-flash"}`
}

// geminiAnswer answers generateContent, streamGenerateContent and countTokens.
func geminiAnswer(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasSuffix(r.URL.Path, ":streamGenerateContent"):
		testgw.WriteChunks(w, "text/event-stream", []byte("data: "+geminiChunk(geminiText)+"\r\n\r\n"), 1<<20)
	case strings.HasSuffix(r.URL.Path, ":countTokens"):
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"totalTokens": 42}`)
	default:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, geminiChunk(geminiText))
	}
}

// failing answers with an OpenAI-style error of status.
func failing(status int, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"message":"first step says %d","type":"server_error","code":null}}`, status)
	}
}

func params() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     "claude-sonnet-4-5",
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Say hello."))},
	}
}

// closedPort is an address nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// resetUpstream reads the request and resets the connection without a
// response.
func resetUpstream(t *testing.T) *testgw.Upstream {
	return testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // RST, not FIN
		}
		_ = conn.Close()
	})
}

// slowUpstream sends its headers only after the test ends.
func slowUpstream(t *testing.T) *testgw.Upstream {
	release := make(chan struct{})
	u := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(release) })
	return u
}

// checkAnswered checks a message is the second step's answer.
func checkAnswered(t *testing.T, msg *anthropic.Message, text string) {
	t.Helper()
	if len(msg.Content) != 1 || msg.Content[0].Type != "text" || msg.Content[0].Text != text {
		t.Fatalf("content: %+v", msg.Content)
	}
	if msg.Model != "claude-sonnet-4-5" || msg.StopReason != "end_turn" {
		t.Errorf("model %q stop_reason %q", msg.Model, msg.StopReason)
	}
}

// checkGeminiGot checks the Gemini upstream got the client's request once,
// converted for Gemini.
func checkGeminiGot(t *testing.T, up *testgw.Upstream, method string) {
	t.Helper()
	reqs := up.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the second step's upstream got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/v1beta/models/gemini-2.5-flash:"+method || r.Header.Get("X-Goog-Api-Key") != "gemini-key" {
		t.Errorf("second step got %s with key %q", r.Path, r.Header.Get("X-Goog-Api-Key"))
	}
	if !strings.Contains(string(r.Body), `"contents":[{"role":"user","parts":[{"text":"Say hello."}]}]`) {
		t.Errorf("second step's body: %s", r.Body)
	}
	if r.Header.Get("Authorization") != "" {
		t.Errorf("the first step's credential reached the second: %q", r.Header.Get("Authorization"))
	}
}

// TestFailover: each failure of the first step that is in the default list
// sends the same request, converted for Gemini, to the second step; the
// SDK gets the second step's answer, streamed and not, and the response
// headers name the step that answered and the attempts made.
func TestFailover(t *testing.T) {
	// first starts the first step's upstream: its address, and how many
	// requests it got (nil when there is nothing to count).
	type failureKind struct {
		name  string
		first func(t *testing.T) (addr string, calls func() int)
		proxy string // the first step's reverse_proxy block
		calls int    // requests the first upstream's handler sees for the two requests
	}
	kinds := []failureKind{
		{"connection refused", func(t *testing.T) (string, func() int) {
			return closedPort(t), nil // nothing there to count
		}, "", 0},
		{"connection reset", func(t *testing.T) (string, func() int) {
			u := resetUpstream(t)
			return u.Addr(), func() int { return len(u.Requests()) }
		}, "", 2},
		{"DNS failure", func(t *testing.T) (string, func() int) {
			return "no-such-host.invalid:80", nil
		}, "", 0},
		{"TLS certificate not accepted", func(t *testing.T) (string, func() int) {
			var n atomic.Int32
			u := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1) }))
			t.Cleanup(u.Close)
			return u.Listener.Addr().String(), func() int { return int(n.Load()) }
		}, "\t\t\ttransport http {\n\t\t\t\ttls\n\t\t\t}", 0}, // the handshake fails: no request
		{"timeout before headers", func(t *testing.T) (string, func() int) {
			u := slowUpstream(t)
			return u.Addr(), func() int { return len(u.Requests()) }
		}, "\t\t\ttransport http {\n\t\t\t\tresponse_header_timeout 300ms\n\t\t\t}", 2},
	}
	for _, status := range []int{429, 500, 502, 503, 504, 529} {
		kinds = append(kinds, failureKind{fmt.Sprint(status), func(t *testing.T) (string, func() int) {
			u := testgw.NewUpstream(t, failing(status))
			return u.Addr(), func() int { return len(u.Requests()) }
		}, "", 2})
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			addr, calls := k.first(t)
			second := testgw.NewUpstream(t, geminiAnswer)
			gw := testgw.Start(t, slot, site("", addr, k.proxy, second.Addr()))

			sm, _ := gw.Stream(params())
			checkAnswered(t, &sm, geminiText)
			checkGeminiGot(t, second, "streamGenerateContent")

			var res *http.Response
			msg, err := client(gw).Messages.New(context.Background(), params(), optionResponse(&res))
			if err != nil {
				t.Fatal(err)
			}
			checkAnswered(t, msg, geminiText)
			if calls != nil && calls() != k.calls {
				t.Errorf("the first step's upstream got %d requests, want %d", calls(), k.calls)
			}
			if n := len(second.Requests()); n != 2 {
				t.Errorf("the second step's upstream got %d requests, want 2", n)
			}
			if got := second.Requests()[1].Path; got != "/v1beta/models/gemini-2.5-flash:generateContent" {
				t.Errorf("second request to %s", got)
			}
			if s, n, p := res.Header.Get("X-Fallback-Step"), res.Header.Get("X-Fallback-Tried"), res.Header.Get("X-Fallback-Provider"); s != "2" || n != "2" || p != "gemini" {
				t.Errorf("step %q tried %q provider %q, want 2, 2, gemini", s, n, p)
			}
		})
	}
}

// TestFirstStepAnswers: a first step that answers is the only one called,
// and its headers say so.
func TestFirstStepAnswers(t *testing.T) {
	first := testgw.NewUpstream(t, openaiAnswer)
	second := testgw.NewUpstream(t, geminiAnswer)
	gw := testgw.Start(t, slot, site("", first.Addr(), "", second.Addr()))
	sm, _ := gw.Stream(params())
	checkAnswered(t, &sm, openaiText)
	var res *http.Response
	msg, err := client(gw).Messages.New(context.Background(), params(), optionResponse(&res))
	if err != nil {
		t.Fatal(err)
	}
	checkAnswered(t, msg, openaiText)
	if len(first.Requests()) != 2 || len(second.Requests()) != 0 {
		t.Errorf("upstream calls: first %d, second %d; want 2, 0", len(first.Requests()), len(second.Requests()))
	}
	if s, n, p := res.Header.Get("X-Fallback-Step"), res.Header.Get("X-Fallback-Tried"), res.Header.Get("X-Fallback-Provider"); s != "1" || n != "1" || p != "openai" {
		t.Errorf("step %q tried %q provider %q, want 1, 1, openai", s, n, p)
	}
}

// TestStatusNotListed: a failure outside the list goes to the client as
// the first step's error; the second step is never called.
func TestStatusNotListed(t *testing.T) {
	for _, tc := range []struct {
		name, options string
		status        int
		want          string
	}{
		{"400 with the default list", "", 400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"first step says 400"}}`},
		{"500 with on 429", "\ton 429", 500,
			`{"type":"error","error":{"type":"api_error","message":"first step says 500"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := testgw.NewUpstream(t, failing(tc.status))
			second := testgw.NewUpstream(t, geminiAnswer)
			gw := testgw.Start(t, slot, site(tc.options, first.Addr(), "", second.Addr()))
			res, body := gw.PostRead("/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"user","content":"Say hello."}]}`)
			if res.StatusCode != tc.status || body != tc.want {
				t.Errorf("got %d %s\nwant %d %s", res.StatusCode, body, tc.status, tc.want)
			}
			if len(first.Requests()) != 1 || len(second.Requests()) != 0 {
				t.Errorf("upstream calls: first %d, second %d; want 1, 0", len(first.Requests()), len(second.Requests()))
			}
		})
	}
}

// TestCustomList: on 4xx connection_error moves a 404 on, but not a 503 or
// a timeout.
func TestCustomList(t *testing.T) {
	first := testgw.NewUpstream(t, failing(404))
	second := testgw.NewUpstream(t, geminiAnswer)
	gw := testgw.Start(t, slot, site("\ton 4xx connection_error", first.Addr(), "", second.Addr()))
	sm, _ := gw.Stream(params())
	checkAnswered(t, &sm, geminiText)

	first.Handler = failing(503)
	res, body := gw.PostRead("/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"user","content":"Say hello."}]}`)
	if res.StatusCode != 503 || !strings.Contains(body, "first step says 503") {
		t.Errorf("503 outside the list: %d %s", res.StatusCode, body)
	}
	if len(second.Requests()) != 1 {
		t.Errorf("the second step got %d requests, want 1", len(second.Requests()))
	}
}

// TestRetryAfter: a Retry-After within retry_after_max is waited out and
// the same step tried once more; a longer one moves on at once.
func TestRetryAfter(t *testing.T) {
	t.Run("within the bound: the same step again", func(t *testing.T) {
		var calls atomic.Int32
		first := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) == 1 {
				failing(429, "Retry-After", "1")(w, r)
				return
			}
			openaiAnswer(w, r)
		})
		second := testgw.NewUpstream(t, geminiAnswer)
		gw := testgw.Start(t, slot, site("\tretry_after_max 2s", first.Addr(), "", second.Addr()))
		start := time.Now()
		var res *http.Response
		msg, err := client(gw).Messages.New(context.Background(), params(), optionResponse(&res))
		if err != nil {
			t.Fatal(err)
		}
		checkAnswered(t, msg, openaiText)
		if d := time.Since(start); d < time.Second {
			t.Errorf("answered after %v: Retry-After 1 not waited out", d)
		}
		if calls.Load() != 2 || len(second.Requests()) != 0 {
			t.Errorf("upstream calls: first %d, second %d; want 2, 0", calls.Load(), len(second.Requests()))
		}
		if s, n := res.Header.Get("X-Fallback-Step"), res.Header.Get("X-Fallback-Tried"); s != "1" || n != "2" {
			t.Errorf("step %q tried %q, want 1, 2", s, n)
		}
	})
	t.Run("within the bound, failing twice: the next step", func(t *testing.T) {
		first := testgw.NewUpstream(t, failing(429, "Retry-After", "0"))
		second := testgw.NewUpstream(t, geminiAnswer)
		gw := testgw.Start(t, slot, site("\tretry_after_max 2s", first.Addr(), "", second.Addr()))
		sm, _ := gw.Stream(params())
		checkAnswered(t, &sm, geminiText)
		if len(first.Requests()) != 2 || len(second.Requests()) != 1 {
			t.Errorf("upstream calls: first %d, second %d; want 2, 1", len(first.Requests()), len(second.Requests()))
		}
	})
	t.Run("the last step within the bound: it again", func(t *testing.T) {
		first := testgw.NewUpstream(t, failing(503))
		var calls atomic.Int32
		second := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) == 1 {
				w.Header().Set("Retry-After", "0")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(429)
				io.WriteString(w, `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`)
				return
			}
			geminiAnswer(w, r)
		})
		gw := testgw.Start(t, slot, site("\tretry_after_max 2s", first.Addr(), "", second.Addr()))
		var res *http.Response
		msg, err := client(gw).Messages.New(context.Background(), params(), optionResponse(&res))
		if err != nil {
			t.Fatal(err)
		}
		checkAnswered(t, msg, geminiText)
		if len(first.Requests()) != 1 || calls.Load() != 2 {
			t.Errorf("upstream calls: first %d, second %d; want 1, 2", len(first.Requests()), calls.Load())
		}
		if s, n := res.Header.Get("X-Fallback-Step"), res.Header.Get("X-Fallback-Tried"); s != "2" || n != "3" {
			t.Errorf("step %q tried %q, want 2, 3", s, n)
		}
	})
	t.Run("above the bound: the next step at once", func(t *testing.T) {
		first := testgw.NewUpstream(t, failing(429, "Retry-After", "30"))
		second := testgw.NewUpstream(t, geminiAnswer)
		gw := testgw.Start(t, slot, site("\tretry_after_max 2s", first.Addr(), "", second.Addr()))
		start := time.Now()
		sm, _ := gw.Stream(params())
		checkAnswered(t, &sm, geminiText)
		if d := time.Since(start); d > 900*time.Millisecond {
			t.Errorf("answered after %v: a Retry-After above the bound was waited for", d)
		}
		if len(first.Requests()) != 1 || len(second.Requests()) != 1 {
			t.Errorf("upstream calls: first %d, second %d; want 1, 1", len(first.Requests()), len(second.Requests()))
		}
	})
	t.Run("no bound: the next step at once", func(t *testing.T) {
		first := testgw.NewUpstream(t, failing(503, "Retry-After", "1"))
		second := testgw.NewUpstream(t, geminiAnswer)
		gw := testgw.Start(t, slot, site("", first.Addr(), "", second.Addr()))
		start := time.Now()
		sm, _ := gw.Stream(params())
		checkAnswered(t, &sm, geminiText)
		if d := time.Since(start); d > 900*time.Millisecond {
			t.Errorf("answered after %v", d)
		}
		if len(first.Requests()) != 1 || len(second.Requests()) != 1 {
			t.Errorf("upstream calls: first %d, second %d; want 1, 1", len(first.Requests()), len(second.Requests()))
		}
	})
}

// TestAllStepsFail: when every step fails the client gets the last step's
// error, Anthropic-shaped, with its status.
func TestAllStepsFail(t *testing.T) {
	first := testgw.NewUpstream(t, failing(503))
	second := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(429)
		io.WriteString(w, `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`)
	})
	gw := testgw.Start(t, slot, site("", first.Addr(), "", second.Addr()))
	res, body := gw.PostRead("/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"Say hello."}]}`)
	want := `{"type":"error","error":{"type":"rate_limit_error","message":"Resource has been exhausted (e.g. check quota)."}}`
	if res.StatusCode != 429 || body != want {
		t.Errorf("got %d %s\nwant 429 %s", res.StatusCode, body, want)
	}
	if s, n, p := res.Header.Get("X-Fallback-Step"), res.Header.Get("X-Fallback-Tried"), res.Header.Get("X-Fallback-Provider"); s != "2" || n != "2" || p != "gemini" {
		t.Errorf("step %q tried %q provider %q, want 2, 2, gemini", s, n, p)
	}
	if res.Header.Get("Content-Type") != "application/json" {
		t.Errorf("Content-Type %q", res.Header.Get("Content-Type"))
	}

	// The SDK sees the same error.
	_, err := client(gw).Messages.New(context.Background(), params())
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 {
		t.Fatalf("SDK error: %v", err)
	}

	// Connection failures on every step: the last one's 502.
	gw = testgw.Start(t, slot, site("", closedPort(t), "", closedPort(t)))
	res, body = gw.PostRead("/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"user","content":"Say hello."}]}`)
	want = `{"type":"error","error":{"type":"api_error","message":"upstream request failed: connection refused"}}`
	if res.StatusCode != 502 || body != want {
		t.Errorf("got %d %s\nwant 502 %s", res.StatusCode, body, want)
	}
}

// TestNoFallbackAfterFirstByte: a first step whose stream breaks after its
// first event has already answered: the client gets the events so far and
// an error event, and the second step is never called.
func TestNoFallbackAfterFirstByte(t *testing.T) {
	head := openaitest.New().Content("Half an ans", 0).Bytes()
	first := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(head), head)
		_ = buf.Flush()
		time.Sleep(50 * time.Millisecond)
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		_ = conn.Close()
	})
	second := testgw.NewUpstream(t, geminiAnswer)
	gw := testgw.Start(t, slot, site("", first.Addr(), "", second.Addr()))
	res := gw.Post("/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"Say hello."}]}`)
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	got := testgw.Summary(t, testgw.ReadEvents(t, res.Body))
	testgw.Diff(t, "events", got, []string{
		`message_start`,
		`content_block_start 0 {"type":"text","text":""}`,
		`text_delta 0 "Half an ans"`,
		`content_block_stop 0`,
		`error {"type":"api_error","message":"upstream connection lost mid-stream"}`,
	})
	if len(first.Requests()) != 1 || len(second.Requests()) != 0 {
		t.Errorf("upstream calls: first %d, second %d; want 1, 0", len(first.Requests()), len(second.Requests()))
	}
}

// TestCountTokens: count_tokens moves on like a message: an Anthropic
// first step answering 529 passes to Gemini's countTokens.
func TestCountTokens(t *testing.T) {
	first := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(529)
		io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	})
	second := testgw.NewUpstream(t, geminiAnswer)
	gw := testgw.Start(t, slot, fmt.Sprintf(`thinkgate_fallback {
	try {
		thinkgate anthropic
		reverse_proxy %s
	}
	try {
		thinkgate gemini {
			api_key gemini-key
			model claude-* gemini-2.5-flash
		}
		reverse_proxy %s
	}
}`, first.Addr(), second.Addr()))
	n, err := client(gw).Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{
		Model:    "claude-sonnet-4-5",
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Say hello."))},
	})
	if err != nil {
		t.Fatal(err)
	}
	if n.InputTokens != 42 {
		t.Errorf("input_tokens %d, want 42", n.InputTokens)
	}
	if len(first.Requests()) != 1 || first.Requests()[0].Path != "/v1/messages/count_tokens" {
		t.Errorf("first step's requests: %+v", first.Requests())
	}
	checkGeminiGot(t, second, "countTokens")
}

// optionResponse has the SDK keep the raw response, for its headers.
func optionResponse(res **http.Response) option.RequestOption { return option.WithResponseInto(res) }

// client is an SDK client of the gateway, addressable for its services.
func client(gw *testgw.Gateway) *anthropic.Client {
	c := gw.Client()
	return &c
}

// TestStepWithoutThinkgate: a step that is a bare reverse_proxy (an
// Anthropic upstream used as is) fails over on its own error or status.
func TestStepWithoutThinkgate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		first func(t *testing.T) (string, *testgw.Upstream)
	}{
		{"connection refused", func(t *testing.T) (string, *testgw.Upstream) { return closedPort(t), nil }},
		{"529", func(t *testing.T) (string, *testgw.Upstream) {
			u := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("X-First-Step", "leaked")
				w.WriteHeader(529)
				io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
			})
			return u.Addr(), u
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, first := tc.first(t)
			second := testgw.NewUpstream(t, geminiAnswer)
			gw := testgw.Start(t, slot, fmt.Sprintf(`thinkgate_fallback {
	try {
		reverse_proxy %s
	}
	try {
		thinkgate gemini {
			api_key gemini-key
			model claude-* gemini-2.5-flash
		}
		reverse_proxy %s
	}
}`, addr, second.Addr()))
			var res *http.Response
			msg, err := client(gw).Messages.New(context.Background(), params(), optionResponse(&res))
			if err != nil {
				t.Fatal(err)
			}
			checkAnswered(t, msg, geminiText)
			checkGeminiGot(t, second, "generateContent")
			if first != nil && len(first.Requests()) != 1 {
				t.Errorf("the first step got %d requests", len(first.Requests()))
			}
			if res.Header.Get("X-First-Step") != "" {
				t.Error("the failed step's header reached the client")
			}
		})
	}
}
