package openai

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/sse"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// StreamTranslator translates a Chat Completions event stream: one `data:`
// JSON chunk per event, ended by `data: [DONE]`.
type StreamTranslator struct {
	t       answerTranslator
	dec     sse.Decoder
	scratch []byte // unescaped strings of the current chunk
	chunk   chunk
	// The callbacks are bound once: a method value made per chunk would
	// allocate on the hot path.
	onEvent  sse.Handler
	onTop    func(key, value []byte, typ jsonparser.ValueType, _ int) error
	onField  func(key, value []byte, typ jsonparser.ValueType, _ int) error
	onTool   func(value []byte, typ jsonparser.ValueType, _ int, err error)
	onChunk  func(value []byte, typ jsonparser.ValueType, _ int, err error)
	onThink  func(value []byte, typ jsonparser.ValueType, _ int, err error)
	onDetail func(value []byte, typ jsonparser.ValueType, _ int, err error)
	// shape is the form of the upstream's content-only chunks, which
	// skip the JSON walk (see sse.Shape).
	shape  sse.Shape
	onText func(raw []byte, escaped bool) error
	// content is the content of the content-only chunks since the last
	// other chunk, unescaped: it reaches the translator in one piece per
	// upstream read instead of one per chunk. The tag parser's output does
	// not depend on how its input is split, and the emitter merges the
	// deltas of one read anyway, so what the client gets is the same.
	content []byte
	// badString is set when a string of the chunk under way held a bad escape.
	badString bool
}

// chunk holds the raw fields of one chunk, found in one pass per object
// level rather than one scan per field.
type chunk struct {
	err, choice, usage                       []byte
	errType                                  jsonparser.ValueType
	delta, finish, stop                      []byte
	content, reasoningContent, reasoning     []byte
	refusal, toolCalls                       []byte
	contentChunks                            []byte // content as an array (Mistral)
	details                                  []byte // reasoning_details (OpenRouter)
	contentOK, reasoningContentOK            bool
	reasoningOK, refusalOK, finishOK, stopOK bool
}

// errNoDone is the end of a stream that never said [DONE]: the upstream
// connection ended early, so the answer may be cut short.
var errNoDone = wire.APIError(http.StatusBadGateway,
	"upstream stream ended without [DONE]: the response is incomplete")

// errBadString is a chunk whose strings do not decode: an escape JSON does
// not define (a lone surrogate is not one: it decodes to U+FFFD).
var errBadString = malformed("chunk holds a malformed string escape")

// NewStream returns the stream translator writing to em. It sends
// message_start at once (id x.MessageID, the client's model name, zero
// usage; the real usage follows in message_delta), so keepalive pings can
// follow right away.
func (t *Translator) NewStream(em *emit.Emitter) providers.StreamTranslator {
	x := t.x
	s := &StreamTranslator{scratch: make([]byte, 0, 512)}
	s.dec.MaxEvent = x.Settings.MaxEventSize
	s.t.init(x, t.state, em)
	s.t.maxQueued = t.maxQueued
	s.onEvent = s.event
	s.onTop = s.topField
	s.onField = s.field
	s.onTool = s.toolCall
	s.onChunk = s.contentChunk
	s.onThink = s.thinkingChunk
	s.onDetail = s.detail
	s.onText = s.text
	em.MessageStart(x.MessageID, x.ClientModel, emit.Usage{})
	return s
}

// Write decodes upstream bytes, split anywhere.
func (s *StreamTranslator) Write(p []byte) error {
	if s.t.done {
		return nil
	}
	err := s.dec.WriteShaped(p, &s.shape, s.onText, s.onEvent)
	s.flushContent()
	if err == nil && s.t.overflow {
		err = s.failQueue()
	}
	return err
}

// failQueue ends a stream whose upstream sent more than the queue's bound
// while a tool call's arguments were incomplete. What waited is dropped:
// the open call is closed as it stands, then the error event follows.
func (s *StreamTranslator) failQueue() error {
	s.t.queue, s.t.qbuf = nil, nil
	s.content = s.content[:0]
	max := s.t.maxQueued
	if max <= 0 {
		max = DefaultMaxQueued
	}
	return s.fail(wire.APIError(http.StatusBadGateway, fmt.Sprintf(
		"upstream sent more than %d bytes of other output while a tool call's arguments were incomplete", max)))
}

// flushContent hands the collected content to the translator.
func (s *StreamTranslator) flushContent() {
	if len(s.content) > 0 && !s.t.done {
		s.t.content(s.content)
	}
	s.content = s.content[:0]
}

