package caddymodule

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// passthroughBody relays the upstream's body as it comes (the translator
// leaves it to the upstream: Anthropic's own API).
type passthroughBody struct {
	rw       *responseWriter
	deadline bodyDeadline
	// read reads the body once for the span and a named client's usage;
	// nil when neither wants it.
	read *passthroughReader
}

// newPassthroughBody relays the body; timed bounds a body the client did
// not ask to stream by upstream_body_timeout. The status line is already
// committed.
func newPassthroughBody(rw *responseWriter, timed bool) *passthroughBody {
	b := &passthroughBody{rw: rw, read: newPassthroughReader(rw.x, rw.trace, rw.cut != nil, rw.status)}
	if timed {
		b.deadline.arm(rw, nil)
	}
	return b
}

func (b *passthroughBody) write(p []byte) (int, error) {
	rw := b.rw
	if b.read != nil {
		b.read.write(p)
	}
	if rw.x.Streaming && rw.m.firstContent.IsZero() && rw.status < 300 && bytes.Contains(p, contentDeltaEvent) {
		rw.m.firstContent = time.Now()
	}
	return rw.ResponseWriterWrapper.Write(p)
}

// contentDeltaEvent marks the first content of a stream passed through.
var contentDeltaEvent = []byte("event: content_block_delta")

func (b *passthroughBody) flush() error {
	return http.NewResponseController(b.rw.ResponseWriterWrapper).Flush()
}

func (b *passthroughBody) halt() { b.deadline.halt() }

// finish leaves the response as relayed: next's error, if any, is the
// handler's.
func (b *passthroughBody) finish(end *upstreamEnd) error {
	if b.read != nil {
		b.read.end() // before the metrics and the client's count read the usage
	}
	end.relayed = true
	return end.err
}

// stop does nothing: a body relayed byte for byte can take no event.
func (b *passthroughBody) stop(*wire.Error) {}

func (b *passthroughBody) record(*exchangeMetrics, bool) {}

// wholeBody reads a 2xx non-streaming body whole, within maxBufferedBody,
// and answers with its translation.
type wholeBody struct {
	rw        *responseWriter
	deadline  bodyDeadline
	translate func([]byte) ([]byte, error)
	body      []byte
	// tooLarge: the body passed maxBufferedBody.
	tooLarge bool
	// thinkingBlocks counts the Message's thinking blocks.
	thinkingBlocks int
}

func newWholeBody(rw *responseWriter, translate func([]byte) ([]byte, error)) *wholeBody {
	b := &wholeBody{rw: rw, translate: translate}
	b.deadline.arm(rw, func() int { return len(b.body) })
	return b
}

func (b *wholeBody) write(p []byte) (int, error) {
	if len(b.body)+len(p) > maxBufferedBody {
		b.tooLarge = true
		b.body = nil
		return 0, fmt.Errorf("upstream response exceeds %d bytes", maxBufferedBody)
	}
	b.body = append(b.body, p...)
	return len(p), nil
}

func (b *wholeBody) flush() error { return nil }

func (b *wholeBody) halt() { b.deadline.halt() }

func (b *wholeBody) finish(end *upstreamEnd) error {
	rw := b.rw
	switch {
	case b.deadline.cutOff(end):
		rw.writeErrorLocked(rw.bodyTimeoutError())
		return nil
	case b.tooLarge:
		rw.writeErrorLocked(wire.APIError(http.StatusBadGateway, fmt.Sprintf(
			"the upstream's non-streaming answer exceeds the gateway's %d MiB limit; use streaming", maxBufferedBody>>20)))
		return nil
	case end.aborted || end.err != nil:
		rw.attempt.failed(end.err)
		rw.writeErrorLocked(wire.APIError(http.StatusBadGateway, "upstream connection lost before the response was complete"))
		return nil
	}
	out, err := b.translate(b.body)
	if err != nil {
		rw.writeErrorLocked(wire.AsError(err))
		return nil
	}
	b.thinkingBlocks = countThinkingBlocks(out)
	if rw.trace != nil {
		rw.trace.observeMessage(out)
	}
	hdr := rw.Header()
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Content-Length", fmt.Sprint(len(out)))
	rw.commit(rw.status)
	_, err = rw.ResponseWriterWrapper.Write(out)
	return err
}

func (b *wholeBody) stop(e *wire.Error) { b.rw.endEarly(e) }

func (b *wholeBody) record(m *exchangeMetrics, _ bool) { m.thinkingBlocks = b.thinkingBlocks }

// errorBody reads a non-2xx body, within maxErrorBody, and answers with the
// Anthropic error it maps to; a redirect is refused.
type errorBody struct {
	rw       *responseWriter
	deadline bodyDeadline
	// mapError maps the body; nil for a redirect.
	mapError func(int, http.Header, []byte) *wire.Error
	// header is the upstream's, as it came, for mapError.
	header http.Header
	body   []byte
}

