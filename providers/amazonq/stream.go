package amazonq

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/buger/jsonparser"
	"go.uber.org/zap"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/thinkparse"
)

// Frame layout: [total u32][headers u32][prelude crc u32] headers payload [crc u32].
const (
	preludeLen = 12
	minFrame   = 16
	// maxFrame bounds one frame (AWS event-stream messages are at most
	// 16 MiB); a larger length is a corrupt prelude, not a reason to buffer.
	maxFrame = 16 << 20
	// maxBodyQuote bounds a non-event-stream body kept for the error message.
	maxBodyQuote = 1 << 20
)

// Stream translates an Amazon Q event stream into Anthropic events. Frames
// arrive split anywhere: bytes are kept until a whole frame (its length is
// in the prelude) is present, and only then decoded, CRCs and all, by the
// aws-sdk-go-v2 eventstream decoder.
//
// message_start is sent lazily, with the first content: an exception frame
// that comes first (throttling, validation, access denied …) is then still a
// real HTTP status for the client rather than an error event inside a 200.
type Stream struct {
	x      *providers.Exchange
	em     *providers.Emitter
	st     *state
	parser *thinkparse.Parser // nil: assistant text goes straight to the emitter
	log    *zap.Logger

	dec     *eventstream.Decoder
	rd      bytes.Reader
	buf     []byte // the head of an incomplete frame, carried between Writes
	payload []byte // the decoder's payload buffer, reused
	checked bool   // the prelude CRC of the frame at the head of buf was checked
	frames  int
	sniffed bool
	notES   bool   // the body is not an event stream (a JSON error, say)
	body    []byte // that body, for the error message
	err     error  // what stopped the stream

	text        accumulator // assistantResponseEvent.content
	reasoning   accumulator // reasoningContentEvent.text
	inReasoning bool
	toolOpen    bool
	toolID      []byte
	toolsDone   map[string]bool
	tools       int
	stopReason  string
	usage       providers.Usage
	scratch     []byte
	scratch2    []byte
}

// NewStream returns the stream translator writing to em (a streaming
// emitter or a collector).
func (t *Translator) NewStream(em *providers.Emitter) *Stream {
	x := t.x
	s := &Stream{
		x:       x,
		em:      em,
		log:     x.Logger,
		dec:     eventstream.NewDecoder(),
		payload: make([]byte, 0, 4096),
		scratch: make([]byte, 0, 1024),
	}
	if s.log == nil {
		s.log = zap.NewNop()
	}
	s.st = t.st
	// Tags are split when split_tags is on and the client wants thinking; a
	// client that turned thinking off gets the model's text as it is.
	if x.Settings.SplitTags && x.Thinking {
		s.parser = thinkparse.New(x.Settings.Parse, em)
	}
	return s
}

// Write takes upstream bytes as they arrive.
func (s *Stream) Write(p []byte) error {
	if s.err != nil {
		return s.err
	}
	if len(p) == 0 {
		return nil
	}
	if !s.sniffed {
		s.sniffed = true
		// A frame starts with its big-endian length, at most 16 MiB, so its
		// first byte is 0 or 1; anything else ('{' above all) is not an
		// event stream.
		s.notES = p[0] > 1
	}
	if s.notES {
		if room := maxBodyQuote - len(s.body); room > 0 {
			s.body = append(s.body, p[:min(len(p), room)]...)
		}
		return nil
	}
	if len(s.buf) > 0 {
		s.buf = append(s.buf, p...)
		n, err := s.decodeFrames(s.buf)
		s.buf = s.buf[:copy(s.buf, s.buf[n:])]
		if err != nil {
			return s.fail(err)
		}
		return nil
	}
	// Whole frames are decoded straight from p; only an incomplete tail is copied.
	n, err := s.decodeFrames(p)
	if err != nil {
		return s.fail(err)
	}
	s.buf = append(s.buf, p[n:]...)
	return nil
}

// Close ends the stream at the upstream's EOF. Amazon Q has no end-of-stream
// event (the last frames are metadata, in no fixed order), so EOF after at
// least one whole frame is a normal end; EOF inside a frame, or before any
// frame, is an error.
func (s *Stream) Close() error {
	if s.err != nil {
		return s.err
	}
	switch {
	case s.notES:
		return s.fail(bodyError(s.body))
	case len(s.buf) > 0:
		return s.fail(malformed(fmt.Sprintf("event stream ended inside a frame (%d bytes of it received)", len(s.buf))))
	case s.frames == 0:
		return s.fail(providers.APIError(http.StatusBadGateway, "upstream returned an empty event stream"))
	}
	if s.parser != nil {
		s.parser.Close()
	}
	s.endReasoning()
	s.closeTool()
	s.begin()
	s.x.Usage = s.usage
	s.em.Finish(s.finalStopReason(), "", s.usage)
	return nil
}

