package caddymodule

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/thinkgate/thinkgate/providers"
)

// What the response writer does with the upstream's response, decided when
// the upstream's status and headers arrive (the translator's Handling).
type writeMode uint8

const (
	modeUndecided   writeMode = iota
	modePassthrough           // forward untouched
	modeStream                // 2xx stream: translate as it flows
	modeBuffer                // 2xx non-streaming body: translate at the end
	modeError                 // non-2xx: map to an Anthropic error at the end (a redirect is refused)
)

// Bounds for bodies the gateway must see whole.
const (
	maxBufferedBody = 64 << 20
	maxErrorBody    = 1 << 20
)

// responseWriter sits between reverse_proxy and the client. reverse_proxy
// writes the upstream's bytes into it; it writes the client's Anthropic
// response. Its state is guarded by mu because reverse_proxy's latency
// flusher and the keepalive timer run on other goroutines.
type responseWriter struct {
	*caddyhttp.ResponseWriterWrapper
	h  *Handler
	x  *providers.Exchange
	tr providers.Translator
	m  *exchangeMetrics
	// usage reads a passed-through response's usage for thinkgate_clients
	// (nil without a named client).
	usage *usageScanner

	mu        sync.Mutex
	mode      writeMode
	status    int
	committed bool // the client's status line has been written
	done      bool // the handler has returned: nothing may write any more
	failed    bool // the translation failed; the rest of the upstream body is dropped
	// streamFailed: the upstream's stream broke or was malformed.
	streamFailed bool
	// answered: the gateway wrote an error response in place of next's.
	answered  bool
	clientErr error
	// stream, translateBody and mapError are the translator's handling of
	// the response (modeStream, modeBuffer, modeError).
	stream        *providers.EventStream
	translateBody func([]byte) ([]byte, error)
	mapError      func(int, http.Header, []byte) *providers.Error
	body          []byte
	keepalive     *time.Timer
	// idle ends a stream whose upstream is silent (upstream_idle_timeout).
	idle *time.Timer
	// tooLarge: a non-streaming body passed maxBufferedBody.
	tooLarge bool
	// inWrite: Write is translating an upstream read (and may be waiting
	// for the client in the middle of it); the timers leave the stream alone.
	inWrite bool
	// stopErr ends the exchange early (shutdown, idle upstream); stopPending
	// holds it until Write returns.
	stopErr, stopPending *providers.Error
	// cancelUpstream cancels the request next sends.
	cancelUpstream context.CancelCauseFunc
	// ownHeader is the response header as it was before the upstream's was
	// copied in; upstreamHeader is the upstream's, for error mapping.
	ownHeader, upstreamHeader http.Header
	// attempt tells a fallback around the handler how its upstream failed.
	attempt *upstreamAttempt
	// bodyTimer bounds the read of a body the gateway reads whole or the
	// client did not ask to stream (upstream_body_timeout); bodyTimedOut:
	// it ran out and cancelled the upstream request.
	bodyTimer    *time.Timer
	bodyTimedOut bool
	// reqHeader is the upstream request's header, whose credentials are
	// scrubbed from relayed text with the configured ones; scrubbed holds
	// both once an error needs them.
	reqHeader http.Header
	scrubbed  [][]byte
	// trace reads the response for the request's span; nil when the span
	// does not record.
	trace *exchangeTrace
	// thinkingBlocks counts a non-streaming Message's thinking blocks.
	thinkingBlocks int

	// A translated stream's events reach the client through a writer
	// goroutine: takeEvents queues them in pending and returns, so the
	// next upstream read is translated while the last one's events are in
	// the socket (one stream at a time, the copy loop was translation and
	// system calls back to back). Events queued while the writer is busy go
	// out in one write. The writer runs while there is something to send;
	// writing says it runs, and drained wakes whoever waits for it to take
	// or finish a batch.
	pending  []byte
	inflight []byte // the batch being written, kept for reuse
	writing  bool
	drained  sync.Cond
}

// maxPending bounds the events queued for a client that reads slower than
// the upstream sends: past it, the upstream's copy loop waits, as it would
// for a synchronous write.
const maxPending = 64 << 10

