package emit

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers/wire"
	"github.com/thinkgate/thinkgate/thinkparse"
)

// BlockForm is how thinking spans reach the client.
type BlockForm uint8

const (
	// FormThinking: Anthropic thinking blocks with thinking_delta and one
	// signature_delta (the default).
	FormThinking BlockForm = iota
	// FormText: every span its own text block (the text form of docs/thinking.md).
	FormText
)

type blockKind uint8

const (
	blockNone blockKind = iota
	blockText
	blockThinking     // a thinking block in FormThinking
	blockThinkingText // a thinking span shown as a text block (FormText)
	blockToolUse
	blockRaw // a block passed through from an Anthropic upstream
)

// Usage is the token usage the client sees. Values are whole-message totals.
type Usage struct {
	InputTokens              int64
	OutputTokens             int64
	CacheCreationInputTokens int64
	CacheReadInputTokens     int64
}

func appendUsage(dst []byte, u Usage) []byte {
	dst = append(dst, `{"input_tokens":`...)
	dst = strconv.AppendInt(dst, u.InputTokens, 10)
	dst = append(dst, `,"cache_creation_input_tokens":`...)
	dst = strconv.AppendInt(dst, u.CacheCreationInputTokens, 10)
	dst = append(dst, `,"cache_read_input_tokens":`...)
	dst = strconv.AppendInt(dst, u.CacheReadInputTokens, 10)
	dst = append(dst, `,"output_tokens":`...)
	dst = strconv.AppendInt(dst, u.OutputTokens, 10)
	return append(dst, '}')
}

// Emitter is the one place that owns the Anthropic stream grammar: exactly
// one message_start first, content blocks opened lazily (no empty blocks)
// with contiguous indexes from 0, every start paired with its stop, one
// signature_delta per thinking block, then message_delta and message_stop,
// or an error event after closing whatever is open. Providers call it with
// content; they never count indexes.
//
// What the grammar decides goes to an output: the event stream (NewEmitter)
// or one non-streaming Message (NewCollector). The same calls make both, so
// a provider converts content once for both modes.
type Emitter struct {
	out output
	// sse is out when it is the event stream; nil for a collector.
	sse *sseWriter

	form BlockForm
	mac  *blockMAC
	// omitThinking: thinking.display "omitted" (SetThinkingDisplay).
	omitThinking bool

	started, finished bool
	open              blockKind
	index             int // index of the open block, or of the next one
	meta              blockMeta
	signature         []byte // foreign signature for the open thinking block
	origin            Origin
	// waiting are citations that came while no text block was open; they
	// go on the next text block to open (see Citation).
	waiting      [][]byte
	waitingBytes int

	// Content is set once a text, thinking or tool-input delta is emitted.
	Content bool

	// Stats for logs and metrics.
	ThinkingBlocks int
	Blocks         int
	scratch        []byte
	valid          []byte
}

// blockMeta is the metadata (thinkparse attributes) of the next thinking block.
type blockMeta struct {
	set         bool
	thoughtType []byte
	confidence  float64
}

// output is where the emitter's decisions go: each method is one event of
// the stream (or its part of the collected Message). The emitter calls
// them in grammar order only; index is the block's.
type output interface {
	// frame returns upstream JSON fit to be written as it is.
	frame(data []byte) ([]byte, error)
	messageStart(id, model string, usage Usage)
	messageStartRaw(data []byte)
	// blockStart opens a text or thinking block; meta is a thinking block's.
	blockStart(index int, kind blockKind, meta *blockMeta)
	toolUseStart(index int, id, name string)
	rawBlockStart(index int, block []byte)
	// delta appends p to the open block; it reports whether p held invalid
	// UTF-8, which the client gets as U+FFFD.
	delta(index int, kind deltaKind, p []byte) (replaced bool)
	citation(index int, citation []byte)
	rawDelta(index int, delta []byte)
	// blockStop closes the block, with its signature when sig is not nil.
	blockStop(index int, sig []byte)
	messageDelta(stopReason, stopSequence string, usage Usage)
	messageDeltaRaw(data []byte)
	messageStop()
	fail(typ, msg string)
	failRaw(data []byte)
	rawEvent(name string, data []byte) error
	ping()
}