func (s *Stream) fail(err error) error {
	s.err = err
	return err
}

// decodeFrames decodes the whole frames at the start of b and returns how
// many bytes they took.
func (s *Stream) decodeFrames(b []byte) (int, error) {
	n := 0
	for {
		rest := b[n:]
		if len(rest) < 8 {
			return n, nil
		}
		total := binary.BigEndian.Uint32(rest)
		headers := binary.BigEndian.Uint32(rest[4:])
		if total < minFrame || total > maxFrame || headers > total-minFrame {
			return n, malformed(fmt.Sprintf("bad frame prelude (length %d, headers %d)", total, headers))
		}
		if len(rest) < int(total) {
			if !s.checked && len(rest) >= preludeLen {
				// Check the prelude CRC now, so a corrupt length is caught
				// at once rather than after buffering up to 16 MiB.
				if err := s.checkPrelude(rest[:preludeLen]); err != nil {
					return n, err
				}
				s.checked = true
			}
			return n, nil
		}
		if err := s.decodeFrame(rest[:total]); err != nil {
			return n, err
		}
		s.checked = false
		n += int(total)
	}
}

// checkPrelude runs the decoder over a frame's first 12 bytes: it verifies
// the prelude CRC before it needs the rest, and then stops at the end of the
// input.
func (s *Stream) checkPrelude(prelude []byte) error {
	s.rd.Reset(prelude)
	_, err := s.dec.Decode(&s.rd, s.payload[:0])
	if errors.As(err, new(eventstream.ChecksumError)) {
		return malformed("frame prelude checksum mismatch")
	}
	return nil
}

func (s *Stream) decodeFrame(frame []byte) error {
	s.rd.Reset(frame)
	msg, err := s.dec.Decode(&s.rd, s.payload[:0])
	if err != nil {
		if errors.As(err, new(eventstream.ChecksumError)) {
			return malformed("frame checksum mismatch")
		}
		return malformed("undecodable frame: " + err.Error())
	}
	if s.rd.Len() != 0 {
		return malformed("frame headers overrun their length")
	}
	if cap(msg.Payload) > cap(s.payload) {
		s.payload = msg.Payload[:0]
	}
	s.frames++
	return s.handle(msg.Headers, msg.Payload)
}

func headerString(h eventstream.Headers, name string) string {
	if v, ok := h.Get(name).(eventstream.StringValue); ok {
		return string(v)
	}
	return ""
}

// handle acts on one decoded frame.
func (s *Stream) handle(h eventstream.Headers, payload []byte) error {
	switch headerString(h, ":message-type") {
	case "exception":
		var v awsErrorBody
		_ = json.Unmarshal(payload, &v)
		name := headerString(h, ":exception-type")
		if name == "" {
			name = exceptionName(v.Type)
		}
		if v.Message == "" && len(payload) > 0 && payload[0] != '{' {
			v.Message = string(payload)
		}
		return newException(name, v.Message, v.reason(), http.StatusBadGateway)
	case "error":
		return newException(headerString(h, ":error-code"), headerString(h, ":error-message"), "", http.StatusBadGateway)
	}
	if p := bytes.TrimLeft(payload, " \t\r\n"); len(p) == 0 {
		return nil
	} else if p[0] != '{' {
		return malformed("event payload is not a JSON object")
	}
	event := headerString(h, ":event-type")
	if event == "" {
		event = inferEvent(payload)
	}
	switch event {
	case "assistantResponseEvent":
		return s.onText(payload)
	case "toolUseEvent":
		return s.onToolUse(payload)
	case "reasoningContentEvent":
		return s.onReasoning(payload)
	case "metadataEvent":
		s.onMetadata(payload)
	case "invalidStateEvent":
		s.log.Warn("amazon q reported an invalid state", zap.ByteString("event", payload))
	}
	// messageMetadataEvent, meteringEvent, contextUsageEvent,
	// codeReferenceEvent, followupPromptEvent … carry nothing for the client.
	return nil
}