// maxEventBatch bounds the events one translation step may build up before
// they are handed to the writer: the emitter drains its buffer between
// events once it holds this much, so one upstream read that expands into
// many events (a run of short thinking spans) is queued piece by piece and
// waits for the client like any other. The events a stream holds are thus
// at most about 2×(maxPending+maxEventBatch) plus one delta event of
// maxEventBatch input (longer deltas are split).
const maxEventBatch = 16 << 10

func newResponseWriter(w http.ResponseWriter, h *Handler, x *providers.Exchange, tr providers.Translator, m *exchangeMetrics) *responseWriter {
	rw := &responseWriter{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w}, h: h, x: x, tr: tr, m: m}
	rw.drained.L = &rw.mu
	return rw
}

// serve runs next with the wrapper in place and finishes the response. An
// upstream that breaks mid-stream makes reverse_proxy panic with
// http.ErrAbortHandler; the gateway catches it to close the open block and
// send an error event, so the client sees a clean end instead of a cut.
func (rw *responseWriter) serve(r *http.Request, next caddyhttp.Handler) (err error) {
	rw.ownHeader = rw.Header().Clone()
	rw.reqHeader = r.Header
	clientCtx := r.Context()
	rw.attempt = upstreamAttemptFrom(clientCtx)
	ctx, cancel := context.WithCancelCause(clientCtx)
	defer cancel(nil)
	rw.cancelUpstream = cancel
	r = r.WithContext(ctx)
	if rw.h.active != nil {
		rw.h.active.add(rw)
		defer rw.h.active.remove(rw)
	}
	aborted := false
	func() {
		defer func() {
			if v := recover(); v != nil {
				if v != http.ErrAbortHandler {
					panic(v)
				}
				aborted = true
			}
		}()
		err = next.ServeHTTP(rw, r)
	}()
	clientGone := clientCtx.Err() != nil
	cut := rw.mode == modeStream && (aborted || err != nil || clientGone) && !rw.stream.Finished()
	ferr := rw.finish(err, aborted, clientGone)
	if rw.usage != nil {
		rw.usage.end() // before the metrics read the usage
		if cut {
			rw.usage.estimateCut()
		}
	}
	rw.recordMetrics(clientGone)
	if ferr != nil {
		return ferr
	}
	if aborted && (clientGone || rw.mode == modePassthrough) {
		panic(http.ErrAbortHandler)
	}
	if rw.answered || rw.mode == modeStream || rw.mode == modeBuffer || rw.mode == modeError {
		return nil // the upstream's error, if any, is already in the response
	}
	return err
}

// WriteHeader asks the translator how to handle the response once the
// upstream's final status arrives.
func (rw *responseWriter) WriteHeader(status int) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	rw.attempt.answered(status, rw.Header())
	if rw.committed || rw.status != 0 {
		return
	}
	if status < 200 {
		rw.ResponseWriterWrapper.WriteHeader(status) // 1xx: informational, forward
		return
	}
	rw.status = status
	hdr := rw.Header()
	if status >= 300 && status < 400 {
		// A redirect never reaches the translator: following it would send
		// the gateway's credential and the prompt elsewhere; passing it
		// would send the client there. finish refuses it.
		rw.mode = modeError
		filterUpstreamHeader(hdr, rw.ownHeader, rw.h.ForwardRateLimitHeaders)
		rw.armBodyTimer()
		return
	}
	upstreamHeader := hdr
	if status >= 300 {
		rw.upstreamHeader = hdr.Clone() // for mapError, after hdr is filtered
		upstreamHeader = rw.upstreamHeader
	}
	h := rw.tr.Handle(status, upstreamHeader)
	switch {
	case h.Stream != nil:
		rw.mode, rw.stream = modeStream, h.Stream
	case h.Body != nil:
		rw.mode, rw.translateBody = modeBuffer, h.Body
	case h.Error != nil:
		rw.mode, rw.mapError = modeError, h.Error
	default:
		rw.mode = modePassthrough
		// Anthropic's own headers pass; its cookies are not the client's.
		hdr.Del("Set-Cookie")
		rw.commit(status)
		if status >= 300 || !rw.x.Stream {
			rw.armBodyTimer()
		}
		return
	}
	if h.UpstreamHeader {
		for _, k := range []string{"Set-Cookie", "Content-Length", "Content-Encoding"} {
			hdr.Del(k)
		}
	} else {
		filterUpstreamHeader(hdr, rw.ownHeader, rw.h.ForwardRateLimitHeaders)
	}
	if rw.mode == modeStream {
		hdr.Set("Content-Type", "text/event-stream; charset=utf-8")
		hdr.Set("Cache-Control", "no-cache")
		hdr.Set("X-Accel-Buffering", "no")
		rw.stream.Open(rw.takeEvents, maxEventBatch)
		rw.armKeepalive()
		rw.armIdle()
		return
	}
	rw.armBodyTimer()
}

