package caddymodule

import (
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
	"github.com/thinkgate/thinkgate/providers/wire"
)

// Bounds for bodies the gateway must see whole.
const (
	maxBufferedBody = 64 << 20
	maxErrorBody    = 1 << 20
)

// responseWriter sits between reverse_proxy and the client. reverse_proxy
// writes the upstream's bytes into it; it writes the client's Anthropic
// response. When the upstream's status arrives, the translator's Handling
// picks the responseMode that handles the body; the writer itself keeps
// only what every mode needs: the client's status line, the exchange's
// end, the secrets to scrub. Its state is guarded by mu because
// reverse_proxy's latency flusher and the timers run on other goroutines.
type responseWriter struct {
	*caddyhttp.ResponseWriterWrapper
	h  *Handler
	x  *providers.Exchange
	tr providers.Translator
	m  *exchangeMetrics
	// cut estimates the usage of a translated stream cut short; nil
	// without a named client (thinkgate_clients), whose limits count the
	// exchange's usage.
	cut *cutUsage
	// trace reads the response for the request's span; nil when the span
	// does not record.
	trace *exchangeTrace

	mu sync.Mutex
	// mode handles the upstream's body; nil until its status has arrived.
	mode      responseMode
	status    int
	committed bool // the client's status line has been written
	done      bool // the handler has returned: nothing may write any more
	// stopErr ends the exchange early (shutdown, idle upstream).
	stopErr *wire.Error
	// cancelUpstream cancels the request next sends.
	cancelUpstream context.CancelCauseFunc
	// ownHeader is the response header as it was before the upstream's was
	// copied in.
	ownHeader http.Header
	// attempt tells a fallback around the handler how its upstream failed.
	attempt *upstreamAttempt
	// reqHeader is the upstream request's header, whose credentials are
	// scrubbed from relayed text with the configured ones; scrubbed holds
	// both once an error needs them.
	reqHeader http.Header
	scrubbed  [][]byte
}

// responseMode handles the upstream's body in the way the translator's
// Handling chose: passthroughBody, wholeBody, errorBody or streamBody.
// Every method runs with the writer's mu held.
type responseMode interface {
	// write takes a piece of the upstream's body.
	write(p []byte) (int, error)
	// flush is reverse_proxy's flush.
	flush() error
	// halt stops the mode's timers: next has returned.
	halt()
	// finish answers the client once next has returned, and returns the
	// handler's error.
	finish(end *upstreamEnd) error
	// stop ends the exchange early with e (shutdown, idle upstream).
	stop(e *wire.Error)
	// record fills the mode's part of the exchange's metrics.
	record(m *exchangeMetrics, clientGone bool)
}

// upstreamEnd is how next returned.
type upstreamEnd struct {
	err        error // next's error
	aborted    bool  // reverse_proxy gave up mid-body (http.ErrAbortHandler)
	clientGone bool
	// relayed: the body went to the client as it came, so a cut one is
	// cut for the client too (the abort is re-raised).
	relayed bool
}

func newResponseWriter(w http.ResponseWriter, h *Handler, x *providers.Exchange, tr providers.Translator, m *exchangeMetrics) *responseWriter {
	return &responseWriter{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w}, h: h, x: x, tr: tr, m: m}
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
	end := upstreamEnd{}
	func() {
		defer func() {
			if v := recover(); v != nil {
				if v != http.ErrAbortHandler {
					panic(v)
				}
				end.aborted = true
			}
		}()
		end.err = next.ServeHTTP(rw, r)
	}()
	end.clientGone = clientCtx.Err() != nil
	sb, streamed := rw.mode.(*streamBody)
	cut := streamed && (end.aborted || end.err != nil || end.clientGone) && !sb.status.Finished
	err = rw.finish(&end)
	if cut && rw.cut != nil {
		rw.cut.estimateCut() // before the metrics read the usage
	}
	rw.recordMetrics(end.clientGone)
	if end.aborted && (end.clientGone || end.relayed) {
		panic(http.ErrAbortHandler)
	}
	return err
}

// WriteHeader asks the translator how to handle the response once the
// upstream's final status arrives, and sets up the mode that does.
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
		// would send the client there. The error mode refuses it.
		filterUpstreamHeader(hdr, rw.ownHeader, rw.h.ForwardRateLimitHeaders)
		rw.mode = newErrorBody(rw, nil, nil)
		return
	}
	upstreamHeader := hdr
	if status >= 300 {
		upstreamHeader = hdr.Clone() // for the error mapping, after hdr is filtered
	}
	h := rw.tr.Handle(status, upstreamHeader)
	if h.NewStream == nil && h.Body == nil && h.Error == nil {
		// Anthropic's own headers pass; its cookies are not the client's.
		hdr.Del("Set-Cookie")
		rw.commit(status)
		rw.mode = newPassthroughBody(rw, status >= 300 || !rw.x.Streaming)
		return
	}
	if h.UpstreamHeader {
		for _, k := range []string{"Set-Cookie", "Content-Length", "Content-Encoding"} {
			hdr.Del(k)
		}
	} else {
		filterUpstreamHeader(hdr, rw.ownHeader, rw.h.ForwardRateLimitHeaders)
	}
	switch {
	case h.NewStream != nil:
		hdr.Set("Content-Type", "text/event-stream; charset=utf-8")
		hdr.Set("Cache-Control", "no-cache")
		hdr.Set("X-Accel-Buffering", "no")
		rw.mode = openStreamBody(rw, h.NewStream)
	case h.Body != nil:
		rw.mode = newWholeBody(rw, h.Body)
	default:
		rw.mode = newErrorBody(rw, h.Error, upstreamHeader)
	}
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
	if rw.mode == nil {
		return len(p), nil // the gateway has answered already
	}
	return rw.mode.write(p)
}