// NewEmitter returns an emitter writing Anthropic's event stream, without
// a sink: its events are held until Flush drops them, and Events reads
// them (tests, the demo upstream). A streamed response's emitter is
// NewStreamEmitter's. signer may be nil (no signatures).
func NewEmitter(form BlockForm, signer *Signer) *Emitter {
	// One allocation for both: an emitter is made per stream.
	s := &struct {
		Emitter
		w sseWriter
	}{}
	s.w.buf = make([]byte, 0, 4096)
	s.w.em = &s.Emitter
	s.Emitter.init(form, signer, &s.w)
	s.Emitter.sse = &s.w
	return &s.Emitter
}

func (e *Emitter) init(form BlockForm, signer *Signer, out output) {
	e.out, e.form, e.origin = out, form, OriginTags
	if signer != nil {
		e.mac = signer.newBlockMAC()
	}
}

// Events returns the events held, not yet flushed. The slice is valid until
// the next call.
func (e *Emitter) Events() []byte {
	if e.sse == nil {
		return nil
	}
	return e.sse.buf
}

// Flush hands the events held to the sink.
func (e *Emitter) Flush() {
	if e.sse != nil {
		e.sse.flush()
	}
}

// drop discards the events held.
func (e *Emitter) drop() {
	if e.sse != nil {
		e.sse.buf, e.sse.merge = e.sse.buf[:0], deltaMerge{}
	}
}

// Started reports whether message_start has been emitted.
func (e *Emitter) Started() bool { return e.started }

// Finished reports whether the stream reached message_stop or an error.
func (e *Emitter) Finished() bool { return e.finished }

// MessageStart emits message_start for a new message.
func (e *Emitter) MessageStart(id, model string, usage Usage) {
	if e.started {
		return
	}
	e.started = true
	e.out.messageStart(id, model, usage)
}

// MessageStartRaw emits an upstream's message_start data unchanged (see
// frameable for the one exception).
func (e *Emitter) MessageStartRaw(data []byte) error {
	if e.started {
		return nil
	}
	data, err := e.out.frame(data)
	if err != nil {
		return err
	}
	e.started = true
	e.out.messageStartRaw(data)
	return nil
}

// Text appends answer text, opening a text block if none is open.
func (e *Emitter) Text(p []byte) {
	if len(p) == 0 || e.finished {
		return
	}
	if e.open != blockText {
		e.openBlock(blockText)
	}
	e.Content = true
	e.out.delta(e.index, deltaText, p)
}

// Citation attaches a citation (the citation object of an Anthropic
// citations_delta) to the answer's text. An upstream sends a citation just
// before the text it supports: it goes on the text block open now, or, with
// none open, waits for the next text block to open (the text that follows
// may begin with a thinking span, which must not take it). FlushCitations
// places citations still waiting. In a collected Message the citation joins
// the block's citations field.
func (e *Emitter) Citation(citation []byte) error {
	if e.finished {
		return nil
	}
	citation, err := e.out.frame(citation)
	if err != nil {
		return err
	}
	if e.open != blockText {
		e.waiting = append(e.waiting, bytes.Clone(citation))
		e.waitingBytes += len(citation)
		return nil
	}
	e.out.citation(e.index, citation)
	return nil
}

// WaitingCitations returns the size of the citations waiting for a text
// block, for the caller to bound.
func (e *Emitter) WaitingCitations() int { return e.waitingBytes }

// FlushCitations puts the citations still waiting on a text block: the one
// open, or a new one (which then holds no text).
func (e *Emitter) FlushCitations() {
	if len(e.waiting) == 0 || e.finished {
		return
	}
	if e.open != blockText {
		e.openBlock(blockText) // takes the waiting citations
		return
	}
	e.releaseCitations()
}

// releaseCitations attaches the waiting citations to the open text block.
func (e *Emitter) releaseCitations() {
	for _, c := range e.waiting {
		e.out.citation(e.index, c)
	}
	e.waiting, e.waitingBytes = e.waiting[:0], 0
}

// ThinkingStart begins a thinking span. The block opens with the span's first
// text, so an empty span leaves no block behind.
func (e *Emitter) ThinkingStart(m *thinkparse.Meta) {
	if e.open == blockThinking || e.open == blockThinkingText {
		e.CloseBlock()
	}
	e.meta.set = m != nil && m.Attrs
	e.meta.thoughtType = e.meta.thoughtType[:0]
	if e.meta.set {
		e.meta.thoughtType = append(e.meta.thoughtType, m.ThoughtType...)
		e.meta.confidence = m.Confidence
	}
	e.origin = OriginTags
	e.signature = e.signature[:0]
}