// inferEvent names an event that came without an :event-type header.
func inferEvent(p []byte) string {
	switch {
	case has(p, "toolUseId"):
		return "toolUseEvent"
	case has(p, "tokenUsage"):
		return "metadataEvent"
	case has(p, "content"):
		return "assistantResponseEvent"
	}
	return ""
}

func has(p []byte, key string) bool {
	_, _, _, err := jsonparser.Get(p, key)
	return err == nil
}

// begin sends message_start before the first content.
func (s *Stream) begin() {
	if !s.em.Started() {
		s.em.MessageStart(s.x.MessageID, s.x.ClientModel, providers.Usage{})
	}
}

func (s *Stream) onText(p []byte) error {
	t, err := s.stringField(p, "content", &s.scratch)
	if err != nil {
		return err
	}
	if t = s.text.next(t); len(t) == 0 {
		return nil
	}
	s.endReasoning()
	s.closeTool()
	s.begin()
	if s.parser != nil {
		s.parser.Write(t)
	} else {
		s.em.Text(t)
	}
	return nil
}

func (s *Stream) onReasoning(p []byte) error {
	t, err := s.stringField(p, "text", &s.scratch)
	if err != nil {
		return err
	}
	sig, err := s.stringField(p, "signature", &s.scratch2)
	if err != nil {
		return err
	}
	t = s.reasoning.next(t)
	if len(t) == 0 && len(sig) == 0 {
		return nil // redactedContent, or nothing new
	}
	s.closeTool()
	if !s.inReasoning {
		s.begin()
		s.em.ThinkingStart(nil)
		s.inReasoning = true
	}
	s.em.Thinking(t)
	if len(sig) > 0 {
		s.em.Signature(providers.OriginAmazonQ, sig)
	}
	return nil
}

func (s *Stream) endReasoning() {
	if s.inReasoning {
		s.inReasoning = false
		s.em.ThinkingEnd()
	}
}

// onToolUse handles one fragment of a tool call. The first fragment of an id
// opens its tool_use block; input fragments follow as input_json_delta; the
// one with stop:true closes it. Fragments of an id already closed are
// dropped (the Anthropic stream cannot reopen a block).
func (s *Stream) onToolUse(p []byte) error {
	id, err := s.stringField(p, "toolUseId", &s.scratch2)
	if err != nil {
		return err
	}
	if len(id) == 0 {
		return malformed("toolUseEvent without toolUseId")
	}
	if !s.toolOpen || !bytes.Equal(id, s.toolID) {
		if s.toolsDone[string(id)] {
			return nil
		}
		s.closeTool()
		s.endReasoning()
		name, err := s.stringField(p, "name", &s.scratch)
		if err != nil {
			return err
		}
		s.begin()
		s.em.ToolUseStart(string(id), s.st.originalToolName(string(name)))
		s.toolOpen = true
		s.toolID = append(s.toolID[:0], id...)
		s.tools++
	}
	v, typ, _, err := jsonparser.Get(p, "input")
	switch {
	case err != nil || typ == jsonparser.Null:
	case typ == jsonparser.String:
		in, err := unescape(&s.scratch, v)
		if err != nil {
			return malformed("toolUseEvent input is not a valid string")
		}
		s.em.ToolInput(in)
	case typ == jsonparser.Object:
		// Some gateways send the whole input as an object at once.
		s.em.ToolInput(v)
	}
	if stop, err := jsonparser.GetBoolean(p, "stop"); err == nil && stop {
		s.closeTool()
	}
	return nil
}

func (s *Stream) closeTool() {
	if !s.toolOpen {
		return
	}
	s.toolOpen = false
	s.em.CloseBlock()
	if s.toolsDone == nil {
		s.toolsDone = make(map[string]bool)
	}
	s.toolsDone[string(s.toolID)] = true
}

func (s *Stream) onMetadata(p []byte) {
	get := func(old int64, keys ...string) int64 {
		if n, err := jsonparser.GetInt(p, keys...); err == nil {
			return n
		}
		return old
	}
	u := &s.usage
	u.InputTokens = get(u.InputTokens, "tokenUsage", "uncachedInputTokens")
	u.OutputTokens = get(u.OutputTokens, "tokenUsage", "outputTokens")
	u.CacheReadInputTokens = get(u.CacheReadInputTokens, "tokenUsage", "cacheReadInputTokens")
	u.CacheCreationInputTokens = get(u.CacheCreationInputTokens, "tokenUsage", "cacheWriteInputTokens")
	s.x.Usage = s.usage
	if r, err := jsonparser.GetString(p, "stopReason"); err == nil && r != "" {
		s.stopReason = r
	}
}

