package caddymodule

import (
	"net/http"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// streamBody translates a 2xx upstream stream as it flows. One upstream
// read goes to the provider's stream translator, which writes events
// through the emitter; the emitter hands them, with the stream's status,
// to take, which queues them for the client: one way, so nothing asks
// the stream how it stands after a write.
type streamBody struct {
	rw *responseWriter
	em *emit.Emitter
	tr providers.StreamTranslator
	// status is the stream's as of the last events taken.
	status emit.StreamStatus
	// ended: the stream has ended (finished, broken or stopped); the rest
	// of the upstream body is dropped.
	ended bool
	// broken: it ended in an error, the upstream's or the gateway's stop.
	broken    bool
	clientErr error
	// inWrite: write is translating an upstream read (and may be waiting
	// for the client in the middle of it); the timers leave the stream
	// alone. stopPending holds a stop until write returns.
	inWrite     bool
	stopPending *wire.Error
	keepalive   *time.Timer
	// idle ends a stream whose upstream is silent (upstream_idle_timeout).
	idle *time.Timer

	// The events reach the client through a writer goroutine: take queues
	// them in pending and returns, so the next upstream read is translated
	// while the last one's events are in the socket (one stream at a time,
	// the copy loop was translation and system calls back to back). Events
	// queued while the writer is busy go out in one write. The writer runs
	// while there is something to send; writing says it runs, and drained
	// wakes whoever waits for it to take or finish a batch.
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

// openStreamBody makes the stream's emitter with take as its sink, the
// provider's translator on it, and starts the timers. A translator that
// begins the message by itself has sent message_start when it returns.
// mu held.
func openStreamBody(rw *responseWriter, newStream func(*emit.Emitter) providers.StreamTranslator) *streamBody {
	s := &streamBody{rw: rw}
	s.drained.L = &rw.mu
	s.em = emit.NewStreamEmitter(rw.x.Settings.Form, rw.x.Settings.Signer, s.take, maxEventBatch)
	s.em.SetThinkingDisplay(rw.x.ThinkingDisplay())
	s.tr = newStream(s.em)
	s.em.Flush()
	if d := time.Duration(rw.h.Keepalive); d > 0 {
		s.keepalive = time.AfterFunc(d, s.ping)
	}
	if d := time.Duration(rw.h.UpstreamIdleTimeout); d > 0 {
		s.idle = time.AfterFunc(d, s.idleExpired)
	}
	return s
}

func (s *streamBody) write(p []byte) (int, error) {
	rw := s.rw
	if s.ended || rw.done {
		return 0, errTranslationStopped
	}
	if s.clientErr != nil {
		return 0, s.clientErr
	}
	s.inWrite = true
	err := s.tr.Write(p)
	if err == nil {
		s.em.Flush()
	}
	s.inWrite = false
	if s.idle != nil {
		s.idle.Reset(time.Duration(rw.h.UpstreamIdleTimeout))
	}
	if err != nil {
		s.fail(err)
		return 0, errTranslationStopped
	}
	if s.clientErr != nil {
		return 0, s.clientErr
	}
	s.resetKeepalive()
	if s.stopPending != nil {
		s.stopNow(s.stopPending)
		return 0, errTranslationStopped
	}
	if s.status.Finished {
		// message_stop or error sent: the rest of the body has no place.
		s.ended = true
	}
	return len(p), nil
}

// flush does nothing: the writer flushes every batch it sends.
func (s *streamBody) flush() error { return nil }

func (s *streamBody) halt() {
	if s.keepalive != nil {
		s.keepalive.Stop()
	}
	if s.idle != nil {
		s.idle.Stop()
	}
}

// finish ends a stream the upstream left open: cut (an error event), or
// complete (the translator closes it). The handler may not return while
// the writer uses the client's writer.
func (s *streamBody) finish(end *upstreamEnd) error {
	defer s.waitWriter()
	if s.ended || s.status.Finished || end.clientGone {
		return nil
	}
	if end.aborted || end.err != nil {
		s.fail(wire.APIError(http.StatusBadGateway, "upstream connection lost mid-stream"))
		return nil
	}
	if err := s.tr.Close(); err != nil {
		s.fail(err)
		return nil
	}
	s.em.Flush()
	return nil
}

// stop ends the stream with e now, or when the upstream read under way has
// been translated.
func (s *streamBody) stop(e *wire.Error) {
	if s.inWrite {
		s.stopPending = e
		return
	}
	s.stopNow(e)
}

// stopNow is stop with the translator at rest: the stream ends with e (its
// error event, or its response when nothing was sent).
func (s *streamBody) stopNow(e *wire.Error) {
	rw := s.rw
	if !s.ended && !s.status.Finished {
		s.ended, s.broken = true, true
		rw.x.Logger.Warn("stream ended by the gateway", zap.String("error", e.Message))
		if e := s.em.Abort(e); e != nil {
			rw.writeErrorLocked(e)
		}
	}
	rw.endEarly(e)
}

func (s *streamBody) record(m *exchangeMetrics, clientGone bool) {
	m.streamed = true
	m.thinkingBlocks = s.status.ThinkingBlocks
	if s.broken {
		m.upstreamStatus = "stream"
	}
	if clientGone && !s.status.Finished {
		m.clientAborted = true
	}
}

// fail ends a broken stream: the emitter decides between a real HTTP error
// (nothing sent yet) and an error event.
func (s *streamBody) fail(err error) {
	rw := s.rw
	s.ended, s.broken = true, true
	e := wire.AsError(err)
	rw.x.Logger.Warn("upstream stream failed", zap.ByteString("error", redact([]byte(e.Message), rw.secrets())))
	if rw.trace != nil {
		rw.trace.errType = e.Type
	}
	if e := s.em.Abort(err); e != nil {
		rw.writeErrorLocked(e)
	}
}

// take is the emitter's sink: it queues the events for the writer
// goroutine, starting it if it is not running, and returns the buffer the
// emitter writes its next events on. Called with mu held.
func (s *streamBody) take(events []byte, status emit.StreamStatus) []byte {
	rw := s.rw
	s.status = status
	if s.clientErr != nil {
		return events[:0]
	}
	if rw.m.firstContent.IsZero() && status.Content {
		rw.m.firstContent = time.Now()
	}
	if rw.trace != nil {
		rw.trace.observeEvents(events)
	}
	if rw.cut != nil {
		rw.cut.observeSent(events)
	}
	if status.Finished {
		// The last events hold the error event, if any, whose message
		// may echo the upstream's credential.
		events = redact(events, rw.secrets())
	}
	if !rw.committed {
		// The first events go out at once, on this goroutine: there is
		// nothing yet to overlap them with, and the client's first byte
		// should not wait for the writer to be scheduled.
		rw.commit(rw.status)
		s.clientErr = rw.send(events)
		return events[:0]
	}
	if len(s.pending) == 0 {
		s.pending, events = events, s.pending[:0]
	} else {
		s.pending = append(s.pending, events...)
		events = events[:0]
	}
	if !s.writing {
		s.writing = true
		go s.writeLoop()
	}
	for len(s.pending) >= maxPending && s.clientErr == nil {
		s.drained.Wait()
	}
	return events
}

// writeLoop sends the queued events and flushes them, batch by batch, until
// none are left or the client is gone. Only it writes to the client while
// writing is set; mu is released around the write.
func (s *streamBody) writeLoop() {
	rw := s.rw
	rw.mu.Lock()
	defer rw.mu.Unlock()
	for len(s.pending) > 0 && s.clientErr == nil {
		batch := s.pending
		s.pending = s.inflight[:0]
		rw.mu.Unlock()
		err := rw.send(batch)
		rw.mu.Lock()
		s.inflight = batch[:0]
		if err != nil {
			s.clientErr = err
		}
		s.drained.Broadcast()
	}
	s.pending = s.pending[:0] // after a write error nothing more can reach the client
	s.writing = false
	s.drained.Broadcast()
}

// waitWriter waits until the writer goroutine has sent everything queued
// (or met a write error). Called with mu held.
func (s *streamBody) waitWriter() {
	for s.writing {
		s.drained.Wait()
	}
}

func (s *streamBody) resetKeepalive() {
	if s.keepalive != nil {
		s.keepalive.Reset(time.Duration(s.rw.h.Keepalive))
	}
}

// ping sends a ping event while the upstream is silent (the emitter sends
// none before message_start, so the timer just waits for it).
func (s *streamBody) ping() {
	rw := s.rw
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.done || s.ended || s.status.Finished || s.clientErr != nil {
		return
	}
	if !s.inWrite {
		s.em.Keepalive()
	}
	s.resetKeepalive()
}

// idleExpired ends a stream whose upstream has been silent for
// upstream_idle_timeout.
func (s *streamBody) idleExpired() {
	rw := s.rw
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.done || s.inWrite || rw.stopErr != nil {
		return // inWrite: the upstream is not silent; write re-arms the timer
	}
	d := time.Duration(rw.h.UpstreamIdleTimeout)
	s.stopNow(&wire.Error{Status: http.StatusGatewayTimeout, Type: "timeout_error",
		Message: "the upstream sent nothing for " + d.String() + " (upstream_idle_timeout)"})
}
