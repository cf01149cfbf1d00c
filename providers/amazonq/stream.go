package amazonq

import (
	"bytes"
	"net/http"

	"github.com/buger/jsonparser"
	"go.uber.org/zap"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/awsstream"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
	"github.com/thinkgate/thinkgate/thinkparse"
)

// StreamTranslator translates an Amazon Q event stream into Anthropic
// events. The frames, arriving split anywhere, are decoded by awsstream.
//
// message_start is sent lazily, with the first content: an exception frame
// that comes first (throttling, validation, access denied …) is then still a
// real HTTP status for the client rather than an error event inside a 200.
type StreamTranslator struct {
	x      *providers.Exchange
	em     *emit.Emitter
	st     *state
	parser *thinkparse.Parser // nil: assistant text goes straight to the emitter
	log    *zap.Logger
	dec    *awsstream.Decoder

	text        accumulator // assistantResponseEvent.content
	reasoning   accumulator // reasoningContentEvent.text
	inReasoning bool
	// The answer's items: its text and its reasoning (Amazon Q gives them
	// no identity), and its tool calls by toolUseId.
	textItem, reasoningItem item
	calls                   map[string]*item
	open                    *item // the tool call whose tool_use block is open
	// held are events of other items that came while a call's input
	// streamed.
	held       providers.HeldEvents[*item]
	tools      int
	stopReason string
	usage      emit.Usage
	scratch    []byte
	scratch2   []byte
}