// Write takes the upstream body.
func (rw *responseWriter) Write(p []byte) (int, error) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.status == 0 {
		rw.mu.Unlock()
		rw.WriteHeader(http.StatusOK)
		rw.mu.Lock()
	}
	switch rw.mode {
	case modePassthrough:
		if rw.trace != nil {
			rw.trace.observePassthrough(p, rw.x.Stream)
		}
		if rw.usage != nil && rw.status < 300 {
			rw.usage.write(p)
		}
		if rw.x.Stream && rw.m.firstContent.IsZero() && rw.status < 300 && bytes.Contains(p, contentDeltaEvent) {
			rw.m.firstContent = time.Now()
		}
		return rw.ResponseWriterWrapper.Write(p)
	case modeStream:
		if rw.failed || rw.done {
			return 0, errTranslationStopped
		}
		if rw.clientErr != nil {
			return 0, rw.clientErr
		}
		rw.inWrite = true
		err := rw.stream.Write(p)
		rw.inWrite = false
		rw.resetIdle()
		if err != nil {
			rw.failStream(err)
			return 0, errTranslationStopped
		}
		if rw.clientErr != nil {
			return 0, rw.clientErr
		}
		rw.resetKeepalive()
		if rw.stopPending != nil {
			rw.stopLocked(rw.stopPending)
			return 0, errTranslationStopped
		}
		if rw.stream.Finished() {
			// message_stop or error sent: the rest of the body has no place.
			rw.failed = true
		}
		return len(p), nil
	case modeBuffer, modeError:
		limit := maxBufferedBody
		if rw.mode == modeError {
			limit = maxErrorBody
		}
		if len(rw.body)+len(p) > limit {
			if rw.mode == modeBuffer {
				rw.tooLarge = true
				rw.body = nil
				return 0, fmt.Errorf("upstream response exceeds %d bytes", limit)
			}
			p = p[:max(0, limit-len(rw.body))]
		}
		rw.body = append(rw.body, p...)
		return len(p), nil
	}
	return len(p), nil
}

// contentDeltaEvent marks the first content of a stream passed through.
var contentDeltaEvent = []byte("event: content_block_delta")

var errTranslationStopped = errors.New("thinkgate: response translation stopped")

// errNoUpstreamHandler answers a request that nothing after thinkgate
// answered: without it the client would get an empty 200.
var errNoUpstreamHandler = providers.APIError(http.StatusBadGateway,
	"thinkgate: nothing answered the request: add reverse_proxy with the upstream's address after thinkgate, in the same route")

// ReadFrom hides the wrapped writer's io.ReaderFrom, so that io.Copy callers
// go through Write.
func (rw *responseWriter) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(writerOnly{rw}, r)
}

type writerOnly struct{ io.Writer }

// FlushError flushes the wrapped writer. In the translating modes the
// writer flushes its own events as it writes them, and nothing may reach the
// client before the status is decided, so reverse_proxy's flushes are no-ops.
func (rw *responseWriter) FlushError() error {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.mode != modePassthrough || rw.done {
		return nil
	}
	return http.NewResponseController(rw.ResponseWriterWrapper).Flush()
}

// Flush is FlushError for callers that use http.Flusher.
func (rw *responseWriter) Flush() { _ = rw.FlushError() }

// commit writes the client's status line once.
func (rw *responseWriter) commit(status int) {
	if rw.committed {
		return
	}
	rw.committed = true
	rw.m.status, rw.m.firstByte = status, time.Now()
	rw.ResponseWriterWrapper.WriteHeader(status)
}

