package gemini

import (
	"bytes"
	"net/http"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/sse"
	"github.com/thinkgate/thinkgate/providers/wire"
	"github.com/thinkgate/thinkgate/thinkparse"
)

// answerTranslator turns GenerateContentResponse objects (one per SSE event when
// streaming; the whole body of generateContent) into emitter calls. The stream
// and the non-streaming body share it, so both follow the same rules:
//
//   - thought parts → one thinking block per run of thoughts; a
//     thoughtSignature ends the block and becomes its (wrapped) signature;
//   - text parts → text, through thinkparse when split_tags is on;
//   - functionCall parts → a tool_use block, its signature and Gemini call id
//     packed into the tool_use id (toolid.go);
//   - a signature on an empty part belongs to the thinking block it follows,
//     or else to the next thought or function call;
//   - usageMetadata holds running totals: the latest wins;
//   - finishReason decides stop_reason when the body ends.
//
// Everything on the per-chunk path is allocation-free in the steady state:
// jsonparser walks the chunk in place, callbacks are bound once, and text is
// unescaped into a reused buffer.
type answerTranslator struct {
	x      *providers.Exchange
	em     *emit.Emitter
	parser *thinkparse.Parser // nil without split_tags
	signer *emit.Signer

	inText     bool   // text went to the parser since it was last flushed
	inThought  bool   // a run of thought parts is open
	thoughtLen int    // thinking bytes written in that run
	pendingSig []byte // a signature waiting for the next thought or call
	sawCall    bool
	finish     []byte // the last finishReason, raw
	blocked    bool   // promptFeedback.blockReason without candidates
	usage      emit.Usage
	upErr      *wire.Error // an error object in a 2xx body
	errSeen    bool
	partErr    error // a part that could not be read

	// The part being read.
	pText     []byte
	pHasText  bool
	pThought  bool
	pSig      []byte
	pCall     []byte
	textBuf   []byte // unescaped text
	sigBuf    []byte
	partsRaw  []byte
	candRaw   []byte
	usageRaw  []byte
	feedback  []byte
	errRaw    []byte
	finishBuf []byte

	um        usageMeta
	usageFn   func(key, value []byte, vt jsonparser.ValueType, off int) error
	topFn     func(key, value []byte, vt jsonparser.ValueType, off int) error
	candFn    func(key, value []byte, vt jsonparser.ValueType, off int) error
	partFn    func(value []byte, vt jsonparser.ValueType, off int, err error)
	partKeyFn func(key, value []byte, vt jsonparser.ValueType, off int) error
}

func newAnswerTranslator(x *providers.Exchange, em *emit.Emitter) *answerTranslator {
	t := &answerTranslator{x: x, em: em, signer: x.Settings.Signer, textBuf: make([]byte, 0, 512)}
	if x.Settings.SplitTags {
		t.parser = thinkparse.New(x.Settings.Parse, em)
	}
	t.topFn, t.candFn, t.partFn, t.partKeyFn, t.usageFn = t.topKey, t.candKey, t.part, t.partKey, t.usageKey
	return t
}

func malformed(msg string) *wire.Error {
	return wire.APIError(http.StatusBadGateway, "malformed Gemini response: "+msg)
}