// SetThinkingDisplay applies the request's thinking.display. "omitted"
// keeps every thinking block and its signature but none of its text, as
// Anthropic does: the block opens and closes with its signature_delta, no
// thinking_delta between (a collected block's thinking is ""), and the
// signature covers the empty text the client will send back. In the text
// form, where a block has no signature to keep, thinking leaves nothing.
func (e *Emitter) SetThinkingDisplay(display string) {
	e.omitThinking = display == wire.DisplayOmitted
}

// Thinking appends thinking text to the open span.
func (e *Emitter) Thinking(p []byte) {
	if len(p) == 0 || e.finished {
		return
	}
	if e.omitThinking {
		if e.form == FormThinking {
			if e.open != blockThinking {
				e.openBlock(blockThinking)
			}
			e.Content = true // the block reached the client, its text did not
		}
		return
	}
	if e.form == FormText {
		if e.open != blockThinkingText {
			e.openBlock(blockThinkingText)
		}
		e.Content = true
		e.out.delta(e.index, deltaText, p)
		return
	}
	if e.open != blockThinking {
		e.openBlock(blockThinking)
	}
	e.Content = true
	if replaced := e.out.delta(e.index, deltaThinking, p); e.mac != nil {
		// The client gets each invalid byte as U+FFFD: the signature must
		// cover the text it will send back. The output already said
		// whether there was any, so valid text is not scanned twice.
		if replaced {
			e.valid = appendValidUTF8(e.valid[:0], p)
			p = e.valid
		}
		e.mac.Write(p)
	}
}

// ThinkingEnd closes the open thinking span.
func (e *Emitter) ThinkingEnd() {
	if e.open == blockThinking || e.open == blockThinkingText {
		e.CloseBlock()
	}
	e.meta.set = false
}

// Signature records the upstream's own signature for the open thinking block
// (Gemini's thoughtSignature, Amazon Q's reasoning signature). The client gets
// exactly one signature_delta when the block closes, wrapping it.
func (e *Emitter) Signature(origin Origin, sig []byte) {
	e.origin = origin
	e.signature = append(e.signature[:0], sig...)
}

// ToolUseStart opens a tool_use block; its input follows as ToolInput.
func (e *Emitter) ToolUseStart(id, name string) {
	if e.finished {
		return
	}
	e.closeOpen()
	e.startBlock(blockToolUse)
	e.out.toolUseStart(e.index, id, name)
}

// ToolInput appends a fragment of the open tool_use block's JSON input.
func (e *Emitter) ToolInput(partial []byte) {
	if len(partial) == 0 || e.open != blockToolUse || e.finished {
		return
	}
	e.Content = true
	e.out.delta(e.index, deltaInputJSON, partial)
}

// RawBlockStart opens a block passed through from an Anthropic upstream;
// block is its content_block JSON. In a collected Message it is the whole
// block.
func (e *Emitter) RawBlockStart(block []byte) error {
	if e.finished {
		return nil
	}
	block, err := e.out.frame(block)
	if err != nil {
		return err
	}
	e.closeOpen()
	e.startBlock(blockRaw)
	if typ, _ := jsonparser.GetUnsafeString(block, "type"); typ == "thinking" {
		e.ThinkingBlocks++ // an upstream's own thinking block counts like one the gateway makes
	}
	e.out.rawBlockStart(e.index, block)
	return nil
}

// RawDelta emits a delta of the open passed-through block (the event
// stream only: a collected raw block is whole).
func (e *Emitter) RawDelta(delta []byte) error {
	if e.open != blockRaw || e.finished {
		return nil
	}
	delta, err := e.out.frame(delta)
	if err != nil {
		return err
	}
	e.Content = true
	e.out.rawDelta(e.index, delta)
	return nil
}

// CloseBlock closes the open block, if any.
func (e *Emitter) CloseBlock() { e.closeOpen() }

// RawEvent forwards an event the emitter does not know (an upstream's newer
// event type), as it is.
func (e *Emitter) RawEvent(name string, data []byte) error {
	if e.finished {
		return nil
	}
	data, err := e.out.frame(data)
	if err != nil {
		return err
	}
	return e.out.rawEvent(name, data)
}

// Ping emits a ping event (keepalive).
func (e *Emitter) Ping() {
	if e.finished {
		return
	}
	e.out.ping()
}