// recordMetrics fills the exchange's metrics once the response is done.
func (rw *responseWriter) recordMetrics(clientGone bool) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	m := rw.m
	if m.status == 0 {
		m.status = rw.status
	}
	if m.status == 0 && clientGone {
		m.status = 499 // the client left before any response
	}
	m.streamed = rw.mode == modeStream
	if rw.stream != nil {
		m.thinkingBlocks = rw.stream.ThinkingBlocks()
	} else if rw.mode == modeBuffer {
		m.thinkingBlocks = rw.thinkingBlocks
	}
	m.end = time.Now()
	m.usage = rw.x.Usage
	switch {
	case rw.mode == modeError:
		m.upstreamStatus = fmt.Sprint(rw.status)
	case rw.mode == modeUndecided && m.status >= 500:
		m.upstreamStatus = "unreachable"
	case rw.failed && rw.streamFailed:
		m.upstreamStatus = "stream"
	}
	m.clientAborted = clientGone && (rw.mode == modeStream && !rw.stream.Finished() || !rw.committed)
}

// takeEvents is the stream's sink: it queues the events for the writer
// goroutine, starting it if it is not running, and returns the buffer the
// stream writes its next events on. Called with mu held.
func (rw *responseWriter) takeEvents(events []byte) []byte {
	if rw.clientErr != nil {
		return events[:0]
	}
	if rw.m.firstContent.IsZero() && rw.stream.Content() {
		rw.m.firstContent = time.Now()
	}
	if rw.trace != nil {
		rw.trace.observeEvents(events)
	}
	if rw.usage != nil {
		rw.usage.observeSent(events)
	}
	if rw.stream.Finished() {
		// The last events hold the error event, if any, whose message
		// may echo the upstream's credential.
		events = redact(events, rw.secrets())
	}
	if !rw.committed {
		// The first events go out at once, on this goroutine: there is
		// nothing yet to overlap them with, and the client's first byte
		// should not wait for the writer to be scheduled.
		rw.commit(rw.status)
		rw.clientErr = rw.send(events)
		return events[:0]
	}
	if len(rw.pending) == 0 {
		rw.pending, events = events, rw.pending[:0]
	} else {
		rw.pending = append(rw.pending, events...)
		events = events[:0]
	}
	if !rw.writing {
		rw.writing = true
		go rw.writeLoop()
	}
	for len(rw.pending) >= maxPending && rw.clientErr == nil {
		rw.drained.Wait()
	}
	return events
}

// writeLoop sends the queued events and flushes them, batch by batch, until
// none are left or the client is gone. Only it writes to the client while
// writing is set; mu is released around the write.
func (rw *responseWriter) writeLoop() {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	for len(rw.pending) > 0 && rw.clientErr == nil {
		batch := rw.pending
		rw.pending = rw.inflight[:0]
		rw.mu.Unlock()
		err := rw.send(batch)
		rw.mu.Lock()
		rw.inflight = batch[:0]
		if err != nil {
			rw.clientErr = err
		}
		rw.drained.Broadcast()
	}
	rw.pending = rw.pending[:0] // after a write error nothing more can reach the client
	rw.writing = false
	rw.drained.Broadcast()
}

// send writes p to the client and flushes it.
func (rw *responseWriter) send(p []byte) error {
	if _, err := rw.ResponseWriterWrapper.Write(p); err != nil {
		return err
	}
	return http.NewResponseController(rw.ResponseWriterWrapper).Flush()
}

// waitWriter waits until the writer goroutine has sent everything queued
// (or met a write error). Called with mu held.
func (rw *responseWriter) waitWriter() {
	for rw.writing {
		rw.drained.Wait()
	}
}

// failStream ends a broken stream: the stream decides between a real HTTP
// error (nothing sent yet) and an error event. mu held.
func (rw *responseWriter) failStream(err error) {
	rw.failed, rw.streamFailed = true, true
	e := providers.AsError(err)
	rw.x.Logger.Warn("upstream stream failed", zap.ByteString("error", redact([]byte(e.Message), rw.secrets())))
	if rw.trace != nil {
		rw.trace.errType = e.Type
	}
	if e := rw.stream.Fail(err); e != nil {
		rw.writeErrorLocked(e)
	}
}