// NewStream returns the stream translator writing to em (a streaming
// emitter or a collector).
func (t *Translator) NewStream(em *emit.Emitter) providers.StreamTranslator {
	x := t.x
	s := &StreamTranslator{
		x:       x,
		em:      em,
		log:     x.Logger,
		scratch: make([]byte, 0, 1024),
	}
	s.dec = awsstream.NewDecoder(s.handle)
	s.dec.MaxFrame = x.Settings.MaxEventSize
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
func (s *StreamTranslator) Write(p []byte) error {
	if err := s.dec.Write(p); err != nil {
		s.drain() // what is held goes out before the error: it arrived
		return err
	}
	return nil
}

// drain closes the open call and sends what it held back, closing each
// call that opens from it.
func (s *StreamTranslator) drain() {
	for s.closeTool(); s.held.Len() > 0; s.closeTool() {
		s.release()
	}
}

// Close ends the stream at the upstream's EOF. Amazon Q has no end-of-stream
// event (the last frames are metadata, in no fixed order), so EOF after at
// least one whole frame is a normal end; EOF inside a frame, or before any
// frame, is an error.
func (s *StreamTranslator) Close() error {
	// A call that never stopped ends with the answer; what it held back
	// follows.
	s.drain()
	if err := s.dec.Close(); err != nil {
		return err
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

// handle acts on one decoded frame.
func (s *StreamTranslator) handle(m awsstream.Message) error {
	if err := awsstream.Exception(m); err != nil {
		return err
	}
	payload := m.Payload
	if p := bytes.TrimLeft(payload, " \t\r\n"); len(p) == 0 {
		return nil
	} else if p[0] != '{' {
		return malformed("event payload is not a JSON object")
	}
	event := m.Header(":event-type")
	if event == "" {
		event = inferEvent(payload)
	}
	var err error
	switch event {
	case "assistantResponseEvent":
		err = s.onText(payload)
	case "toolUseEvent":
		err = s.onToolUse(payload)
	case "reasoningContentEvent":
		err = s.onReasoning(payload)
	case "metadataEvent":
		s.onMetadata(payload)
	case "invalidStateEvent":
		s.log.Warn("amazon q reported an invalid state", zap.ByteString("event", payload))
	}
	// messageMetadataEvent, meteringEvent, contextUsageEvent,
	// codeReferenceEvent, followupPromptEvent … carry nothing for the client.
	if err == nil && s.held.Len() > 0 {
		s.release()
	}
	return err
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
func (s *StreamTranslator) begin() {
	if !s.em.Started() {
		s.em.MessageStart(s.x.MessageID, s.x.ClientModel, emit.Usage{})
	}
}

func (s *StreamTranslator) onText(p []byte) error {
	t, err := s.stringField(p, "content", &s.scratch)
	if err != nil {
		return err
	}
	if t = s.text.next(t); len(t) == 0 {
		return nil
	}
	if s.streaming(&s.textItem) {
		t = bytes.Clone(t)
		return s.hold(&s.textItem, len(t), func() { s.showText(t) })
	}
	s.showText(t)
	return nil
}

func (s *StreamTranslator) showText(t []byte) {
	s.endReasoning()
	s.begin()
	if s.parser != nil {
		s.parser.Write(t)
	} else {
		s.em.Text(t)
	}
}

func (s *StreamTranslator) onReasoning(p []byte) error {
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
	if s.streaming(&s.reasoningItem) {
		t, sig = bytes.Clone(t), bytes.Clone(sig)
		return s.hold(&s.reasoningItem, len(t)+len(sig), func() { s.showReasoning(t, sig) })
	}
	s.showReasoning(t, sig)
	return nil
}

func (s *StreamTranslator) showReasoning(t, sig []byte) {
	if !s.inReasoning {
		s.begin()
		s.em.ThinkingStart(nil)
		s.inReasoning = true
	}
	s.em.Thinking(t)
	if len(sig) > 0 {
		s.em.Signature(emit.OriginAmazonQ, sig)
	}
}

func (s *StreamTranslator) endReasoning() {
	if s.inReasoning {
		s.inReasoning = false
		s.em.ThinkingEnd()
	}
}

// item is one piece of the answer: its text, its reasoning, or a tool
// call.
type item struct {
	id, name string
	hasInput bool // some of the call's input came
	ended    bool // the call's stop came, or its whole input
}

// MaxToolCalls bounds the tool calls of one answer: each is remembered
// until the answer ends, so that a late fragment of one that ended is
// known for what it is.
const MaxToolCalls = 4096

var (
	errTooManyCalls = malformed("more than 4096 tool calls in one answer")
	errHeld         = wire.APIError(http.StatusBadGateway,
		"malformed upstream response: more than 4 MiB of other items arrived while a tool call was open")
)

// streaming reports whether a tool call other than it streams its input.
func (s *StreamTranslator) streaming(it *item) bool { return s.open != nil && s.open != it }

// hold keeps an event of it, which apply shows, while another tool call's
// input streams: the rules of docs/thinking.md ("Items that interleave")
// never cut a call's input. What apply uses must be a copy (the decoder
// and the scratch buffers are reused).
func (s *StreamTranslator) hold(it *item, size int, apply func()) error {
	if !s.held.Hold(it, size, func() error { apply(); return nil }) {
		return errHeld
	}
	return nil
}

// release replays, in their order, the held events that no streaming call
// holds back. handle calls it after each frame. No held event fails: an
// Amazon Q event shows what it carries or nothing.
func (s *StreamTranslator) release() {
	_ = s.held.Release(s.streaming, func() *item { return s.open })
}

// onToolUse handles one fragment of a tool call, known by its toolUseId.
// The first fragment of an id opens its tool_use block, string input
// fragments follow as input_json_delta, and stop:true closes it. An object
// input is the call's whole input: it ends the call, and adds nothing
// after fragments carried the input. A fragment of a call that ended adds
// nothing and is never taken for a new call (the Anthropic stream cannot
// reopen a block).
func (s *StreamTranslator) onToolUse(p []byte) error {
	id, err := s.stringField(p, "toolUseId", &s.scratch2)
	if err != nil {
		return err
	}
	if len(id) == 0 {
		return malformed("toolUseEvent without toolUseId")
	}
	it := s.calls[string(id)]
	if it != nil && it.ended {
		return nil
	}
	if it == nil {
		if len(s.calls) >= MaxToolCalls {
			return errTooManyCalls
		}
		name, err := s.stringField(p, "name", &s.scratch)
		if err != nil {
			return err
		}
		it = &item{id: string(id), name: s.st.originalToolName(string(name))}
		if s.calls == nil {
			s.calls = make(map[string]*item)
		}
		s.calls[it.id] = it
	}
	var in []byte
	v, typ, _, err := jsonparser.Get(p, "input")
	switch {
	case err != nil || typ == jsonparser.Null:
	case typ == jsonparser.String:
		if in, err = unescape(&s.scratch, v); err != nil {
			return malformed("toolUseEvent input is not a valid string")
		}
	case typ == jsonparser.Object:
		// Some gateways send the whole input as an object at once.
		if !it.hasInput {
			in = v
		}
		it.ended = true
	}
	if stop, err := jsonparser.GetBoolean(p, "stop"); err == nil && stop {
		it.ended = true
	}
	it.hasInput = it.hasInput || len(in) > 0
	end := it.ended
	if s.streaming(it) {
		in = bytes.Clone(in)
		return s.hold(it, len(it.id)+len(it.name)+len(in), func() { s.showCall(it, in, end) })
	}
	s.showCall(it, in, end)
	return nil
}

// showCall sends a fragment of call it: its block opens with the first,
// and closes with the one that ends it.
func (s *StreamTranslator) showCall(it *item, in []byte, end bool) {
	if s.open != it {
		s.endReasoning()
		s.begin()
		s.em.ToolUseStart(it.id, it.name)
		s.open = it
		s.tools++
	}
	s.em.ToolInput(in)
	if end {
		s.closeTool()
	}
}

func (s *StreamTranslator) closeTool() {
	if s.open != nil {
		s.open = nil
		s.em.CloseBlock()
	}
}

func (s *StreamTranslator) onMetadata(p []byte) {
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
func (s *StreamTranslator) finalStopReason() string {
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
func (s *StreamTranslator) stringField(p []byte, key string, buf *[]byte) ([]byte, error) {
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

var malformed = awsstream.Malformed

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