// Finish closes the open block and ends the message.
func (e *Emitter) Finish(stopReason, stopSequence string, usage Usage) {
	if e.finished {
		return
	}
	e.closeOpen()
	e.out.messageDelta(stopReason, stopSequence, usage)
	e.MessageStop()
}

// MessageDeltaRaw closes the open block and emits an upstream's message_delta data.
func (e *Emitter) MessageDeltaRaw(data []byte) error {
	if e.finished {
		return nil
	}
	data, err := e.out.frame(data)
	if err != nil {
		return err
	}
	e.closeOpen()
	e.out.messageDeltaRaw(data)
	return nil
}

// MessageStop ends the stream.
func (e *Emitter) MessageStop() {
	if e.finished {
		return
	}
	e.closeOpen()
	e.finished = true
	e.out.messageStop()
}

// Fail closes the open block and ends the stream with an error event.
func (e *Emitter) Fail(typ, msg string) {
	if e.finished {
		return
	}
	e.closeOpen()
	e.finished = true
	e.out.fail(typ, msg)
}

// FailRaw closes the open block and forwards an upstream error event's data.
func (e *Emitter) FailRaw(data []byte) error {
	if e.finished {
		return nil
	}
	data, err := e.out.frame(data)
	if err != nil {
		return err
	}
	e.closeOpen()
	e.finished = true
	e.out.failRaw(data)
	return nil
}

// openBlock closes what is open and opens a content block of kind.
func (e *Emitter) openBlock(kind blockKind) {
	e.closeOpen()
	e.startBlock(kind)
	var meta *blockMeta
	if kind == blockThinking {
		e.ThinkingBlocks++
		if e.mac != nil {
			e.mac.Reset()
		}
		meta = &e.meta
	}
	e.out.blockStart(e.index, kind, meta)
	if kind == blockText && len(e.waiting) > 0 {
		e.releaseCitations()
	}
}

func (e *Emitter) startBlock(kind blockKind) {
	if !e.started {
		// A provider bug, not a client's: never emit a block before message_start.
		panic("providers: content block before message_start")
	}
	e.open = kind
	e.Blocks++
}

// closeOpen closes the open block, with the signature of a thinking block.
func (e *Emitter) closeOpen() {
	if e.open == blockNone {
		return
	}
	kind := e.open
	e.open = blockNone
	var sig []byte
	if kind == blockThinking && (e.mac != nil || len(e.signature) > 0) {
		if e.mac != nil {
			e.scratch = e.mac.appendSignature(e.scratch[:0], e.origin, e.signature)
			sig = e.scratch
		} else {
			sig = e.signature
		}
	}
	if kind == blockThinking || kind == blockThinkingText {
		// An upstream's signature belongs to this block only: a thinking
		// block opened later without ThinkingStart is the gateway's own.
		// (sig may share e.signature's array; nothing appends to it here.)
		e.origin, e.signature = OriginTags, e.signature[:0]
	}
	e.out.blockStop(e.index, sig)
	e.index++
}

// errRawLineEnd refuses upstream JSON that cannot be framed as one SSE data
// line: a CR or LF that is not whitespace between JSON tokens (or that
// lies in an event name) would let the upstream frame events of its own.
var errRawLineEnd = &wire.Error{Status: 502, Type: "api_error",
	Message: "malformed upstream event: a line end that is not JSON whitespace"}

// frameable returns upstream JSON fit to be written as one data: line. JSON
// without CR or LF (every event Anthropic sends) is returned as it is;
// otherwise its whitespace is compacted away, and JSON still holding a line
// end, or not JSON, is errRawLineEnd.
func frameable(data []byte) ([]byte, error) {
	if bytes.IndexByte(data, '\n') < 0 && bytes.IndexByte(data, '\r') < 0 {
		return data, nil
	}
	var c bytes.Buffer
	c.Grow(len(data))
	if err := json.Compact(&c, data); err != nil {
		return nil, errRawLineEnd
	}
	return c.Bytes(), nil // compacted JSON holds no raw line end
}

// appendValidUTF8 appends p with every byte that is not part of a valid
// UTF-8 sequence replaced by U+FFFD, as jsonbytes.AppendString (and encoding/json)
// replace them.
func appendValidUTF8(dst, p []byte) []byte {
	for len(p) > 0 {
		r, size := utf8.DecodeRune(p)
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, "\uFFFD"...)
		} else {
			dst = append(dst, p[:size]...)
		}
		p = p[size:]
	}
	return dst
}

func appendNullable(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return jsonbytes.AppendString(b, s)
}