// chunk handles one GenerateContentResponse.
func (t *answerTranslator) chunk(data []byte) error {
	if t.errSeen {
		return nil
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "[DONE]" { // OpenAI-style end marker some relays add
		return nil
	}
	if data[0] != '{' {
		return malformed("expected a JSON object")
	}
	t.candRaw, t.usageRaw, t.feedback, t.errRaw = nil, nil, nil, nil
	if err := jsonbytes.ScanObject(data, t.topFn); err != nil {
		return malformed(err.Error())
	}
	if t.errRaw != nil {
		t.errSeen = true
		// A fresh slice: errRaw aliases the decoder's buffer.
		body := make([]byte, 0, len(t.errRaw)+10)
		body = append(append(append(body, `{"error":`...), t.errRaw...), '}')
		g, ok := parseGoogleError(body)
		if !ok {
			t.upErr = wire.APIError(http.StatusBadGateway, "Gemini reported an error: "+string(t.errRaw))
		} else {
			t.upErr = mapGoogleError(0, g)
		}
		t.flushText()
		return nil
	}
	if t.candRaw != nil {
		cand, vt, _, err := jsonparser.Get(t.candRaw, "[0]")
		if err == nil && vt == jsonparser.Object {
			t.partsRaw = nil
			if err := jsonbytes.ScanObject(cand, t.candFn); err != nil {
				return malformed(err.Error())
			}
			if t.partsRaw != nil {
				t.partErr = nil
				if _, err := jsonparser.ArrayEach(t.partsRaw, t.partFn); err != nil {
					return malformed(err.Error())
				}
				if t.partErr != nil {
					return t.partErr
				}
			}
		}
	} else if t.feedback != nil {
		if r, err := jsonparser.GetString(t.feedback, "blockReason"); err == nil && r != "" {
			t.blocked = true
		}
	}
	if t.usageRaw != nil {
		t.readUsage(t.usageRaw)
	}
	return nil
}

func (t *answerTranslator) topKey(key, value []byte, vt jsonparser.ValueType, _ int) error {
	switch string(key) {
	case "candidates":
		if vt == jsonparser.Array {
			t.candRaw = value
		}
	case "usageMetadata":
		if vt == jsonparser.Object {
			t.usageRaw = value
		}
	case "promptFeedback":
		if vt == jsonparser.Object {
			t.feedback = value
		}
	case "error":
		if vt == jsonparser.Object {
			t.errRaw = value
		}
	}
	return nil
}

func (t *answerTranslator) candKey(key, value []byte, vt jsonparser.ValueType, _ int) error {
	switch string(key) {
	case "content":
		if vt == jsonparser.Object {
			if parts, pvt, _, err := jsonparser.Get(value, "parts"); err == nil && pvt == jsonparser.Array {
				t.partsRaw = parts
			}
		}
	case "finishReason":
		if vt == jsonparser.String && len(value) > 0 {
			t.finishBuf = append(t.finishBuf[:0], value...)
			t.finish = t.finishBuf
		}
	}
	return nil
}

// part reads one part and acts on it.
func (t *answerTranslator) part(value []byte, vt jsonparser.ValueType, _ int, _ error) {
	if vt != jsonparser.Object {
		return
	}
	if t.partErr != nil {
		return
	}
	t.pText, t.pHasText, t.pThought, t.pSig, t.pCall = nil, false, false, nil, nil
	if err := jsonbytes.ScanObject(value, t.partKeyFn); err != nil {
		t.partErr = malformed(err.Error())
		return
	}
	sig := t.pSig
	switch {
	case t.pCall != nil:
		t.functionCall(t.pCall, sig)
	case t.pHasText:
		text, err := unescape(t.textBuf, t.pText)
		if err != nil {
			t.partErr = malformed("bad string in a part's text")
			return
		}
		t.textBuf = text[:0]
		if t.pThought {
			t.thought(text, sig)
		} else {
			t.text(text, sig)
		}
	case len(sig) > 0:
		t.text(nil, sig)
	}
	// inlineData, executableCode and the like have no Anthropic form.
}

func (t *answerTranslator) partKey(key, value []byte, vt jsonparser.ValueType, _ int) error {
	switch string(key) {
	case "text":
		if vt == jsonparser.String {
			t.pText, t.pHasText = value, true
		}
	case "thought":
		t.pThought = vt == jsonparser.Boolean && value[0] == 't'
	case "thoughtSignature":
		if vt == jsonparser.String && len(value) > 0 {
			s, err := unescape(t.sigBuf, value)
			if err == nil {
				t.sigBuf = s[:0]
				t.pSig = s
			}
		}
	case "functionCall":
		if vt == jsonparser.Object {
			t.pCall = value
		}
	}
	return nil
}

// unescape decodes a raw JSON string body into buf, reusing it.
func unescape(buf, raw []byte) ([]byte, error) {
	return jsonbytes.AppendUnescaped(buf[:0], raw)
}

// thought writes thinking text to the open run of thoughts, opening one if needed.
func (t *answerTranslator) thought(text, sig []byte) {
	if len(text) > 0 {
		t.flushText()
		if !t.inThought {
			t.startThought()
		}
		t.em.Thinking(text)
		t.thoughtLen += len(text)
	}
	if len(sig) > 0 {
		t.signature(sig)
	}
}

func (t *answerTranslator) startThought() {
	t.em.ThinkingStart(nil)
	// Origin Gemini even when no signature comes: history conversion then
	// knows to send the block back as a thought.
	t.em.Signature(emit.OriginGemini, t.pendingSig)
	t.pendingSig = t.pendingSig[:0]
	t.inThought, t.thoughtLen = true, 0
}

// signature places a signature from a thought or an empty part: on the open
// thinking block, which it ends, or else on whatever comes next.
func (t *answerTranslator) signature(sig []byte) {
	if t.inThought && t.thoughtLen > 0 {
		t.em.Signature(emit.OriginGemini, sig)
		t.em.ThinkingEnd()
		t.inThought = false
		return
	}
	t.pendingSig = append(t.pendingSig[:0], sig...)
}

// text writes answer text. A signature on a non-empty text part has no place
// in an Anthropic text block and is not kept (Gemini documents those as
// optional to return).
func (t *answerTranslator) text(text, sig []byte) {
	if len(text) == 0 {
		if len(sig) > 0 {
			t.signature(sig)
		}
		return
	}
	t.inThought = false
	t.pendingSig = t.pendingSig[:0]
	if t.parser != nil {
		t.parser.Write(text)
		t.inText = true
		return
	}
	t.em.Text(text)
}

// flushText ends the text that went through the parser: a tag split at the
// end of a text run is released, an open tag span closed.
func (t *answerTranslator) flushText() {
	if t.inText {
		t.parser.Close()
		t.parser.Reset(t.em)
		t.inText = false
	}
}

// functionCall emits a whole tool_use block: Gemini sends calls complete.
func (t *answerTranslator) functionCall(call, sig []byte) {
	t.flushText()
	t.inThought = false
	if len(sig) == 0 && len(t.pendingSig) > 0 {
		sig = t.pendingSig
	}
	name, _ := jsonparser.GetString(call, "name")
	callID, _ := jsonparser.GetString(call, "id")
	args, vt, _, err := jsonparser.Get(call, "args")
	if err != nil || vt != jsonparser.Object {
		args = []byte("{}")
	}
	t.em.ToolUseStart(encodeToolID(t.signer, sig, []byte(callID)), name)
	t.em.ToolInput(args)
	t.em.CloseBlock()
	t.pendingSig = t.pendingSig[:0]
	t.sawCall = true
}

// readUsage maps usageMetadata. promptTokenCount includes the cached tokens
// (cachedContentTokenCount), which Anthropic counts apart, so they are
// subtracted from input_tokens; tool-use prompt tokens are input; thoughts
// are output.
func (t *answerTranslator) readUsage(u []byte) {
	t.um = usageMeta{}
	if jsonbytes.ScanObject(u, t.usageFn) != nil {
		return
	}
	m := t.um
	t.usage = emit.Usage{
		InputTokens:          max(m.prompt+m.toolPrompt-m.cached, 0),
		OutputTokens:         m.candidates + m.thoughts,
		CacheReadInputTokens: m.cached,
	}
	t.x.Usage = t.usage
}

// usageMeta holds the counts of one usageMetadata.
type usageMeta struct{ prompt, cached, toolPrompt, candidates, thoughts int64 }

func (t *answerTranslator) usageKey(key, value []byte, vt jsonparser.ValueType, _ int) error {
	if vt != jsonparser.Number {
		return nil
	}
	var dst *int64
	switch string(key) {
	case "promptTokenCount":
		dst = &t.um.prompt
	case "cachedContentTokenCount":
		dst = &t.um.cached
	case "toolUsePromptTokenCount":
		dst = &t.um.toolPrompt
	case "candidatesTokenCount":
		dst = &t.um.candidates
	case "thoughtsTokenCount":
		dst = &t.um.thoughts
	default:
		return nil
	}
	if n, err := jsonparser.ParseInt(value); err == nil {
		*dst = n
	}
	return nil
}

// stopReason maps the finishReason. STOP with a function call made is tool_use.
func (t *answerTranslator) stopReason() string {
	switch string(t.finish) {
	case "MAX_TOKENS":
		return "max_tokens"
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
		"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION":
		return "refusal"
	}
	if t.blocked && t.finish == nil {
		return "refusal"
	}
	if t.sawCall {
		return "tool_use"
	}
	return "end_turn"
}

// done reports whether the response said how it ended.
func (t *answerTranslator) done() bool { return t.finish != nil || t.blocked }

// end finishes the message.
func (t *answerTranslator) end() {
	t.flushText()
	t.em.Finish(t.stopReason(), "", t.usage)
}

// StreamTranslator translates a streamGenerateContent?alt=sse body.
type StreamTranslator struct {
	t       *answerTranslator
	dec     sse.Decoder
	eventFn sse.Handler
}

// NewStream returns the translator of a streamed body (Handling.NewStream);
// message_start goes out at once so keepalive pings may follow while
// Gemini thinks.
func (t *Translator) NewStream(em *emit.Emitter) providers.StreamTranslator {
	x := t.x
	em.MessageStart(x.MessageID, x.ClientModel, emit.Usage{})
	s := &StreamTranslator{t: newAnswerTranslator(x, em)}
	s.dec.MaxEvent = x.Settings.MaxEventSize
	s.eventFn = s.event
	return s
}

// Write decodes upstream bytes, split anywhere.
func (s *StreamTranslator) Write(p []byte) error { return s.dec.Write(p, s.eventFn) }

func (s *StreamTranslator) event(_, data []byte) error {
	if err := s.t.chunk(data); err != nil {
		return err
	}
	if s.t.upErr != nil && !s.t.em.Finished() {
		s.t.em.Fail(s.t.upErr.Type, s.t.upErr.Message)
	}
	return nil
}

// Close ends the stream. A body that ends before Gemini said why it stopped
// (no finishReason) was cut short: that is an error, not a message.
func (s *StreamTranslator) Close() error {
	if err := s.dec.Close(s.eventFn); err != nil {
		return err
	}
	if s.t.em.Finished() {
		return nil
	}
	if !s.t.done() {
		s.t.flushText()
		return wire.APIError(http.StatusBadGateway, "Gemini stream ended without a finishReason")
	}
	s.t.end()
	return nil
}
