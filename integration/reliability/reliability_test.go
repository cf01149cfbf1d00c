// Package reliability_test checks, through a real Caddy, how the gateway
// behaves when things go wrong: upstream errors, cut and malformed streams,
// silent upstreams, vanishing clients, bad requests, client keys, and the
// operational surface (metrics, logs, placeholders).
package reliability_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

const slot = testgw.SlotReliability

const streamRequest = `{"model":"claude-test","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"hi"}]}`

func messageStart() testgw.Event {
	return testgw.Event{Name: "message_start", Data: `{"type":"message_start","message":{"id":"msg_r1","type":"message","role":"assistant","model":"up","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":1}}}`}
}

func textStart() testgw.Event {
	return testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`}
}

func textDelta(s string) testgw.Event {
	b, _ := json.Marshal(s)
	return testgw.Event{Name: "content_block_delta", Data: fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%s}}`, b)}
}

func streamEnd() []testgw.Event {
	return []testgw.Event{
		{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":0}`},
		{Name: "message_delta", Data: `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9}}`},
		{Name: "message_stop", Data: `{"type":"message_stop"}`},
	}
}

func gateway(t *testing.T, up *testgw.Upstream, options string) *testgw.Gateway {
	return testgw.Start(t, slot, anthropicSite(up, options))
}

// anthropicSite is the body of the tests' site: thinkgate with options in front of up.
func anthropicSite(up *testgw.Upstream, options string) string {
	return fmt.Sprintf("thinkgate anthropic {\n\tsplit_tags\n\tsigning_key k\n%s\n}\nreverse_proxy %s", options, up.Addr())
}

// TestUpstreamErrorBeforeStream: a non-2xx upstream answer becomes a real
// HTTP status with an Anthropic body, Retry-After kept, never a 200 stream.
func TestUpstreamErrorBeforeStream(t *testing.T) {
	cases := []struct {
		name       string
		status     int
		body       string
		retryAfter string
		wantBody   string
	}{
		{"anthropic rate limit", 429, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`, "7",
			`{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`},
		{"overloaded", 529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "",
			`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
		{"plain text 503", 503, "upstream connect error", "",
			`{"type":"error","error":{"type":"api_error","message":"upstream returned Service Unavailable: upstream connect error"}}`},
		{"401", 401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, "",
			`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				if c.retryAfter != "" {
					w.Header().Set("Retry-After", c.retryAfter)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(c.status)
				_, _ = io.WriteString(w, c.body)
			})
			gw := gateway(t, up, "")
			res, body := gw.PostRead("/v1/messages", streamRequest)
			if res.StatusCode != c.status || body != c.wantBody || res.Header.Get("Retry-After") != c.retryAfter || res.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("got %d %q retry-after %q ct %q", res.StatusCode, body, res.Header.Get("Retry-After"), res.Header.Get("Content-Type"))
			}
			// The SDK sees a real API error with the status.
			client := gw.Client()
			stream := client.Messages.NewStreaming(context.Background(), params())
			for stream.Next() {
				t.Fatalf("unexpected event %s", stream.Current().Type)
			}
			var apiErr *anthropic.Error
			if !errors.As(stream.Err(), &apiErr) || apiErr.StatusCode != c.status {
				t.Fatalf("SDK error = %v", stream.Err())
			}
		})
	}
}

func params() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     "claude-test",
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))},
	}
}

// cutUpstream writes head as a chunked SSE response, then resets the TCP
// connection without finishing the body.
func cutUpstream(t *testing.T, head []byte) *testgw.Upstream {
	return testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(head), head)
		_ = buf.Flush()
		time.Sleep(50 * time.Millisecond)
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // RST, not FIN
		}
		_ = conn.Close()
	})
}

// TestUpstreamCutMidStream: a connection reset or a stream that ends without
// message_stop closes the open block and ends with an api_error event; the
// client never hangs.
func TestUpstreamCutMidStream(t *testing.T) {
	head := testgw.SSE(messageStart(), textStart(), textDelta("Answer <thinking>half a tho"))
	wantErrTail := []string{
		`content_block_start 0 {"type":"thinking","thinking":""}`,
		`thinking_delta 0 "half a tho"`,
	}
	t.Run("reset", func(t *testing.T) {
		gw := gateway(t, cutUpstream(t, head), "")
		_, body := gw.PostRead("/v1/messages", streamRequest)
		sum := testgw.Summary(t, testgw.ReadEvents(t, strings.NewReader(body)))
		assertCutStream(t, sum, wantErrTail, "upstream connection lost mid-stream")
	})
	t.Run("missing message_stop", func(t *testing.T) {
		up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
			testgw.WriteChunks(w, "text/event-stream", head, 5)
		})
		gw := gateway(t, up, "")
		_, body := gw.PostRead("/v1/messages", streamRequest)
		sum := testgw.Summary(t, testgw.ReadEvents(t, strings.NewReader(body)))
		assertCutStream(t, sum, wantErrTail, "upstream stream ended before message_stop")
	})
}

func assertCutStream(t *testing.T, sum, thinking []string, msg string) {
	t.Helper()
	sig := ""
	for _, l := range sum {
		if strings.HasPrefix(l, "signature_delta 1 ") {
			sig = l
		}
	}
	want := []string{
		"message_start",
		`content_block_start 0 {"type":"text","text":""}`,
		`text_delta 0 "Answer "`,
		"content_block_stop 0",
		`content_block_start 1 {"type":"thinking","thinking":""}`,
		`thinking_delta 1 "half a tho"`,
		sig,
		"content_block_stop 1",
		`error {"type":"api_error","message":"` + msg + `"}`,
	}
	if sig == "" {
		t.Errorf("the cut thinking block got no signature: %v", sum)
	}
	testgw.Diff(t, "events", sum, want)
}

// TestMalformedFrame: the anthropic provider fails the stream on an event
// whose data is not JSON (an upstream that breaks the grammar cannot be
// trusted to continue it).
func TestMalformedFrame(t *testing.T) {
	body := append(testgw.SSE(messageStart(), textStart(), textDelta("ok ")), "event: content_block_delta\ndata: {not json\n\n"...)
	body = append(body, testgw.SSE(append([]testgw.Event{textDelta("never seen")}, streamEnd()...)...)...)
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		testgw.WriteChunks(w, "text/event-stream", body, 16)
	})
	gw := gateway(t, up, "")
	_, out := gw.PostRead("/v1/messages", streamRequest)
	testgw.Diff(t, "events", testgw.Summary(t, testgw.ReadEvents(t, strings.NewReader(out))), []string{
		"message_start",
		`content_block_start 0 {"type":"text","text":""}`,
		`text_delta 0 "ok "`,
		"content_block_stop 0",
		`error {"type":"api_error","message":"malformed upstream event: content_block_delta without delta"}`,
	})
}

// TestKeepalive: while the upstream is silent the client gets ping events.
func TestKeepalive(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		_, _ = w.Write(testgw.SSE(messageStart(), textStart(), textDelta("one ")))
		_ = rc.Flush()
		time.Sleep(900 * time.Millisecond)
		_, _ = w.Write(testgw.SSE(append([]testgw.Event{textDelta("two")}, streamEnd()...)...))
	})
	gw := gateway(t, up, "\tkeepalive 200ms")
	_, out := gw.PostRead("/v1/messages", streamRequest)
	sum := testgw.Summary(t, testgw.ReadEvents(t, strings.NewReader(out)))
	pings := 0
	for _, l := range sum {
		if l == "ping" {
			pings++
		}
	}
	// Four ticks fit the silence; a loaded machine may fire fewer, never more.
	if pings < 2 || pings > 4 {
		t.Fatalf("got %d pings in a 900ms silence with keepalive 200ms: %v", pings, sum)
	}
	// The pings sit between the two deltas, which still join into one block.
	if sum[0] != "message_start" || sum[len(sum)-1] != "message_stop" {
		t.Fatalf("events: %v", sum)
	}
	msg, _ := gw.Stream(params())
	if len(msg.Content) != 1 || msg.Content[0].Text != "one two" {
		t.Fatalf("content %+v", msg.Content)
	}
}

// TestClientDisconnect: when the client goes away mid-stream the upstream
// request is cancelled, and no goroutine is left behind.
func TestClientDisconnect(t *testing.T) {
	cancelled := make(chan time.Time, 1)
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		_, _ = w.Write(testgw.SSE(messageStart(), textStart()))
		for i := 0; ; i++ {
			if _, err := w.Write(testgw.SSE(textDelta(fmt.Sprintf("chunk %d ", i)))); err != nil {
				cancelled <- time.Now()
				return
			}
			_ = rc.Flush()
			select {
			case <-r.Context().Done():
				cancelled <- time.Now()
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	gw := gateway(t, up, "")
	// Warm up once so lazily started goroutines are counted in the baseline.
	warm := gw.Post("/v1/messages", streamRequest)
	readEvents(t, warm.Body, 3)
	warm.Body.Close()
	<-cancelled
	gw.Tester.Client.CloseIdleConnections()
	time.Sleep(200 * time.Millisecond)
	before := runtime.NumGoroutine()

	res := gw.Post("/v1/messages", streamRequest)
	readEvents(t, res.Body, 5)
	closedAt := time.Now()
	res.Body.Close()
	select {
	case at := <-cancelled:
		t.Logf("upstream saw the cancellation %v after the client left", at.Sub(closedAt))
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream request was not cancelled")
	}
	gw.Tester.Client.CloseIdleConnections()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// TestSlowClient: a client that stops reading holds the upstream back (the
// gateway queues at most a bounded amount of translated events, it does not
// take the whole upstream body into memory), and once it reads again it
// gets every block exactly, in order; over HTTP/1.1 and over HTTP/2 with
// TLS, as at the edge.
func TestSlowClient(t *testing.T) {
	// 6,000 spans of thinking and text, about 63 MB of SSE: far more than
	// the socket buffers between upstream, Caddy and client hold.
	var wantText, wantThinking []string
	events := []testgw.Event{messageStart(), textStart()}
	for i := range 6000 {
		thinking := fmt.Sprintf("step %d: %s", i, strings.Repeat("weigh the options, ", 40+i%5))
		text := fmt.Sprintf("Part %d — %s", i, strings.Repeat("the answer grows. ", 50+i%7))
		wantThinking, wantText = append(wantThinking, thinking), append(wantText, text)
		full := "<thinking>" + thinking + "</thinking>" + text
		for len(full) > 0 {
			n := min(24, len(full))
			for !utf8.RuneStart(full[min(n, len(full)-1)]) && n < len(full) {
				n++
			}
			events = append(events, textDelta(full[:n]))
			full = full[n:]
		}
	}
	body := testgw.SSE(append(events, streamEnd()...)...)
	var sent atomic.Int64
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for rest := body; len(rest) > 0; {
			n, err := w.Write(rest[:min(16<<10, len(rest))])
			if err != nil {
				return
			}
			_ = rc.Flush()
			sent.Add(int64(n))
			rest = rest[n:]
		}
	})
	t.Run("http1", func(t *testing.T) {
		gw := gateway(t, up, "")
		sent.Store(0)
		slowClient(t, gw.Client(), 1, &sent, body, wantThinking, wantText)
	})
	t.Run("http2", func(t *testing.T) {
		p := testgw.PortsFor(slot)
		gw := testgw.StartConfig(t, slot, testgw.Preamble(p)+fmt.Sprintf("\nhttps://localhost:%d {\n\ttls internal\n%s\n}\n", p.HTTPS, anthropicSite(up, "")))
		tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: true}
		defer tr.CloseIdleConnections()
		sent.Store(0)
		client := gw.Client(option.WithBaseURL(fmt.Sprintf("https://localhost:%d", p.HTTPS)), option.WithHTTPClient(&http.Client{Transport: tr}))
		slowClient(t, client, 2, &sent, body, wantThinking, wantText)
	})
}

// slowClient streams through client, reading nothing until the upstream has
// stalled, then checks every block.
func slowClient(t *testing.T, client anthropic.Client, proto int, sent *atomic.Int64, body []byte, wantThinking, wantText []string) {
	gate := make(chan struct{})
	// 63 MB through the race detector, on a machine the rest of the suite
	// shares, can take longer than the harness's 30 s request timeout: this
	// test is about what arrives, not how fast.
	stream := client.Messages.NewStreaming(context.Background(), params(), option.WithRequestTimeout(5*time.Minute), option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		if err == nil {
			if res.ProtoMajor != proto {
				t.Errorf("response over %s, want HTTP/%d", res.Proto, proto)
			}
			res.Body = gatedBody{res.Body, gate}
		}
		return res, err
	}))
	defer stream.Close()

	// Wait until the upstream can send no more.
	last, stalled := int64(-1), time.Now()
	for time.Since(stalled) < 500*time.Millisecond {
		if n := sent.Load(); n != last {
			last, stalled = n, time.Now()
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("upstream stalled after %d of %d bytes", last, len(body))
	if last >= int64(len(body))/2 {
		t.Fatalf("the upstream sent %d of %d bytes to a client that reads nothing", last, len(body))
	}

	close(gate)
	var msg anthropic.Message
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 2*len(wantText) {
		t.Fatalf("%d blocks, want %d", len(msg.Content), 2*len(wantText))
	}
	for i := range wantText {
		th, tx := msg.Content[2*i], msg.Content[2*i+1]
		if th.Type != "thinking" || th.Thinking != wantThinking[i] || th.Signature == "" {
			t.Fatalf("block %d: %s %q (signature %q), want thinking %q", 2*i, th.Type, th.Thinking, th.Signature, wantThinking[i])
		}
		if tx.Type != "text" || tx.Text != wantText[i] {
			t.Fatalf("block %d: %s %q, want text %q", 2*i+1, tx.Type, tx.Text, wantText[i])
		}
	}
	if msg.StopReason != "end_turn" {
		t.Fatalf("stop reason %q", msg.StopReason)
	}
}

// gatedBody is a response body whose reads wait until gate is closed.
type gatedBody struct {
	io.ReadCloser
	gate chan struct{}
}

func (b gatedBody) Read(p []byte) (int, error) {
	<-b.gate
	return b.ReadCloser.Read(p)
}

func readEvents(t *testing.T, r io.Reader, n int) {
	t.Helper()
	br := bufio.NewReader(r)
	for seen := 0; seen < n; {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading stream: %v", err)
		}
		if line == "\n" {
			seen++
		}
	}
}

// TestRequestErrors: wrong method and content type get Anthropic errors.
func TestRequestErrors(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) { t.Error("request reached the upstream") })
	gw := gateway(t, up, "")
	res, body := gw.PostRead("/v1/messages", streamRequest, "Content-Type", "text/plain")
	if res.StatusCode != 415 || body != `{"type":"error","error":{"type":"invalid_request_error","message":"content-type must be application/json, got text/plain"}}` {
		t.Errorf("415: %d %s", res.StatusCode, body)
	}
	req, _ := http.NewRequest("GET", gw.URL+"/v1/messages", nil)
	res, err := gw.Tester.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 405 || res.Header.Get("Allow") != "POST" || string(b) != `{"type":"error","error":{"type":"invalid_request_error","message":"method GET not allowed; use POST"}}` {
		t.Errorf("405: %d %s", res.StatusCode, b)
	}
}

// TestUpstreamUnreachable: a dial failure is an Anthropic 502, not Caddy's
// page, and says what failed without the upstream's address.
func TestUpstreamUnreachable(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	gw := testgw.Start(t, slot, "thinkgate anthropic {\n\tsplit_tags\n}\nreverse_proxy "+addr)
	res, body := gw.PostRead("/v1/messages", streamRequest)
	if res.StatusCode != 502 || body != `{"type":"error","error":{"type":"api_error","message":"upstream request failed: connection refused"}}` {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
}

// TestClientKeys: with client_keys only listed keys get through (x-api-key or
// bearer), keys come from {env.*} and from a file, and a client key never
// reaches the upstream.
func TestClientKeys(t *testing.T) {
	t.Setenv("THINKGATE_TEST_CLIENT_KEY", "env-key-123")
	file := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(file, []byte("# team keys\nfile-key-456\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		testgw.WriteChunks(w, "text/event-stream", testgw.SSE(append([]testgw.Event{messageStart(), textStart(), textDelta("ok")}, streamEnd()...)...), 64)
	})
	gw := gateway(t, up, "\tclient_keys {env.THINKGATE_TEST_CLIENT_KEY} literal-key\n\tclient_keys_file "+file+"\n\tapi_key upstream-secret")
	const unauthorized = `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`
	for _, c := range []struct {
		name   string
		header []string
		status int
	}{
		{"env key", []string{"x-api-key", "env-key-123"}, 200},
		{"literal key", []string{"x-api-key", "literal-key"}, 200},
		{"file key as bearer", []string{"x-api-key", "", "Authorization", "Bearer file-key-456"}, 200},
		{"wrong key", []string{"x-api-key", "env-key-124"}, 401},
		{"prefix of a key", []string{"x-api-key", "env-key"}, 401},
		{"no key", []string{"x-api-key", ""}, 401},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := len(up.Requests())
			res, body := gw.PostRead("/v1/messages", streamRequest, c.header...)
			if res.StatusCode != c.status {
				t.Fatalf("status %d: %s", res.StatusCode, body)
			}
			if c.status == 401 {
				if body != unauthorized || len(up.Requests()) != n {
					t.Fatalf("body %s; upstream requests %d → %d", body, n, len(up.Requests()))
				}
				return
			}
			last := up.Last(t)
			if last.Header.Get("X-Api-Key") != "upstream-secret" || last.Header.Get("Authorization") != "" {
				t.Fatalf("upstream got x-api-key %q authorization %q", last.Header.Get("X-Api-Key"), last.Header.Get("Authorization"))
			}
		})
	}
	// Other paths are guarded too, and pass through without the client key.
	req, _ := http.NewRequest("GET", gw.URL+"/v1/models", nil)
	res, err := gw.Tester.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 401 || string(b) != unauthorized {
		t.Fatalf("GET /v1/models without a key: %d %s", res.StatusCode, b)
	}
	req, _ = http.NewRequest("GET", gw.URL+"/v1/models", nil)
	req.Header.Set("x-api-key", "literal-key")
	if res, err = gw.Tester.Client.Do(req); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if last := up.Last(t); last.Path != "/v1/models" || last.Header.Get("X-Api-Key") != "" {
		t.Fatalf("GET /v1/models with a key reached the upstream as %s with x-api-key %q", last.Path, last.Header.Get("X-Api-Key"))
	}
	// Without api_key the client key is still the gateway's: nothing goes upstream.
	gw = gateway(t, up, "\tclient_keys literal-key")
	if res, body := gw.PostRead("/v1/messages", streamRequest, "x-api-key", "literal-key"); res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	if k := up.Last(t).Header.Get("X-Api-Key"); k != "" {
		t.Fatalf("client key forwarded: %q", k)
	}
}
