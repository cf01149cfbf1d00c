package providers

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
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
// In streaming mode events are appended to Buf, which the caller writes and
// flushes and then truncates. In collect mode (NewCollector) the same calls
// build one non-streaming Message.
type Emitter struct {
	// Buf holds encoded events not yet written to the client. The caller
	// writes and truncates it; everything else goes through the emitter's
	// methods (RawEvent for events it does not know).
	Buf []byte

	form    BlockForm
	mac     *BlockMAC
	collect *collector

	started, finished bool
	open              blockKind
	index             int // index of the open block, or of the next one
	// indexText is the decimal form of index+1 (so that the zero value
	// is stale): every event of a block carries it.
	indexText         []byte
	indexOf           int
	pendingMeta       []byte
	pendingAttrs      bool
	pendingConfidence float64
	signature         []byte // foreign signature for the open thinking block
	origin            Origin
	// waiting are citations that came while no text block was open; they
	// go on the next text block to open (see Citation).
	waiting      [][]byte
	waitingBytes int

	// Drain, when set, is called between two events once Buf holds DrainAt
	// bytes or more; it takes Buf's events (and truncates Buf). One upstream
	// event can expand into many client events (a run of short thinking
	// spans): draining bounds Buf inside it. A delta longer than DrainAt is
	// split into several delta events at rune boundaries.
	Drain   func()
	DrainAt int
	// Content is set once a text, thinking or tool-input delta is emitted.
	Content bool

	// Stats for logs and metrics.
	ThinkingBlocks int
	Blocks         int
	scratch        []byte
	valid          []byte
	merge          deltaMerge // a thinking delta with invalid UTF-8 replaced
}

// NewEmitter returns a streaming emitter. signer may be nil (no signatures).
func NewEmitter(form BlockForm, signer *Signer) *Emitter {
	e := &Emitter{form: form, Buf: make([]byte, 0, 4096), origin: OriginTags}
	if signer != nil {
		e.mac = signer.NewBlockMAC()
	}
	return e
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
	if e.collect != nil {
		e.collect.id, e.collect.model, e.collect.usage = id, model, usage
		return
	}
	b := append(e.Buf, "event: message_start\ndata: "...)
	b = append(b, `{"type":"message_start","message":{"id":`...)
	b = jsonbytes.AppendString(b, id)
	b = append(b, `,"type":"message","role":"assistant","model":`...)
	b = jsonbytes.AppendString(b, model)
	b = append(b, `,"content":[],"stop_reason":null,"stop_sequence":null,"usage":`...)
	b = appendUsage(b, usage)
	e.Buf = append(b, "}}\n\n"...)
	e.merge.kind = deltaNone
}

// MessageStartRaw emits an upstream's message_start data unchanged (see
// frameable for the one exception).
func (e *Emitter) MessageStartRaw(data []byte) error {
	if e.started {
		return nil
	}
	data, err := e.frameable(data)
	if err != nil {
		return err
	}
	e.started = true
	if e.collect == nil {
		e.Buf = AppendSSE(e.Buf, "message_start", data)
		e.merge.kind = deltaNone
	}
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
	if e.collect != nil {
		e.collect.cur().text = append(e.collect.cur().text, p...)
		return
	}
	e.appendDelta(deltaText, p)
}

// Citation attaches a citation (the citation object of an Anthropic
// citations_delta) to the answer's text. An upstream sends a citation just
// before the text it supports: it goes on the text block open now, or, with
// none open, waits for the next text block to open (the text that follows
// may begin with a thinking span, which must not take it). FlushCitations
// places citations still waiting. In collect mode the citation joins the
// block's citations field.
func (e *Emitter) Citation(citation []byte) error {
	if e.finished {
		return nil
	}
	if e.collect == nil {
		var err error
		if citation, err = e.frameable(citation); err != nil {
			return err
		}
	}
	if e.open != blockText {
		e.waiting = append(e.waiting, bytes.Clone(citation))
		e.waitingBytes += len(citation)
		return nil
	}
	e.appendCitation(citation)
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
		e.appendCitation(c)
	}
	e.waiting, e.waitingBytes = e.waiting[:0], 0
}

func (e *Emitter) appendCitation(citation []byte) {
	if e.collect != nil {
		c := e.collect.cur()
		c.citations = append(c.citations, json.RawMessage(bytes.Clone(citation)))
		return
	}
	b := append(e.Buf, deltaEventHead...)
	b = e.appendIndex(b)
	b = append(b, `,"delta":{"type":"citations_delta","citation":`...)
	b = append(b, citation...)
	e.Buf = append(b, "}}\n\n"...)
	e.merge.kind = deltaNone
}