// Close ends the stream. Without [DONE] the upstream stopped early: what
// arrived is delivered and closed, and the error makes the response writer
// send an error event.
func (s *StreamTranslator) Close() error {
	if s.t.done {
		return nil
	}
	s.flushContent()
	err := s.dec.Close(s.onEvent)
	s.flushContent()
	if err != nil {
		return err
	}
	if s.t.overflow {
		return s.failQueue()
	}
	if s.t.done {
		return nil
	}
	return s.fail(errNoDone)
}

// fail closes what is open and returns e, which the response writer turns
// into an error event.
func (s *StreamTranslator) fail(e *wire.Error) error {
	s.flushContent()
	s.t.endAll()
	s.t.done = true
	s.t.x.Usage = s.t.usage
	return e
}

func (s *StreamTranslator) event(name, data []byte) error {
	if s.t.done {
		return nil
	}
	if s.t.overflow {
		return s.failQueue()
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil
	}
	if data[0] != '{' {
		if string(data) == "[DONE]" {
			s.flushContent()
			if s.t.overflow {
				return s.failQueue()
			}
			s.t.finish()
			return nil
		}
		return s.fail(malformed("chunk is not a JSON object: " + truncate(string(data), 200)))
	}
	c := &s.chunk
	*c = chunk{}
	if err := jsonbytes.ScanObject(data, s.onTop); err != nil {
		return s.fail(malformed("chunk is not valid JSON: " + truncate(string(data), 200)))
	}
	if len(c.err) > 0 && c.errType != jsonparser.Null {
		return s.fail(streamError(c.err))
	}
	if string(name) == "error" {
		return s.fail(streamError(data))
	}
	if len(c.choice) > 0 {
		s.scanChoice()
	}
	if len(name) == 0 && c.contentOnly() {
		s.content = s.appendContent(s.content, c.content)
		if s.badString {
			return s.fail(errBadString)
		}
		s.shape.Record("", data, c.content)
		return nil
	}
	s.flushContent() // the content before this chunk goes first
	if len(c.choice) > 0 {
		s.choice()
		if s.badString {
			return s.fail(errBadString)
		}
	}
	if len(c.usage) > 0 {
		s.t.usage = parseUsage(c.usage)
	}
	return nil
}

// contentOnly reports whether the chunk's one effect was its delta's content.
func (c *chunk) contentOnly() bool {
	return c.contentOK && len(c.usage) == 0 && !c.reasoningContentOK && !c.reasoningOK && len(c.details) == 0 &&
		!c.refusalOK && len(c.toolCalls) == 0 && !c.finishOK && !c.stopOK
}

// text takes the content of a chunk shaped like the last content-only one.
func (s *StreamTranslator) text(raw []byte, escaped bool) error {
	if !escaped {
		s.content = append(s.content, raw...)
		return nil
	}
	s.content = s.appendContent(s.content, raw)
	if s.badString {
		return s.fail(errBadString)
	}
	return nil
}

// appendContent appends a raw JSON string's value; a string with a bad
// escape is noted (see unescape) and adds nothing.
func (s *StreamTranslator) appendContent(dst, raw []byte) []byte {
	out, err := jsonbytes.AppendUnescaped(dst, raw)
	if err != nil {
		s.badString = true
	}
	return out
}

func (s *StreamTranslator) topField(key, value []byte, typ jsonparser.ValueType, _ int) error {
	switch string(key) {
	case "error":
		s.chunk.err, s.chunk.errType = value, typ
	case "choices":
		// The first choice: the gateway asks for one (n is not sent).
		// ObjectEach stops at its closing brace, so the array is not
		// walked a second time to find where the element ends.
		if typ == jsonparser.Array {
			if v := trimSpace(value[1:]); len(v) > 0 && v[0] == '{' {
				s.chunk.choice = v
			}
		}
	case "usage":
		if typ == jsonparser.Object {
			s.chunk.usage = value
		}
	}
	return nil
}

// field collects the keys of the choice and of its delta.
func (s *StreamTranslator) field(key, value []byte, typ jsonparser.ValueType, _ int) error {
	c := &s.chunk
	str := typ == jsonparser.String
	switch string(key) {
	case "delta":
		if typ == jsonparser.Object {
			c.delta = value
		}
	case "finish_reason":
		c.finish, c.finishOK = value, str
	case "stop_reason":
		c.stop, c.stopOK = value, str
	case "content":
		c.content, c.contentOK = value, str
		if typ == jsonparser.Array {
			c.contentChunks = value
		}
	case "reasoning_content":
		c.reasoningContent, c.reasoningContentOK = value, str
	case "reasoning":
		c.reasoning, c.reasoningOK = value, str
	case "refusal":
		c.refusal, c.refusalOK = value, str
	case "tool_calls":
		if typ == jsonparser.Array {
			c.toolCalls = value
		}
	case "reasoning_details":
		if typ == jsonparser.Array {
			c.details = value
		}
	}
	return nil
}