func (rw *responseWriter) writeErrorLocked(e *providers.Error) {
	if rw.committed {
		return
	}
	e = redactError(e, rw.secrets())
	if rw.trace != nil {
		rw.trace.errType = e.Type
	}
	rw.committed = true
	rw.m.status, rw.m.firstByte = e.Status, time.Now()
	hdr := rw.Header()
	for _, k := range []string{"Cache-Control", "X-Accel-Buffering"} {
		hdr.Del(k)
	}
	_ = writeError(rw.ResponseWriterWrapper, e)
}

// finish completes the response after next has returned. upstreamErr is
// next's error; aborted means reverse_proxy gave up mid-body.
func (rw *responseWriter) finish(upstreamErr error, aborted, clientGone bool) error {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	defer func() {
		// The handler may not return while the writer uses the client's
		// writer.
		rw.waitWriter()
		rw.done = true
	}()
	if rw.keepalive != nil {
		rw.keepalive.Stop()
	}
	if rw.idle != nil {
		rw.idle.Stop()
	}
	if rw.bodyTimer != nil {
		rw.bodyTimer.Stop()
	}
	// A body cut off by upstream_body_timeout; one that was complete when
	// the timer fired is answered as it came.
	bodyTimedOut := rw.bodyTimedOut && (aborted || upstreamErr != nil)
	if rw.stopErr != nil && !rw.committed && !clientGone {
		// Ended by the gateway (shutdown) before anything was sent.
		rw.writeErrorLocked(rw.stopErr)
		rw.answered = true
		return nil
	}
	switch rw.mode {
	case modeUndecided, modePassthrough:
		if rw.committed {
			return nil
		}
		if clientGone {
			rw.answered = true // nobody to answer
			return nil
		}
		if upstreamErr != nil {
			// reverse_proxy could not reach the upstream (dial, timeout …):
			// answer in Anthropic form instead of Caddy's error page.
			rw.x.Logger.Error("upstream request failed", zap.Error(upstreamErr))
			rw.attempt.failed(upstreamErr)
			rw.writeErrorLocked(upstreamFailure(upstreamErr))
			rw.answered = true
			return nil
		}
		// The next handler returned without writing anything: thinkgate
		// has no reverse_proxy after it in its route.
		rw.x.Logger.Error(errNoUpstreamHandler.Message)
		rw.writeErrorLocked(errNoUpstreamHandler)
		rw.answered = true
		return nil
	case modeStream:
		if rw.failed || rw.stream.Finished() || clientGone {
			return nil
		}
		if aborted || upstreamErr != nil {
			rw.failStream(providers.APIError(http.StatusBadGateway, "upstream connection lost mid-stream"))
			return nil
		}
		if err := rw.stream.Close(); err != nil {
			rw.failStream(err)
			return nil
		}
	case modeBuffer:
		if bodyTimedOut {
			rw.writeErrorLocked(rw.bodyTimeoutError())
			return nil
		}
		if rw.tooLarge {
			rw.writeErrorLocked(providers.APIError(http.StatusBadGateway, fmt.Sprintf(
				"the upstream's non-streaming answer exceeds the gateway's %d MiB limit; use streaming", maxBufferedBody>>20)))
			return nil
		}
		if aborted || upstreamErr != nil {
			rw.attempt.failed(upstreamErr)
			rw.writeErrorLocked(providers.APIError(http.StatusBadGateway, "upstream connection lost before the response was complete"))
			return nil
		}
		out, err := rw.translateBody(rw.body)
		if err != nil {
			rw.writeErrorLocked(providers.AsError(err))
			return nil
		}
		rw.thinkingBlocks = countThinkingBlocks(out)
		if rw.trace != nil {
			rw.trace.observeMessage(out)
		}
		hdr := rw.Header()
		hdr.Set("Content-Type", "application/json")
		hdr.Set("Content-Length", fmt.Sprint(len(out)))
		rw.commit(rw.status)
		_, err = rw.ResponseWriterWrapper.Write(out)
		return err
	case modeError:
		if bodyTimedOut {
			rw.writeErrorLocked(rw.bodyTimeoutError())
			return nil
		}
		if rw.mapError == nil {
			// Following it would send the gateway's credential and the
			// prompt elsewhere; passing it would send the client there.
			rw.x.Logger.Error("upstream answered with a redirect", zap.Int("status", rw.status))
			rw.writeErrorLocked(providers.APIError(http.StatusBadGateway,
				fmt.Sprintf("the upstream answered with a redirect (%d), which the gateway does not follow", rw.status)))
			return nil
		}
		// Scrubbed before it is mapped too: a mapping that quotes a
		// part of the body could cut a credential in two.
		e := rw.mapError(rw.status, rw.upstreamHeader, redact(rw.body, rw.secrets()))
		rw.writeErrorLocked(e)
	}
	return nil
}