func newErrorBody(rw *responseWriter, mapError func(int, http.Header, []byte) *wire.Error, header http.Header) *errorBody {
	b := &errorBody{rw: rw, mapError: mapError, header: header}
	b.deadline.arm(rw, func() int { return len(b.body) })
	return b
}

// write keeps the first maxErrorBody bytes: an error's message is at its
// start.
func (b *errorBody) write(p []byte) (int, error) {
	if len(b.body)+len(p) > maxErrorBody {
		p = p[:max(0, maxErrorBody-len(b.body))]
	}
	b.body = append(b.body, p...)
	return len(p), nil
}

func (b *errorBody) flush() error { return nil }

func (b *errorBody) halt() { b.deadline.halt() }

func (b *errorBody) finish(end *upstreamEnd) error {
	rw := b.rw
	if b.deadline.cutOff(end) {
		rw.writeErrorLocked(rw.bodyTimeoutError())
		return nil
	}
	if b.mapError == nil {
		// Following it would send the gateway's credential and the
		// prompt elsewhere; passing it would send the client there.
		rw.x.Logger.Error("upstream answered with a redirect", zap.Int("status", rw.status))
		rw.writeErrorLocked(wire.APIError(http.StatusBadGateway,
			fmt.Sprintf("the upstream answered with a redirect (%d), which the gateway does not follow", rw.status)))
		return nil
	}
	// Scrubbed before it is mapped too: a mapping that quotes a part of
	// the body could cut a credential in two.
	rw.writeErrorLocked(b.mapError(rw.status, b.header, redact(b.body, rw.secrets())))
	return nil
}

func (b *errorBody) stop(e *wire.Error) { b.rw.endEarly(e) }

func (b *errorBody) record(m *exchangeMetrics, _ bool) { m.upstreamStatus = fmt.Sprint(b.rw.status) }

// bodyDeadline bounds the read of a body the gateway reads whole, or that
// the client did not ask to stream (upstream_body_timeout), from the
// upstream's status: bytes that keep trickling in hold the request as
// surely as silence, and upstream_idle_timeout counts only silence.
type bodyDeadline struct {
	timer *time.Timer
	// expired: it ran out and cancelled the upstream request.
	expired bool
}

// arm starts the bound; received reports the bytes read so far, for the
// log (nil: none are kept). mu held.
func (d *bodyDeadline) arm(rw *responseWriter, received func() int) {
	d.timer = time.AfterFunc(time.Duration(rw.h.UpstreamBodyTimeout), func() { rw.bodyExpired(d, received) })
}

func (d *bodyDeadline) halt() {
	if d.timer != nil {
		d.timer.Stop()
	}
}

// cutOff reports whether the deadline cut the body off; one that was
// complete when the timer fired is answered as it came.
func (d *bodyDeadline) cutOff(end *upstreamEnd) bool {
	return d.expired && (end.aborted || end.err != nil)
}

// bodyExpired cuts off an upstream body that has not arrived whole within
// upstream_body_timeout. The upstream request is cancelled; finish
// answers, or a fallback moves on.
func (rw *responseWriter) bodyExpired(d *bodyDeadline, received func() int) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.done || rw.stopErr != nil {
		return
	}
	d.expired = true
	if rw.status < 300 {
		// An answer that never arrived whole: a fallback reads it as a
		// timeout. An error status stands as the upstream's answer.
		rw.attempt.timedOut()
	}
	n := 0
	if received != nil {
		n = received()
	}
	rw.x.Logger.Warn("upstream body not complete within upstream_body_timeout",
		zap.Int("status", rw.status), zap.Int("received", n),
		zap.Duration("upstream_body_timeout", time.Duration(rw.h.UpstreamBodyTimeout)))
	rw.cancelUpstream(errUpstreamBodyTimeout)
}

var errUpstreamBodyTimeout = errors.New("thinkgate: upstream_body_timeout ran out")

// bodyTimeoutError is the client's answer to a body cut off by
// upstream_body_timeout.
func (rw *responseWriter) bodyTimeoutError() *wire.Error {
	d := time.Duration(rw.h.UpstreamBodyTimeout)
	if rw.status >= 300 {
		return wire.APIError(http.StatusBadGateway, fmt.Sprintf(
			"the upstream answered %d, and its body did not arrive whole within %s (upstream_body_timeout)", rw.status, d))
	}
	return wire.APIError(http.StatusBadGateway, fmt.Sprintf(
		"the upstream's answer did not arrive whole within %s (upstream_body_timeout)", d))
}