var errTranslationStopped = errors.New("thinkgate: response translation stopped")

// errNoUpstreamHandler answers a request that nothing after thinkgate
// answered: without it the client would get an empty 200.
var errNoUpstreamHandler = wire.APIError(http.StatusBadGateway,
	"thinkgate: nothing answered the request: add reverse_proxy with the upstream's address after thinkgate, in the same route")

// ReadFrom hides the wrapped writer's io.ReaderFrom, so that io.Copy callers
// go through Write.
func (rw *responseWriter) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(writerOnly{rw}, r)
}

type writerOnly struct{ io.Writer }

// FlushError is reverse_proxy's flush: the passed-through mode flushes the
// client's writer; the translating modes flush their own output as they
// write it, and nothing may reach the client before the status is decided.
func (rw *responseWriter) FlushError() error {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.mode == nil || rw.done {
		return nil
	}
	return rw.mode.flush()
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

// send writes p to the client and flushes it.
func (rw *responseWriter) send(p []byte) error {
	if _, err := rw.ResponseWriterWrapper.Write(p); err != nil {
		return err
	}
	return http.NewResponseController(rw.ResponseWriterWrapper).Flush()
}

// madeMessage reports whether the gateway made the client's Message (a
// stream or a whole body), whose thinking blocks it counted.
func (rw *responseWriter) madeMessage() bool {
	switch rw.mode.(type) {
	case *streamBody, *wholeBody:
		return true
	}
	return false
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
	m.end = time.Now()
	m.usage = rw.x.Usage
	m.clientAborted = clientGone && !rw.committed
	if rw.mode != nil {
		rw.mode.record(m, clientGone)
	} else if m.status >= 500 {
		m.upstreamStatus = "unreachable"
	}
}

func (rw *responseWriter) writeErrorLocked(e *wire.Error) {
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

// finish completes the response after next has returned, and returns the
// handler's error.
func (rw *responseWriter) finish(end *upstreamEnd) error {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	defer func() { rw.done = true }()
	if rw.mode != nil {
		rw.mode.halt()
	}
	if rw.stopErr != nil && !rw.committed && !end.clientGone {
		// Ended by the gateway (shutdown) before anything was sent.
		rw.writeErrorLocked(rw.stopErr)
		return nil
	}
	if rw.mode != nil {
		return rw.mode.finish(end)
	}
	// No status came from the upstream.
	switch {
	case rw.committed:
		return end.err
	case end.clientGone:
		return nil // nobody to answer
	case end.err != nil:
		// reverse_proxy could not reach the upstream (dial, timeout …):
		// answer in Anthropic form instead of Caddy's error page.
		rw.x.Logger.Error("upstream request failed", zap.Error(end.err))
		rw.attempt.failed(end.err)
		rw.writeErrorLocked(upstreamFailure(end.err))
	default:
		// The next handler returned without writing anything: thinkgate
		// has no reverse_proxy after it in its route.
		rw.x.Logger.Error(errNoUpstreamHandler.Message)
		rw.writeErrorLocked(errNoUpstreamHandler)
	}
	return nil
}

// endEarly records that the exchange ends with e and cancels the upstream
// request; finish answers whatever has not been answered, on the handler's
// goroutine (reverse_proxy may be filling the header map). mu held.
func (rw *responseWriter) endEarly(e *wire.Error) {
	rw.stopErr = e
	rw.cancelUpstream(fmt.Errorf("thinkgate: %s", e.Message))
}

// secrets are what relayed upstream text is scrubbed of: the configured
// secrets and the credentials the upstream request carried. mu held.
func (rw *responseWriter) secrets() [][]byte {
	if rw.scrubbed == nil {
		rw.scrubbed = append(secretSet(sentCredentials(rw.reqHeader)...), rw.h.secrets...)
	}
	return rw.scrubbed
}

// Interface guards
var (
	_ http.ResponseWriter = (*responseWriter)(nil)
	_ io.ReaderFrom       = (*responseWriter)(nil)
	_ responseMode        = (*passthroughBody)(nil)
	_ responseMode        = (*wholeBody)(nil)
	_ responseMode        = (*errorBody)(nil)
	_ responseMode        = (*streamBody)(nil)
)