// finalStopReason: a cut or refused answer says so; otherwise any tool call
// makes it tool_use (the client must run the tools), else end_turn.
func (s *Stream) finalStopReason() string {
	mapped := ""
	switch s.stopReason {
	case "END_TURN":
		mapped = "end_turn"
	case "TOOL_USE":
		mapped = "tool_use"
	case "MAX_TOKENS":
		return "max_tokens"
	case "MODEL_CONTEXT_WINDOW_EXCEEDED":
		return "model_context_window_exceeded"
	case "CONTENT_FILTERED":
		return "refusal"
	case "PAUSE_TURN":
		return "pause_turn"
	case "STOP_SEQUENCE":
		mapped = "stop_sequence"
	}
	if s.tools > 0 {
		return "tool_use"
	}
	if mapped == "" || mapped == "tool_use" {
		return "end_turn"
	}
	return mapped
}

// stringField returns the unescaped string at key (nil if absent or null),
// decoded into *buf so the steady state does not allocate.
func (s *Stream) stringField(p []byte, key string, buf *[]byte) ([]byte, error) {
	v, typ, _, err := jsonparser.Get(p, key)
	if err != nil || typ == jsonparser.Null {
		if err != nil && err != jsonparser.KeyPathNotFoundError {
			return nil, malformed("event payload is not JSON")
		}
		return nil, nil
	}
	if typ != jsonparser.String {
		return nil, malformed(key + " is not a string")
	}
	out, err := unescape(buf, v)
	if err != nil {
		return nil, malformed(key + " is not a valid JSON string")
	}
	return out, nil
}

// unescape decodes a raw JSON string body into *buf.
func unescape(buf *[]byte, raw []byte) ([]byte, error) {
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw, nil
	}
	out, err := jsonbytes.AppendUnescaped((*buf)[:0], raw)
	if err != nil {
		return nil, err
	}
	*buf = out[:0]
	return out, nil
}

func malformed(msg string) *providers.Error {
	return providers.APIError(http.StatusBadGateway, "malformed upstream event stream: "+msg)
}

// bodyError is the error for a 2xx body that is not an event stream: an AWS
// error document keeps its exception mapping, anything else is quoted.
func bodyError(body []byte) *providers.Error {
	var v awsErrorBody
	if json.Unmarshal(body, &v) == nil && (v.Message != "" || v.Type != "") {
		return newException(exceptionName(v.Type), v.Message, v.reason(), http.StatusBadGateway)
	}
	q := strings.ToValidUTF8(string(bytes.TrimSpace(body[:min(len(body), 512)])), "\uFFFD")
	return providers.APIError(http.StatusBadGateway, "upstream answered without an event stream: "+q)
}

// accumulator turns assistant text into deltas whether the upstream sends
// deltas or (as some Amazon Q versions are reported to) the whole text so
// far in every event. The second non-empty event decides: if it extends the
// first (has it as a proper prefix) the stream is cumulative, and from then
// on only the new suffix of each event is emitted (an event that does not
// extend the text so far restarts it: it is emitted whole and becomes the
// new base); otherwise the stream is deltas and events pass through
// untouched, with no copy kept.
//
// The limit: a delta stream whose second piece begins with the whole first
// piece and is longer ("Hi" then "Hi there") is read as cumulative and that
// repeated prefix is lost.
type accumulator struct {
	mode uint8 // accUndecided, accDeltas or accCumulative
	acc  []byte
}

const (
	accUndecided = iota
	accDeltas
	accCumulative
)

func (a *accumulator) next(p []byte) []byte {
	if len(p) == 0 {
		return nil
	}
	switch a.mode {
	case accDeltas:
		return p
	case accUndecided:
		if len(a.acc) == 0 {
			a.acc = append(a.acc, p...)
			return p
		}
		if len(p) > len(a.acc) && bytes.HasPrefix(p, a.acc) {
			a.mode = accCumulative
			break
		}
		a.mode, a.acc = accDeltas, nil
		return p
	}
	if len(p) >= len(a.acc) && bytes.HasPrefix(p, a.acc) {
		suffix := p[len(a.acc):]
		a.acc = append(a.acc, suffix...)
		return suffix
	}
	a.acc = append(a.acc[:0], p...)
	return p
}
