package emit

import (
	"mime"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// StreamStatus is where a stream stands once the events handed with it
// have reached the client: what the sink needs to know about the stream,
// so that nothing asks the emitter after a write.
type StreamStatus struct {
	// Started: message_start is among the events sent.
	Started bool
	// Content: a text, thinking or tool-input delta has been made (its event
	// is in this batch or, when a long batch was drained, the next).
	Content bool
	// Finished: message_stop or an error event ends these events; nothing
	// follows them.
	Finished bool
	// ThinkingBlocks is the number of thinking blocks begun, for logs and
	// metrics.
	ThinkingBlocks int
}

// EventSink takes the events of a streamed response, with the stream's
// status once they are sent. It may keep the slice, and returns an empty
// buffer for the events that follow.
type EventSink func(events []byte, status StreamStatus) []byte

// NewStreamEmitter returns the emitter of one streamed response, writing
// Anthropic's event stream in s's thinking form and signed by s's signer,
// with its sink. Flush hands the events held to sink; once drainAt bytes
// are held the emitter flushes between two events by itself, and a delta
// longer than drainAt is split into several delta events at rune
// boundaries: one upstream read that expands into many client events (a
// run of short thinking spans) is handed over piece by piece.
//
// The caller makes the provider's StreamTranslator on it
// (Handling.NewStream), flushes once (a translator that begins the
// message by itself has emitted message_start), then calls Flush after
// every Write and Close of the translator, and Abort when one fails.
func NewStreamEmitter(form BlockForm, signer *Signer, sink EventSink, drainAt int) *Emitter {
	e := NewEmitter(form, signer)
	e.sse.sink, e.sse.drainAt = sink, drainAt
	return e
}

// Abort ends a stream whose translator failed (or that the gateway ends)
// with err. When nothing has reached the sink and no message has begun,
// it drops what is held and returns err as an *Error for the caller to
// answer with (a real HTTP status and body): an error event before
// message_start would break the grammar. Otherwise it closes the open
// block, sends an error event and returns nil.
func (e *Emitter) Abort(err error) *wire.Error {
	x := wire.AsError(err)
	if (e.sse == nil || !e.sse.sent) && !e.started {
		e.drop()
		return x
	}
	e.Fail(x.Type, x.Message)
	e.Flush()
	return nil
}

// Keepalive sends a ping event at once, while the message is under way.
// Before message_start a ping would break clients that demand
// message_start first, and after the end nothing may follow: none is sent
// then.
func (e *Emitter) Keepalive() {
	if !e.started || e.finished {
		return
	}
	e.Ping()
	e.Flush()
}

// status is the stream's status for the sink.
func (e *Emitter) status() StreamStatus {
	return StreamStatus{Started: e.started, Content: e.Content, Finished: e.finished, ThinkingBlocks: e.ThinkingBlocks}
}

// IsSSE reports whether a response's Content-Type is text/event-stream,
// the streaming form of the SSE upstreams (AWS's event stream is
// providers/awsstream's).
func IsSSE(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/event-stream"
}

// sseWriter is the emitter's output as Anthropic's event stream: events are
// appended to buf and handed to the sink.
type sseWriter struct {
	em      *Emitter
	buf     []byte
	sink    EventSink
	drainAt int
	// sent: events have reached the sink, so a failure can no longer be
	// an HTTP error.
	sent  bool
	merge deltaMerge
	// indexText is the decimal form of indexOf-1 (so that the zero value
	// is stale): every event of a block carries it.
	indexText []byte
	indexOf   int
}

// flush hands buf to the sink (drops it without one).
func (w *sseWriter) flush() {
	if len(w.buf) == 0 {
		return
	}
	if w.sink != nil {
		w.sent = true
		w.buf = w.sink(w.buf, w.em.status())
	} else {
		w.buf = w.buf[:0]
	}
	// The delta that ended buf is gone: nothing may be merged into it.
	w.merge = deltaMerge{}
}

// drainIfFull flushes once buf has reached drainAt. Called only between events.
func (w *sseWriter) drainIfFull() {
	if w.sink != nil && len(w.buf) >= w.drainAt {
		w.flush()
	}
}

func (w *sseWriter) frame(data []byte) ([]byte, error) { return frameable(data) }

func (w *sseWriter) messageStart(id, model string, usage Usage) {
	b := append(w.buf, "event: message_start\ndata: "...)
	b = append(b, `{"type":"message_start","message":{"id":`...)
	b = jsonbytes.AppendString(b, id)
	b = append(b, `,"type":"message","role":"assistant","model":`...)
	b = jsonbytes.AppendString(b, model)
	b = append(b, `,"content":[],"stop_reason":null,"stop_sequence":null,"usage":`...)
	b = appendUsage(b, usage)
	w.buf = append(b, "}}\n\n"...)
}

func (w *sseWriter) messageStartRaw(data []byte) {
	w.buf = appendSSE(w.buf, "message_start", data)
}

func (w *sseWriter) blockStart(index int, kind blockKind, meta *blockMeta) {
	w.drainIfFull()
	b := w.startEvent(index)
	if kind == blockThinking {
		b = append(b, `{"type":"thinking","thinking":""`...)
		if meta.set {
			b = appendMeta(b, meta)
		}
		b = append(b, '}')
	} else {
		b = append(b, `{"type":"text","text":""}`...)
	}
	w.buf = append(b, "}\n\n"...)
}

func appendMeta(b []byte, meta *blockMeta) []byte {
	b = append(b, `,"metadata":{`...)
	if len(meta.thoughtType) > 0 {
		b = append(b, `"thought_type":`...)
		b = jsonbytes.AppendString(b, meta.thoughtType)
		b = append(b, ',')
	}
	b = append(b, `"confidence":`...)
	return append(strconv.AppendFloat(b, meta.confidence, 'f', -1, 64), '}')
}

func (w *sseWriter) toolUseStart(index int, id, name string) {
	b := w.startEvent(index)
	b = append(b, `{"type":"tool_use","id":`...)
	b = jsonbytes.AppendString(b, id)
	b = append(b, `,"name":`...)
	b = jsonbytes.AppendString(b, name)
	w.buf = append(b, `,"input":{}}}`+"\n\n"...)
}

func (w *sseWriter) rawBlockStart(index int, block []byte) {
	b := w.startEvent(index)
	b = append(b, block...)
	w.buf = append(b, "}\n\n"...)
}

func (w *sseWriter) citation(index int, citation []byte) {
	b := append(w.buf, deltaEventHead...)
	b = w.appendIndex(b, index)
	b = append(b, `,"delta":{"type":"citations_delta","citation":`...)
	b = append(b, citation...)
	w.buf = append(b, "}}\n\n"...)
}

func (w *sseWriter) rawDelta(index int, delta []byte) {
	w.drainIfFull()
	b := append(w.buf, deltaEventHead...)
	b = w.appendIndex(b, index)
	b = append(b, `,"delta":`...)
	b = append(b, delta...)
	w.buf = append(b, "}\n\n"...)
}

func (w *sseWriter) blockStop(index int, sig []byte) {
	w.drainIfFull()
	b := w.buf
	if sig != nil {
		b = append(b, deltaEventHead...)
		b = w.appendIndex(b, index)
		b = append(b, `,"delta":{"type":"signature_delta","signature":`...)
		b = jsonbytes.AppendString(b, sig)
		b = append(b, "}}\n\n"...)
	}
	b = append(b, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":"...)
	b = w.appendIndex(b, index)
	w.buf = append(b, "}\n\n"...)
}

func (w *sseWriter) messageDelta(stopReason, stopSequence string, usage Usage) {
	b := append(w.buf, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"...)
	b = appendNullable(b, stopReason)
	b = append(b, `,"stop_sequence":`...)
	b = appendNullable(b, stopSequence)
	b = append(b, `},"usage":`...)
	b = appendUsage(b, usage)
	w.buf = append(b, "}\n\n"...)
}

func (w *sseWriter) messageDeltaRaw(data []byte) {
	w.buf = appendSSE(w.buf, "message_delta", data)
}

func (w *sseWriter) messageStop() {
	w.buf = append(w.buf, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"...)
}

func (w *sseWriter) fail(typ, msg string) {
	b := append(w.buf, "event: error\ndata: "...)
	b = wire.AppendErrorJSON(b, typ, msg)
	w.buf = append(b, "\n\n"...)
}

func (w *sseWriter) failRaw(data []byte) {
	w.buf = appendSSE(w.buf, "error", data)
}

func (w *sseWriter) rawEvent(name string, data []byte) error {
	if strings.ContainsAny(name, "\r\n") {
		return errRawLineEnd
	}
	w.buf = appendSSE(w.buf, name, data)
	return nil
}

func (w *sseWriter) ping() {
	w.buf = append(w.buf, "event: ping\ndata: {\"type\": \"ping\"}\n\n"...)
}

func (w *sseWriter) startEvent(index int) []byte {
	b := append(w.buf, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":"...)
	b = w.appendIndex(b, index)
	return append(b, `,"content_block":`...)
}

// appendIndex appends a block's index, formatted once per block.
func (w *sseWriter) appendIndex(b []byte, index int) []byte {
	if w.indexOf != index+1 {
		w.indexText = strconv.AppendInt(w.indexText[:0], int64(index), 10)
		w.indexOf = index + 1
	}
	return append(b, w.indexText...)
}

// The deltas the emitter writes itself. Deltas of one block that follow each
// other in buf, unflushed, merge into one event: they reach the client in the
// same write either way, and one event instead of many saves the client and
// the gateway the per-event wrapper (a 16 KiB upstream read holds a hundred).
type deltaKind uint8

const (
	deltaNone deltaKind = iota
	deltaText
	deltaThinking
	deltaInputJSON
)

var deltaHeads = [...]string{
	deltaText:      `,"delta":{"type":"text_delta","text":"`,
	deltaThinking:  `,"delta":{"type":"thinking_delta","thinking":"`,
	deltaInputJSON: `,"delta":{"type":"input_json_delta","partial_json":"`,
}

const (
	deltaEventHead = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":"
	deltaTail      = "\"}}\n\n"
)

// delta writes a delta of kind for the block at index, split in pieces of
// about drainAt bytes when a sink takes them.
func (w *sseWriter) delta(index int, kind deltaKind, p []byte) (replaced bool) {
	for w.sink != nil && len(p) > w.drainAt {
		n := runeCut(p, w.drainAt)
		if w.delta1(index, kind, p[:n]) {
			replaced = true
		}
		p = p[n:]
	}
	return w.delta1(index, kind, p) || replaced
}

// runeCut returns where to cut p, which is longer than n, about n bytes
// in, so that no character is split: at the start of the rune at n; past
// the first rune when that is longer than n, so that a piece always holds
// one character; at n itself when only invalid bytes stand before it,
// which are replaced one by one wherever the cut falls.
func runeCut(p []byte, n int) int {
	for i := n; i > 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			return i
		}
	}
	if n < utf8.UTFMax {
		_, size := utf8.DecodeRune(p)
		return max(size, n)
	}
	return n
}

// delta1 writes one delta event, or extends the last event when it is a
// delta of the same kind and block that ends buf. Every other event makes
// buf longer than merge.end, and a flush resets merge: so the bytes at
// merge.end are always that delta's when the check passes.
func (w *sseWriter) delta1(index int, kind deltaKind, p []byte) (replaced bool) {
	w.drainIfFull()
	var b []byte
	if w.merge.kind == kind && w.merge.index == index && w.merge.end == len(w.buf) {
		b, replaced = jsonbytes.AppendStringBody(w.buf[:len(w.buf)-len(deltaTail)], p)
		w.buf = append(b, deltaTail...)
		w.merge.end = len(w.buf)
		return replaced
	}
	b = append(w.buf, deltaEventHead...)
	b = w.appendIndex(b, index)
	b = append(b, deltaHeads[kind]...)
	b, replaced = jsonbytes.AppendStringBody(b, p)
	w.buf = append(b, deltaTail...)
	w.merge = deltaMerge{kind: kind, index: index, end: len(w.buf)}
	return replaced
}

// deltaMerge locates the last delta event written to buf.
type deltaMerge struct {
	kind  deltaKind
	index int
	end   int
}