// scanChoice collects the fields of the choice and of its delta.
func (s *StreamTranslator) scanChoice() {
	c := &s.chunk
	_ = jsonbytes.ScanObject(c.choice, s.onField)
	if len(c.delta) > 0 {
		_ = jsonbytes.ScanObject(c.delta, s.onField)
	}
}

// choice acts on the fields scanChoice collected.
func (s *StreamTranslator) choice() {
	c := &s.chunk
	if len(c.delta) > 0 {
		// DeepSeek sends reasoning_content, vLLM and OpenRouter reasoning;
		// a server that sends both means the same text. OpenRouter's
		// reasoning_details carry that text too, with what must go back:
		// once they come, they alone are read.
		switch {
		case len(c.details) > 0:
			s.t.sawDetails = true
			_, _ = jsonparser.ArrayEach(c.details, s.onDetail)
		case s.t.sawDetails:
			// The plain fields repeat the details' text.
		case c.reasoningContentOK && len(c.reasoningContent) > 0:
			s.t.reasoning(s.unescape(c.reasoningContent))
		case c.reasoningOK:
			s.t.reasoning(s.unescape(c.reasoning))
		}
		if c.contentOK {
			s.t.content(s.unescape(c.content))
		} else if len(c.contentChunks) > 0 {
			_, _ = jsonparser.ArrayEach(c.contentChunks, s.onChunk)
		}
		if c.refusalOK {
			s.t.refusal(s.unescape(c.refusal))
		}
		if len(c.toolCalls) > 0 {
			_, _ = jsonparser.ArrayEach(c.toolCalls, s.onTool)
		}
	}
	if c.finishOK {
		s.t.setFinish(c.finish)
	}
	if c.stopOK {
		s.t.matchStop(s.unescape(c.stop))
	}
}

// detail takes one element of a delta's reasoning_details.
func (s *StreamTranslator) detail(v []byte, typ jsonparser.ValueType, _ int, err error) {
	if err == nil && typ == jsonparser.Object {
		s.t.detailDelta(v, s.unescape)
	}
}

func (s *StreamTranslator) toolCall(v []byte, typ jsonparser.ValueType, _ int, err error) {
	if err != nil || typ != jsonparser.Object {
		return
	}
	index, ierr := jsonparser.GetInt(v, "index")
	id, _ := rawString(v, "id")
	name, _ := rawString(v, "function", "name")
	var args []byte
	if a, atyp, _, err := jsonparser.Get(v, "function", "arguments"); err == nil {
		switch atyp {
		case jsonparser.String:
			args = s.unescape(a)
		case jsonparser.Object:
			args = a // a few servers send the arguments as an object
		}
	}
	s.t.toolDelta(index, ierr == nil, id, name, args)
}

// unescape returns a JSON string's value, valid until the next call. A
// string with an escape JSON does not define is noted in badString, and
// the chunk then fails the stream: its text cannot be known.
func (s *StreamTranslator) unescape(raw []byte) []byte {
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw
	}
	out, err := jsonbytes.AppendUnescaped(s.scratch[:0], raw)
	s.scratch = out[:0]
	if err != nil {
		s.badString = true
	}
	return out
}

func rawString(data []byte, keys ...string) ([]byte, bool) {
	v, typ, _, err := jsonparser.Get(data, keys...)
	if err != nil || typ != jsonparser.String {
		return nil, false
	}
	return v, true
}

// parseUsage maps Chat Completions usage. Anthropic's input_tokens leaves
// out cache reads and writes, OpenAI's prompt_tokens includes them: reads
// are prompt_tokens_details.cached_tokens (DeepSeek's
// prompt_cache_hit_tokens), writes OpenRouter's
// prompt_tokens_details.cache_write_tokens.
func parseUsage(u []byte) emit.Usage {
	prompt, _ := jsonparser.GetInt(u, "prompt_tokens")
	completion, _ := jsonparser.GetInt(u, "completion_tokens")
	cached, err := jsonparser.GetInt(u, "prompt_tokens_details", "cached_tokens")
	if err != nil {
		cached, _ = jsonparser.GetInt(u, "prompt_cache_hit_tokens") // DeepSeek
	}
	written, _ := jsonparser.GetInt(u, "prompt_tokens_details", "cache_write_tokens")
	return emit.Usage{
		InputTokens:              max(prompt-cached-written, 0),
		OutputTokens:             completion,
		CacheCreationInputTokens: written,
		CacheReadInputTokens:     cached,
	}
}

// trimSpace drops leading JSON whitespace; bytes.TrimLeft with a cutset
// builds its lookup table on every call.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	return b
}