// secrets are what relayed upstream text is scrubbed of: the configured
// secrets and the credentials the upstream request carried. mu held.
func (rw *responseWriter) secrets() [][]byte {
	if rw.scrubbed == nil {
		rw.scrubbed = append(secretSet(sentCredentials(rw.reqHeader)...), rw.h.secrets...)
	}
	return rw.scrubbed
}

// armBodyTimer starts the bound of a body read whole, or not streamed
// (upstream_body_timeout), from the upstream's status. mu held.
func (rw *responseWriter) armBodyTimer() {
	rw.bodyTimer = time.AfterFunc(time.Duration(rw.h.UpstreamBodyTimeout), rw.bodyExpired)
}

// bodyExpired cuts off an upstream body that has not arrived whole within
// upstream_body_timeout: bytes that keep trickling in hold the request as
// surely as silence, and upstream_idle_timeout counts only silence. The
// upstream request is cancelled; finish answers, or a fallback moves on.
func (rw *responseWriter) bodyExpired() {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.done || rw.stopErr != nil {
		return
	}
	rw.bodyTimedOut = true
	if rw.status < 300 {
		// An answer that never arrived whole: a fallback reads it as a
		// timeout. An error status stands as the upstream's answer.
		rw.attempt.timedOut()
	}
	rw.x.Logger.Warn("upstream body not complete within upstream_body_timeout",
		zap.Int("status", rw.status), zap.Int("received", len(rw.body)),
		zap.Duration("upstream_body_timeout", time.Duration(rw.h.UpstreamBodyTimeout)))
	rw.cancelUpstream(errUpstreamBodyTimeout)
}

var errUpstreamBodyTimeout = errors.New("thinkgate: upstream_body_timeout ran out")

// bodyTimeoutError is the client's answer to a body cut off by
// upstream_body_timeout.
func (rw *responseWriter) bodyTimeoutError() *providers.Error {
	d := time.Duration(rw.h.UpstreamBodyTimeout)
	if rw.status >= 300 {
		return providers.APIError(http.StatusBadGateway, fmt.Sprintf(
			"the upstream answered %d, and its body did not arrive whole within %s (upstream_body_timeout)", rw.status, d))
	}
	return providers.APIError(http.StatusBadGateway, fmt.Sprintf(
		"the upstream's answer did not arrive whole within %s (upstream_body_timeout)", d))
}

// armKeepalive starts the ping timer. mu held.
func (rw *responseWriter) armKeepalive() {
	d := time.Duration(rw.h.Keepalive)
	if d <= 0 {
		return
	}
	rw.keepalive = time.AfterFunc(d, rw.ping)
}

func (rw *responseWriter) resetKeepalive() {
	if rw.keepalive != nil {
		rw.keepalive.Reset(time.Duration(rw.h.Keepalive))
	}
}

// ping sends a ping event while the upstream is silent. Before
// message_start a ping would break clients that demand message_start first,
// so the timer just waits for it.
func (rw *responseWriter) ping() {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.done || rw.failed || rw.stream.Finished() || rw.clientErr != nil {
		return
	}
	if !rw.inWrite {
		rw.stream.Ping()
	}
	rw.resetKeepalive()
}

// Interface guards
var (
	_ http.ResponseWriter = (*responseWriter)(nil)
	_ io.ReaderFrom       = (*responseWriter)(nil)
)
