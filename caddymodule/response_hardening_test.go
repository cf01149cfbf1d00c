package caddymodule

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/anthropic"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// batchRecorder is a client connection that records the size of every write.
type batchRecorder struct {
	header   http.Header
	mu       sync.Mutex
	maxWrite int
	total    int
	thinking int // content_block_start events of thinking blocks
	tail     []byte
}

func (b *batchRecorder) Header() http.Header { return b.header }
func (b *batchRecorder) WriteHeader(int)     {}
func (b *batchRecorder) Flush()              {}
func (b *batchRecorder) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.maxWrite = max(b.maxWrite, len(p))
	b.total += len(p)
	// Count whole events only: a write ends at an event boundary.
	b.thinking += bytes.Count(p, []byte(`"content_block":{"type":"thinking"`))
	b.tail = append(b.tail[:0], p[max(0, len(p)-200):]...)
	return len(p), nil
}

// splitHandler is a handler with the anthropic provider and split_tags on,
// as Provision would make it.
func splitHandler() *Handler {
	h := &Handler{provider: anthropic.New(anthropic.Config{}), Keepalive: -1, UpstreamIdleTimeout: -1}
	h.settings = providers.Settings{SplitTags: true, Form: emit.FormThinking, DefaultThinking: true,
		Signer: emit.NewSigner([]byte("test-signing-key"))}
	return h
}

func sseEvent(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }

// hugeRead sends one upstream read of a single text delta holding size
// bytes of short thinking spans through a split_tags stream. It returns what
// the client got and the largest capacity of the buffers the events pass
// through (the emitter's, swapped with the writer's queue).
func hugeRead(tb testing.TB, size int) (client *batchRecorder, maxBuf, spans int) {
	const span = "<thinking>a</thinking>"
	spans = size / len(span)
	text := strings.Repeat(span, spans)
	body := sseEvent("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}`) +
		sseEvent("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`+text+`"}}`) +
		sseEvent("content_block_stop", `{"type":"content_block_stop","index":0}`) +
		sseEvent("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2}}`) +
		sseEvent("message_stop", `{"type":"message_stop"}`)

	h := splitHandler()
	reqBody := []byte(`{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	req, err := wire.ParseRequest(reqBody)
	if err != nil {
		tb.Fatal(err)
	}
	x := providers.NewExchange(&h.settings, req, reqBody, providers.ExchangeOptions{Path: "/v1/messages"})
	tr, err := h.provider.Rewrite(x, &providers.Outbound{Header: http.Header{}})
	if err != nil {
		tb.Fatal(err)
	}
	client = &batchRecorder{header: http.Header{}}
	rw := newResponseWriter(client, h, x, tr, &exchangeMetrics{})
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		// The whole body in one write, as one upstream read.
		_, err := w.Write([]byte(body))
		rw.mu.Lock()
		s := rw.mode.(*streamBody)
		maxBuf = max(cap(s.pending), cap(s.inflight))
		rw.mu.Unlock()
		return err
	})
	if err := rw.serve(httptest.NewRequest("POST", "/v1/messages", nil), next); err != nil {
		tb.Fatal(err)
	}
	return client, maxBuf, spans
}

// TestOneUpstreamReadIsDrainedInBoundedBatches: one upstream read that
// expands into many events (a single text delta of a thousand short
// thinking spans per 22 KiB) reaches the client in batches no larger than
// the documented bound, instead of being built whole in memory first.
func TestOneUpstreamReadIsDrainedInBoundedBatches(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	client, maxBuf, spans := hugeRead(t, 1<<20)
	runtime.ReadMemStats(&after)

	bound := 2*(maxPending+maxEventBatch) + 4<<10
	if client.maxWrite > bound {
		t.Errorf("largest write to the client %d bytes, bound %d", client.maxWrite, bound)
	}
	if maxBuf > bound {
		t.Errorf("the emitter's buffer grew to %d bytes, bound %d", maxBuf, bound)
	}
	if client.thinking != spans {
		t.Errorf("%d thinking blocks reached the client, want %d", client.thinking, spans)
	}
	if !bytes.HasSuffix(client.tail, []byte("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")) {
		t.Errorf("stream does not end with message_stop: %q", client.tail)
	}
	t.Logf("1 MiB upstream read: %d MB of events, largest client write %d KiB, emitter buffer %d KiB, %d MB allocated in all",
		client.total>>20, client.maxWrite>>10, maxBuf>>10, (after.TotalAlloc-before.TotalAlloc)>>20)
}

// BenchmarkHugeUpstreamRead is the 15 MiB single write of short thinking
// spans: B/op is everything allocated for it (the 15 MiB request body the
// benchmark builds included); the metrics are the largest write to the
// client and the emitter buffer's largest size.
func BenchmarkHugeUpstreamRead(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		client, maxBuf, _ := hugeRead(b, 15<<20)
		b.ReportMetric(float64(client.total)/(1<<20), "MiB-events")
		b.ReportMetric(float64(client.maxWrite)/(1<<10), "KiB-max-write")
		b.ReportMetric(float64(maxBuf)/(1<<10), "KiB-emitter-buf")
	}
}

// TestEmitterSplitsLongDeltas: a delta longer than the drain bound is sent
// as several deltas cut at rune boundaries, and their text is unchanged.
func TestEmitterSplitsLongDeltas(t *testing.T) {
	var out bytes.Buffer
	em := emit.NewStreamEmitter(emit.FormThinking, nil,
		func(events []byte, _ emit.StreamStatus) []byte { out.Write(events); return events[:0] }, 1000)
	em.MessageStart("msg_1", "m", emit.Usage{})
	text := strings.Repeat("ab€", 2000) // 10 000 bytes, a 3-byte rune every 5
	em.Text([]byte(text))
	em.Finish("end_turn", "", emit.Usage{})
	em.Flush()
	var got strings.Builder
	deltas := 0
	for _, line := range strings.Split(out.String(), "\n") {
		const head = `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`
		if strings.HasPrefix(line, head) {
			deltas++
			got.WriteString(strings.TrimSuffix(line[len(head):], `"}}`))
		}
	}
	if got.String() != text {
		t.Fatalf("text changed by the split")
	}
	if deltas < 10 || deltas > 11 {
		t.Fatalf("%d deltas for 10 000 bytes with drainAt 1000", deltas)
	}
}