// ThinkingStart begins a thinking span. The block opens with the span's first
// text, so an empty span leaves no block behind.
func (e *Emitter) ThinkingStart(m *thinkparse.Meta) {
	if e.open == blockThinking || e.open == blockThinkingText {
		e.CloseBlock()
	}
	e.pendingAttrs = m != nil && m.Attrs
	e.pendingMeta = e.pendingMeta[:0]
	if e.pendingAttrs {
		e.pendingMeta = append(e.pendingMeta, m.ThoughtType...)
		e.pendingConfidence = m.Confidence
	}
	e.origin = OriginTags
	e.signature = e.signature[:0]
}

// Thinking appends thinking text to the open span.
func (e *Emitter) Thinking(p []byte) {
	if len(p) == 0 || e.finished {
		return
	}
	kind := blockThinking
	if e.form == FormText {
		kind = blockThinkingText
	}
	if e.open != kind {
		e.openBlock(kind)
	}
	if e.collect != nil {
		if !utf8.Valid(p) {
			e.valid = appendValidUTF8(e.valid[:0], p)
			p = e.valid
		}
		if e.mac != nil && kind == blockThinking {
			e.mac.Write(p)
		}
		c := e.collect.cur()
		c.text = append(c.text, p...)
		return
	}
	if kind == blockThinkingText {
		e.appendDelta(deltaText, p)
		return
	}
	if replaced := e.appendDelta(deltaThinking, p); e.mac != nil {
		// The client gets each invalid byte as U+FFFD: the signature must
		// cover the text it will send back. The escaper already said
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
	e.pendingAttrs = false
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
	if e.collect != nil {
		c := e.collect.add(blockToolUse)
		c.id, c.name = id, name
		return
	}
	b := e.startEvent()
	b = append(b, `{"type":"tool_use","id":`...)
	b = jsonbytes.AppendString(b, id)
	b = append(b, `,"name":`...)
	b = jsonbytes.AppendString(b, name)
	e.Buf = append(b, `,"input":{}}}`+"\n\n"...)
	e.merge.kind = deltaNone
}

// ToolInput appends a fragment of the open tool_use block's JSON input.
func (e *Emitter) ToolInput(partial []byte) {
	if len(partial) == 0 || e.open != blockToolUse || e.finished {
		return
	}
	if e.collect != nil {
		c := e.collect.cur()
		c.text = append(c.text, partial...)
		return
	}
	e.appendDelta(deltaInputJSON, partial)
}

// RawBlockStart opens a block passed through from an Anthropic upstream;
// block is its content_block JSON. In collect mode it is the whole block.
func (e *Emitter) RawBlockStart(block []byte) error {
	if e.finished {
		return nil
	}
	if e.collect == nil {
		var err error
		if block, err = e.frameable(block); err != nil {
			return err
		}
	}
	e.closeOpen()
	e.startBlock(blockRaw)
	if e.collect != nil {
		c := e.collect.add(blockRaw)
		c.text = append(c.text, block...)
		return nil
	}
	b := e.startEvent()
	b = append(b, block...)
	e.Buf = append(b, "}\n\n"...)
	e.merge.kind = deltaNone
	return nil
}

// RawDelta emits a delta of the open passed-through block.
func (e *Emitter) RawDelta(delta []byte) error {
	if e.open != blockRaw || e.finished || e.collect != nil {
		return nil
	}
	delta, err := e.frameable(delta)
	if err != nil {
		return err
	}
	e.drainIfFull()
	e.Content = true
	b := append(e.Buf, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":"...)
	b = e.appendIndex(b)
	b = append(b, `,"delta":`...)
	b = append(b, delta...)
	e.Buf = append(b, "}\n\n"...)
	e.merge.kind = deltaNone
	return nil
}

// CloseBlock closes the open block, if any.
func (e *Emitter) CloseBlock() { e.closeOpen() }

// RawEvent forwards an event the emitter does not know (an upstream's newer
// event type), as it is.
func (e *Emitter) RawEvent(name string, data []byte) error {
	if e.collect != nil || e.finished {
		return nil
	}
	if strings.ContainsAny(name, "\r\n") {
		return ErrRawLineEnd
	}
	data, err := e.frameable(data)
	if err != nil {
		return err
	}
	e.Buf = AppendSSE(e.Buf, name, data)
	e.merge.kind = deltaNone
	return nil
}

// Ping emits a ping event (keepalive).
func (e *Emitter) Ping() {
	if e.collect != nil || e.finished {
		return
	}
	e.Buf = append(e.Buf, "event: ping\ndata: {\"type\": \"ping\"}\n\n"...)
	e.merge.kind = deltaNone
}

// Finish closes the open block and ends the message.
func (e *Emitter) Finish(stopReason, stopSequence string, usage Usage) {
	if e.finished {
		return
	}
	e.closeOpen()
	if e.collect != nil {
		e.collect.stopReason, e.collect.stopSequence, e.collect.usage = stopReason, stopSequence, usage
		e.finished = true
		return
	}
	b := append(e.Buf, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"...)
	b = appendNullable(b, stopReason)
	b = append(b, `,"stop_sequence":`...)
	b = appendNullable(b, stopSequence)
	b = append(b, `},"usage":`...)
	b = appendUsage(b, usage)
	e.Buf = append(b, "}\n\n"...)
	e.merge.kind = deltaNone
	e.MessageStop()
}

// MessageDeltaRaw closes the open block and emits an upstream's message_delta data.
func (e *Emitter) MessageDeltaRaw(data []byte) error {
	if e.finished {
		return nil
	}
	data, err := e.frameable(data)
	if err != nil {
		return err
	}
	e.closeOpen()
	if e.collect == nil {
		e.Buf = AppendSSE(e.Buf, "message_delta", data)
		e.merge.kind = deltaNone
	}
	return nil
}

// MessageStop ends the stream.
func (e *Emitter) MessageStop() {
	if e.finished {
		return
	}
	e.closeOpen()
	e.finished = true
	if e.collect == nil {
		e.Buf = append(e.Buf, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"...)
		e.merge.kind = deltaNone
	}
}

// Fail closes the open block and ends the stream with an error event.
func (e *Emitter) Fail(typ, msg string) {
	if e.finished {
		return
	}
	e.closeOpen()
	e.finished = true
	if e.collect != nil {
		e.collect.err = &Error{Status: 502, Type: typ, Message: msg}
		return
	}
	e.Buf = append(e.Buf, "event: error\ndata: "...)
	e.Buf = AppendErrorJSON(e.Buf, typ, msg)
	e.Buf = append(e.Buf, "\n\n"...)
	e.merge.kind = deltaNone
}

// FailRaw closes the open block and forwards an upstream error event's data.
func (e *Emitter) FailRaw(data []byte) error {
	if e.finished {
		return nil
	}
	data, err := e.frameable(data)
	if err != nil {
		return err
	}
	e.closeOpen()
	e.finished = true
	if e.collect != nil {
		var body struct {
			Error struct{ Type, Message string }
		}
		_ = json.Unmarshal(data, &body)
		e.collect.err = &Error{Status: 502, Type: body.Error.Type, Message: body.Error.Message}
		return nil
	}
	e.Buf = AppendSSE(e.Buf, "error", data)
	e.merge.kind = deltaNone
	return nil
}

// ErrRawLineEnd refuses upstream JSON that cannot be framed as one SSE data
// line: a CR or LF that is not whitespace between JSON tokens (or that
// lies in an event name) would let the upstream frame events of its own.
var ErrRawLineEnd = &Error{Status: 502, Type: "api_error",
	Message: "malformed upstream event: a line end that is not JSON whitespace"}

// frameable returns upstream JSON fit to be written as one data: line. JSON
// without CR or LF (every event Anthropic sends) is returned as it is;
// otherwise its whitespace is compacted away, and JSON still holding a line
// end, or not JSON, is ErrRawLineEnd.
func (e *Emitter) frameable(data []byte) ([]byte, error) {
	if bytes.IndexByte(data, '\n') < 0 && bytes.IndexByte(data, '\r') < 0 {
		return data, nil
	}
	var c bytes.Buffer
	c.Grow(len(data))
	if err := json.Compact(&c, data); err != nil {
		return nil, ErrRawLineEnd
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

// openBlock closes what is open and opens a content block of kind.
func (e *Emitter) openBlock(kind blockKind) {
	e.closeOpen()
	e.startBlock(kind)
	if kind == blockThinking {
		e.ThinkingBlocks++
		if e.mac != nil {
			e.mac.Reset()
		}
	}
	if e.collect != nil {
		c := e.collect.add(kind)
		if kind == blockThinking && e.pendingAttrs {
			c.meta = true
			c.thoughtType = string(e.pendingMeta)
			c.confidence = e.pendingConfidence
		}
		if kind == blockText && len(e.waiting) > 0 {
			e.releaseCitations()
		}
		return
	}
	e.drainIfFull()
	b := e.startEvent()
	switch kind {
	case blockText, blockThinkingText:
		b = append(b, `{"type":"text","text":""}`...)
	case blockThinking:
		b = append(b, `{"type":"thinking","thinking":""`...)
		if e.pendingAttrs {
			b = e.appendMeta(b)
		}
		b = append(b, '}')
	}
	e.Buf = append(b, "}\n\n"...)
	e.merge.kind = deltaNone
	if kind == blockText && len(e.waiting) > 0 {
		e.releaseCitations()
	}
}

func (e *Emitter) appendMeta(b []byte) []byte {
	b = append(b, `,"metadata":{`...)
	if len(e.pendingMeta) > 0 {
		b = append(b, `"thought_type":`...)
		b = jsonbytes.AppendString(b, e.pendingMeta)
		b = append(b, ',')
	}
	b = append(b, `"confidence":`...)
	return append(strconv.AppendFloat(b, e.pendingConfidence, 'f', -1, 64), '}')
}

func (e *Emitter) startBlock(kind blockKind) {
	if !e.started {
		// A provider bug, not a client's: never emit a block before message_start.
		panic("providers: content block before message_start")
	}
	e.open = kind
	e.Blocks++
}

func (e *Emitter) startEvent() []byte {
	b := append(e.Buf, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":"...)
	b = e.appendIndex(b)
	return append(b, `,"content_block":`...)
}

// appendIndex appends the open block's index, formatted once per block.
func (e *Emitter) appendIndex(b []byte) []byte {
	if e.indexOf != e.index+1 {
		e.indexText = strconv.AppendInt(e.indexText[:0], int64(e.index), 10)
		e.indexOf = e.index + 1
	}
	return append(b, e.indexText...)
}

// closeOpen emits content_block_stop for the open block, preceded by the
// signature_delta of a thinking block.
func (e *Emitter) closeOpen() {
	if e.open == blockNone {
		return
	}
	kind := e.open
	e.open = blockNone
	var sig []byte
	if kind == blockThinking && (e.mac != nil || len(e.signature) > 0) {
		if e.mac != nil {
			e.scratch = e.mac.AppendSignature(e.scratch[:0], e.origin, e.signature)
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
	if e.collect != nil {
		if sig != nil {
			e.collect.cur().signature = string(sig)
		}
		e.index++
		return
	}
	e.drainIfFull()
	b := e.Buf
	if sig != nil {
		b = append(b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":"...)
		b = e.appendIndex(b)
		b = append(b, `,"delta":{"type":"signature_delta","signature":`...)
		b = jsonbytes.AppendString(b, sig)
		b = append(b, "}}\n\n"...)
	}
	b = append(b, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":"...)
	b = e.appendIndex(b)
	e.Buf = append(b, "}\n\n"...)
	e.merge.kind = deltaNone
	e.index++
}

// The deltas the emitter writes itself. Deltas of one block that follow each
// other in Buf, unflushed, merge into one event: they reach the client in the
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

// appendDelta writes a delta of kind for the open block, extending the last
// event when it is a delta of the same kind and block that ends Buf. Every
// other write resets merge, and a flushed (truncated) Buf is shorter than
// merge.end until something else is written: so the bytes at merge.end are
// always that delta's when the check passes.
// It reports whether p held invalid UTF-8 (written as U+FFFD).
func (e *Emitter) appendDelta(kind deltaKind, p []byte) (replaced bool) {
	e.Content = true
	for e.Drain != nil && len(p) > e.DrainAt {
		n := runeCut(p, e.DrainAt)
		if e.appendDelta1(kind, p[:n]) {
			replaced = true
		}
		p = p[n:]
	}
	return e.appendDelta1(kind, p) || replaced
}

// drainIfFull hands Buf to Drain when it has reached DrainAt. Called only
// between events.
func (e *Emitter) drainIfFull() {
	if e.Drain != nil && len(e.Buf) >= e.DrainAt {
		e.Drain()
	}
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

func (e *Emitter) appendDelta1(kind deltaKind, p []byte) (replaced bool) {
	e.drainIfFull()
	var b []byte
	if e.merge.kind == kind && e.merge.index == e.index && e.merge.end == len(e.Buf) {
		b, replaced = jsonbytes.AppendStringBody(e.Buf[:len(e.Buf)-len(deltaTail)], p)
		e.Buf = append(b, deltaTail...)
		e.merge.end = len(e.Buf)
		return replaced
	}
	b = append(e.Buf, deltaEventHead...)
	b = e.appendIndex(b)
	b = append(b, deltaHeads[kind]...)
	b, replaced = jsonbytes.AppendStringBody(b, p)
	e.Buf = append(b, deltaTail...)
	e.merge = deltaMerge{kind: kind, index: e.index, end: len(e.Buf)}
	return replaced
}

// deltaMerge locates the last delta event written to Buf.
type deltaMerge struct {
	kind  deltaKind
	index int
	end   int
}
