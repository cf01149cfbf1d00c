package responses

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/sse"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// StreamTranslator translates a Responses event stream: typed events (`event:
// response.output_text.delta` with `data: {"type":…,"sequence_number":…}`),
// ended by response.completed, response.incomplete or response.failed.
type StreamTranslator struct {
	t       answerTranslator
	dec     sse.Decoder
	scratch []byte
	onEvent sse.Handler
	// badString is set when a string str read held an escape JSON does
	// not define: its text cannot be known, and the stream fails.
	badString bool
}

// errNoEnd is the end of a stream that never said how the response ended:
// the upstream connection ended early, so the answer may be cut short.
var errNoEnd = wire.APIError(http.StatusBadGateway,
	"upstream stream ended without response.completed: the response is incomplete")

// NewStream returns a stream translator writing to em. It sends message_start at
// once (id x.MessageID, the client's model name, zero usage; the usage
// follows in message_delta), so keepalive pings can follow right away.
func (t *Translator) NewStream(em *emit.Emitter) providers.StreamTranslator {
	x := t.x
	s := &StreamTranslator{}
	s.dec.MaxEvent = x.Settings.MaxEventSize
	s.t.init(x, t.state, em)
	s.onEvent = s.event
	em.MessageStart(x.MessageID, x.ClientModel, emit.Usage{})
	return s
}

// Write decodes upstream bytes, split anywhere.
func (s *StreamTranslator) Write(p []byte) error {
	if s.t.done {
		return nil
	}
	return s.dec.Write(p, s.onEvent)
}

// Close ends the stream. Without a final event the upstream stopped early:
// what arrived is delivered and closed, and the error makes the response
// writer send an error event.
func (s *StreamTranslator) Close() error {
	if s.t.done {
		return nil
	}
	if err := s.dec.Close(s.onEvent); err != nil {
		return err
	}
	if s.t.done {
		return nil
	}
	return s.fail(errNoEnd)
}

// fail closes what is open and returns e, which the response writer turns
// into an error event.
func (s *StreamTranslator) fail(e *wire.Error) error {
	_ = s.t.end() // what is held goes out before the error: it arrived
	s.t.done = true
	s.t.x.Usage = s.t.usage
	return e
}

// streamItem is an output item as output_item.added and .done carry it.
type streamItem struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Arguments        string          `json:"arguments"`
	EncryptedContent string          `json:"encrypted_content"`
	Summary          []contentPart   `json:"summary"`
	Content          []contentPart   `json:"content"`
	Raw              json.RawMessage `json:"-"`
}

type contentPart struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	Refusal string `json:"refusal"`
}