func TestUpstreamFailureMessage(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	cases := []struct {
		err  error
		want string
	}{
		{caddyhttp.Error(502, reverseproxy.NewDialError(refused)), `502 {"type":"error","error":{"type":"api_error","message":"upstream request failed: connection refused"}}`},
		{caddyhttp.Error(502, &net.DNSError{Err: "no such host", Name: "api.internal.example", IsNotFound: true}), `502 {"type":"error","error":{"type":"api_error","message":"upstream request failed: DNS lookup of the upstream failed"}}`},
		{caddyhttp.Error(502, reverseproxy.NewDialError(errors.New("lookup api.internal.example on 10.0.0.2:53: no such host"))), `502 {"type":"error","error":{"type":"api_error","message":"upstream request failed: DNS lookup of the upstream failed"}}`},
		{caddyhttp.Error(502, fmt.Errorf("tls: %w", x509.UnknownAuthorityError{})), `502 {"type":"error","error":{"type":"api_error","message":"upstream request failed: TLS: the upstream's certificate was not accepted"}}`},
		{caddyhttp.Error(504, &net.OpError{Op: "dial", Net: "tcp", Err: timeoutErr{}}), `504 {"type":"error","error":{"type":"timeout_error","message":"upstream request failed: timed out"}}`},
		{caddyhttp.Error(502, context.DeadlineExceeded), `504 {"type":"error","error":{"type":"timeout_error","message":"upstream request failed: timed out"}}`},
		{caddyhttp.Error(503, errors.New("no upstreams available")), `503 {"type":"error","error":{"type":"api_error","message":"upstream request failed: no upstream available"}}`},
		{caddyhttp.Error(502, errors.New("something new at 10.1.2.3:443")), `502 {"type":"error","error":{"type":"api_error","message":"upstream request failed: Bad Gateway"}}`},
	}
	for _, c := range cases {
		e := upstreamFailure(c.err)
		if got := fmt.Sprintf("%d %s", e.Status, e.Body()); got != c.want {
			t.Errorf("%v:\n got %s\nwant %s", c.err, got, c.want)
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestFilterUpstreamHeader(t *testing.T) {
	own := http.Header{"Server": {"Caddy"}, "X-Site": {"mine"}}
	up := func() http.Header {
		h := own.Clone()
		for k, v := range map[string]string{
			"Server": "upstream", "Set-Cookie": "session=1", "Openai-Organization": "org-123",
			"Anthropic-Organization-Id": "org-456", "X-Ratelimit-Remaining-Requests": "99",
			"Anthropic-Ratelimit-Tokens-Remaining": "5", "Retry-After": "3", "X-Request-Id": "req_abc",
			"Content-Type": "text/event-stream", "Content-Length": "10", "Location": "http://elsewhere/",
		} {
			h.Add(k, v)
		}
		return h
	}
	h := up()
	filterUpstreamHeader(h, own, false)
	want := http.Header{"Server": {"Caddy"}, "X-Site": {"mine"}, "Retry-After": {"3"}, "X-Upstream-Request-Id": {"req_abc"}}
	if fmt.Sprint(h) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", h, want)
	}
	h = up()
	filterUpstreamHeader(h, own, true)
	want["X-Ratelimit-Remaining-Requests"] = []string{"99"}
	want["Anthropic-Ratelimit-Tokens-Remaining"] = []string{"5"}
	if fmt.Sprint(h) != fmt.Sprint(want) {
		t.Errorf("with rate limits: got  %v\nwant %v", h, want)
	}
}

func TestRedact(t *testing.T) {
	secrets := secretSet("sk-live/\"quoted\"-key", "short", "")
	if len(secrets) != 2 {
		t.Fatalf("secrets %q: a short or empty secret must not be redacted", secrets)
	}
	got := redact([]byte(`{"message":"bad key sk-live/\"quoted\"-key; short"} sk-live/"quoted"-key`), secrets)
	if want := `{"message":"bad key [redacted]; short"} [redacted]`; string(got) != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	e := redactError(&wire.Error{Status: 401, Type: "authentication_error", Message: `key sk-live/"quoted"-key is invalid`}, secrets)
	if e.Message != "key [redacted] is invalid" {
		t.Fatalf("message %q", e.Message)
	}
}

// TestModelLabelAdmission: a name takes a label slot only when admitted
// (configured, or answered 2xx); others count as "other" and take none.
func TestModelLabelAdmission(t *testing.T) {
	modelLabels.Lock()
	saved := modelLabels.seen
	modelLabels.seen = map[string]struct{}{}
	modelLabels.Unlock()
	defer func() {
		modelLabels.Lock()
		modelLabels.seen = saved
		modelLabels.Unlock()
	}()
	for i := range 2 * maxModelLabels {
		if got := modelLabel(fmt.Sprintf("junk-%d", i), false); got != "other" {
			t.Fatalf("unadmitted junk name labelled %q", got)
		}
	}
	registerModelLabel("configured-model")
	if got := modelLabel("configured-model", false); got != "configured-model" {
		t.Fatalf("configured model labelled %q", got)
	}
	if got := modelLabel("real-model", true); got != "real-model" {
		t.Fatalf("a model answered 2xx labelled %q", got)
	}
	if got := modelLabel("real-model", false); got != "real-model" {
		t.Fatalf("a known model's failed request labelled %q", got)
	}
	if !hasGlobMeta("claude-*") || hasGlobMeta("claude-opus-4") {
		t.Fatal("hasGlobMeta")
	}
}