func (s *StreamTranslator) event(name, data []byte) error {
	if s.t.done {
		return nil
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "[DONE]" {
		return nil // a few compatible servers end with [DONE] after the final event
	}
	if data[0] != '{' {
		return s.fail(malformed("event is not a JSON object: " + truncate(string(data), 200)))
	}
	s.badString = false
	typ, ok := s.str(data, "type")
	if !ok {
		typ = name
	}
	// Ids are ASCII; an escaped one is taken as it is written.
	id, _, _, _ := jsonparser.Get(data, "item_id")
	index := outputIndex(data)
	var err error
	switch string(typ) {
	case "response.output_text.delta", "response.refusal.delta":
		d, ok := s.str(data, "delta")
		if !ok {
			return s.fail(s.missing("delta event without a delta string"))
		}
		err = s.t.textDelta(id, index, d, string(typ) == "response.refusal.delta")
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		// reasoning_text: the raw reasoning open-weight models (gpt-oss)
		// show; a thinking block like a summary.
		d, ok := s.str(data, "delta")
		if !ok {
			return s.fail(s.missing("delta event without a delta string"))
		}
		err = s.t.reasoningDelta(id, index, d)
	case "response.function_call_arguments.delta":
		d, ok := s.str(data, "delta")
		if !ok {
			return s.fail(s.missing("function_call_arguments.delta without a delta string"))
		}
		err = s.t.argsDelta(id, index, d)
	case "response.reasoning_summary_part.added":
		err = s.t.summaryPart(id, index)
	case "response.output_item.added", "response.output_item.done":
		it, e := itemOf(data)
		if e != nil {
			return s.fail(e)
		}
		if string(typ) == "response.output_item.added" {
			err = s.t.added(it, index)
		} else {
			err = s.t.itemDone(it, index)
		}
	case "response.completed", "response.incomplete":
		r, e := responseOf(data)
		if e != nil {
			return s.fail(e)
		}
		s.t.usage = r.Usage.anthropic()
		reason := ""
		if r.Status == "incomplete" || string(typ) == "response.incomplete" {
			reason = incompleteReason(r.IncompleteDetails.Reason)
		}
		err = s.t.finish(reason)
	case "response.failed":
		r, err := responseOf(data)
		if err != nil {
			return s.fail(err)
		}
		s.t.usage = r.Usage.anthropic()
		return s.fail(failure(r.Error.Code, r.Error.Message))
	case "error":
		var e struct {
			Code    json.RawMessage `json:"code"`
			Message string          `json:"message"`
			Error   *struct {
				Code    json.RawMessage `json:"code"`
				Message string          `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(data, &e) != nil {
			return s.fail(malformed("error event is not valid JSON"))
		}
		if e.Error != nil && e.Message == "" {
			e.Code, e.Message = e.Error.Code, e.Error.Message
		}
		return s.fail(failure(codeText(e.Code), e.Message))
	}
	// response.created, .in_progress, content_part.*, the .done events of
	// text and arguments, annotations and any event added later carry
	// nothing the client does not get otherwise.
	if err == nil && s.t.held.Len() > 0 {
		err = s.t.release()
	}
	if err != nil {
		return s.fail(wire.AsError(err))
	}
	return nil
}

// outputIndex returns an event's output_index, -1 without one.
func outputIndex(data []byte) int {
	n, err := jsonparser.GetInt(data, "output_index")
	if err != nil || n < 0 || n > MaxItems<<8 {
		return -1
	}
	return int(n)
}

// str returns a top-level string field's value, unescaped (valid until the
// next call); ok is false when the field is missing, not a string, or holds
// an escape JSON does not define.
func (s *StreamTranslator) str(data []byte, key string) ([]byte, bool) {
	v, typ, _, err := jsonparser.Get(data, key)
	if err != nil || typ != jsonparser.String {
		return nil, false
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return v, true
	}
	out, err := jsonbytes.AppendUnescaped(s.scratch[:0], v)
	s.scratch = out[:0]
	if err != nil {
		s.badString = true
		return nil, false
	}
	return out, true
}

// missing is the error for a string field str could not read: absent or
// not a string (msg), or holding a bad escape.
func (s *StreamTranslator) missing(msg string) *wire.Error {
	if s.badString {
		return errBadString
	}
	return malformed(msg)
}

// errBadString is an event whose strings do not decode: an escape JSON
// does not define (a lone surrogate is not one: it decodes to U+FFFD).
var errBadString = malformed("event holds a malformed string escape")

func itemOf(data []byte) (streamItem, *wire.Error) {
	var ev struct {
		Item *streamItem `json:"item"`
	}
	if json.Unmarshal(data, &ev) != nil || ev.Item == nil {
		return streamItem{}, malformed("output_item event without an item: " + truncate(string(data), 200))
	}
	return *ev.Item, nil
}

func summaryTexts(it streamItem) [][]byte {
	var out [][]byte
	for _, p := range it.Summary {
		out = append(out, []byte(p.Text))
	}
	if len(out) == 0 {
		for _, p := range it.Content {
			if p.Type == "reasoning_text" {
				out = append(out, []byte(p.Text))
			}
		}
	}
	return out
}

// response is the part of a response object the translation reads; the
// stream's final events repeat the whole output, which the stream already
// had, so only the non-streaming answer reads Output.
type response struct {
	responseEnd
	Output []streamItem `json:"output"`
}

// responseEnd is how a response ended: status, reason, error and usage.
type responseEnd struct {
	Status            string `json:"status"`
	IncompleteDetails struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Usage usage `json:"usage"`
}

func responseOf(data []byte) (responseEnd, *wire.Error) {
	var ev struct {
		Response *responseEnd `json:"response"`
	}
	if json.Unmarshal(data, &ev) != nil || ev.Response == nil {
		return responseEnd{}, malformed("final event without a response object: " + truncate(string(data), 200))
	}
	return *ev.Response, nil
}

// usage is the Responses usage object.
type usage struct {
	InputTokens        int64 `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	// OutputTokens includes output_tokens_details.reasoning_tokens, as
	// Anthropic's output_tokens includes thinking.
	OutputTokens int64 `json:"output_tokens"`
}

// anthropic maps usage: Anthropic's input_tokens leaves out cache reads,
// OpenAI's includes them.
func (u usage) anthropic() emit.Usage {
	cached := u.InputTokensDetails.CachedTokens
	return emit.Usage{
		InputTokens:          max(u.InputTokens-cached, 0),
		OutputTokens:         u.OutputTokens,
		CacheReadInputTokens: cached,
	}
}

// codeText returns an error code given as a string or a number.
func codeText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if raw = bytes.TrimSpace(raw); len(raw) > 0 && string(raw) != "null" {
		return string(raw)
	}
	return ""
}
