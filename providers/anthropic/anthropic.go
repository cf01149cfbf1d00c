// Package anthropic is the passthrough provider for Anthropic-format
// upstreams (api.anthropic.com and anything that speaks /v1/messages). The
// request goes through unchanged but for the model name, the upstream key and
// thinking blocks the gateway signed itself; with split_tags the response's
// text is run through thinkparse so a prompted model's <thinking> tags become
// thinking blocks.
package anthropic

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/sse"
	"github.com/thinkgate/thinkgate/providers/wire"
	"github.com/thinkgate/thinkgate/thinkparse"
)

// DefaultPath is the Messages endpoint of api.anthropic.com.
const DefaultPath = "/v1/messages"

// Provider is the Anthropic passthrough provider.
type Provider struct {
	cfg Config
}

// New returns a provider for cfg.
func New(cfg Config) *Provider {
	cfg.Path = strings.TrimRight(cfg.Path, "/")
	if cfg.Path == "" {
		cfg.Path = DefaultPath
	}
	return &Provider{cfg: cfg}
}

// ScansRequest: the passthrough reads a request with ScanRequest, and
// decodes its history only when it holds thinking the gateway signed.
func (p *Provider) ScansRequest() bool { return true }

// Rewrite forwards the client's request, changing only what must change.
func (p *Provider) Rewrite(x *providers.Exchange, out *providers.Outbound) (providers.Translator, error) {
	body, err := RewriteBody(x)
	if err != nil {
		return nil, err
	}
	out.Body = body
	// The configured path, never the client's: the client's path (dot
	// segments, escapes, another endpoint) and query must not pick what the
	// operator's key is spent on.
	out.Path = p.cfg.Path
	if x.CountTokens {
		out.Path += "/count_tokens"
	}
	out.RawQuery = providers.ClientQuery(out.RawQuery)
	SetAuth(out.Header, p.cfg.APIKey)
	return &Translator{x: x}, nil
}

// SetAuth puts the upstream credential in place of the client's when key is
// set: x-api-key carries it, and every credential header of the client's (an
// OAuth or gateway bearer token, cookies, other vendors' keys) is removed so
// that the upstream sees one credential. Without a key the client's own
// x-api-key or Authorization goes through untouched.
func SetAuth(h http.Header, key string) {
	if key == "" {
		return
	}
	providers.StripClientHeaders(h, true, false)
	h.Set("X-Api-Key", key)
}

// RewriteBody returns the client's body with the upstream model name and with
// history thinking blocks the gateway signed turned back into what an
// Anthropic upstream accepts: tag-derived ones become <thinking> text where
// they stood, foreign ones are dropped, and an assistant turn left with no
// content is dropped with them (Anthropic rejects empty messages). An
// untouched request is forwarded byte for byte. The history is rewritten
// from the client's bytes (rewriteHistory) and stays undecoded.
func RewriteBody(x *providers.Exchange) ([]byte, error) {
	req := x.Request
	changed := false
	if x.UpstreamModel != x.ClientModel {
		if err := req.SetField("model", x.UpstreamModel); err != nil {
			return nil, err
		}
		changed = true
	}
	// Only thinking the gateway signed is rewritten in the history: without
	// it, the history ScanRequest left undecoded stays so.
	if req.GatewayThinking {
		return rewriteHistory(x, changed)
	}
	if !changed {
		return x.Body, nil
	}
	body, _, err := x.MarshalRequest(nil)
	return body, err
}

// Translator handles the response of an Anthropic-format upstream: it
// passes through unless split_tags rewrites it. Azure's responses share it.
type Translator struct {
	x *providers.Exchange
	// mapErrors maps error responses even when the rest passes through.
	mapErrors bool
}

// NewTranslator returns the translator of x's response; with mapErrors,
// error responses are mapped (and their Anthropic-shaped bodies kept) even
// where the 2xx response passes through.
func NewTranslator(x *providers.Exchange, mapErrors bool) *Translator {
	return &Translator{x: x, mapErrors: mapErrors}
}

// Handle passes the response, or splits its text blocks with split_tags;
// count_tokens answers are never touched.
func (t *Translator) Handle(status int, header http.Header) providers.Handling {
	x := t.x
	split := x.Settings.SplitTags && !x.CountTokens
	switch {
	case status >= 300:
		if !split && !t.mapErrors && !x.MapErrors {
			return providers.Handling{}
		}
		return providers.Handling{Error: KeepAnthropicError, UpstreamHeader: !split}
	case !split:
		return providers.Handling{}
	case x.Streaming && emit.IsSSE(header.Get("Content-Type")):
		return providers.Handling{NewStream: t.NewStream}
	}
	return providers.Handling{Body: func(body []byte) ([]byte, error) { return SplitMessage(x, body) }}
}

// KeepAnthropicError maps a non-2xx response, sending an Anthropic-shaped
// error body through unchanged.
func KeepAnthropicError(status int, header http.Header, body []byte) *wire.Error {
	e := wire.DefaultUpstreamError(status, header, body)
	if typ, err := jsonparser.GetString(body, "type"); err == nil && typ == "error" {
		if _, _, _, err := jsonparser.Get(body, "error", "type"); err == nil {
			e.Raw = body
		}
	}
	return e
}

// SplitStream rewrites an Anthropic event stream, running the text of text
// blocks through thinkparse. Other blocks and events pass through with their
// indexes renumbered by the emitter. Azure's responses share it.
type SplitStream struct {
	x       *providers.Exchange
	em      *emit.Emitter
	dec     sse.Decoder
	parser  *thinkparse.Parser
	pass    bool // text blocks pass as they are (NewPassStream)
	inText  bool // the upstream's open block is a text block
	scratch []byte
	// shape is the form of the upstream's text_delta events; the callbacks
	// are bound once, as method values made per write would allocate.
	shape   sse.Shape
	onText  func(raw []byte, escaped bool) error
	onEvent sse.Handler
	// text is the text of the text_delta events since the last other
	// event, unescaped: it goes through the parser in one write per
	// upstream read instead of one per event. The parser's output does not
	// depend on how its input is split, and the emitter merges the deltas
	// of one read anyway, so what the client gets is the same.
	text []byte
}

// NewStream returns the split_tags translator of the streamed response,
// writing to em (Handling.NewStream).
func (t *Translator) NewStream(em *emit.Emitter) providers.StreamTranslator {
	return NewSplitStream(t.x, em)
}

// NewSplitStream returns a translator writing to em.
func NewSplitStream(x *providers.Exchange, em *emit.Emitter) *SplitStream {
	s := &SplitStream{x: x, em: em, parser: thinkparse.New(x.Settings.Parse, em)}
	s.dec.MaxEvent = x.Settings.MaxEventSize
	s.onText, s.onEvent = s.textDelta, s.event
	return s
}

// NewPassStream returns a translator that passes every block through as
// the upstream sent it, text blocks too, for an upstream whose Anthropic
// events must go through the emitter without split_tags (Bedrock's, which
// arrive inside another framing).
func NewPassStream(x *providers.Exchange, em *emit.Emitter) *SplitStream {
	s := NewSplitStream(x, em)
	s.pass = true
	return s
}

// Write decodes upstream bytes.
func (s *SplitStream) Write(p []byte) error {
	err := s.dec.WriteShaped(p, &s.shape, s.onText, s.onEvent)
	s.parseText()
	return err
}

// parseText runs the collected text_delta text through the parser.
func (s *SplitStream) parseText() {
	if len(s.text) > 0 {
		s.parser.Write(s.text)
		s.text = s.text[:0]
	}
}

// Close ends the stream; an upstream that stopped before message_stop is an error.
func (s *SplitStream) Close() error {
	s.parseText()
	err := s.dec.Close(s.event)
	s.parseText()
	if err != nil {
		return err
	}
	if !s.em.Finished() {
		s.flushText()
		return wire.APIError(http.StatusBadGateway, "upstream stream ended before message_stop")
	}
	return nil
}

func (s *SplitStream) flushText() {
	if s.inText {
		s.parser.Close()
		s.parser.Reset(s.em)
		s.em.FlushCitations() // none stays behind its upstream block
		s.inText = false
	}
}

// citation hands one citation to the emitter. Citations waiting for a text
// block are bounded like an event: past max_event_size they are placed at
// once rather than held.
func (s *SplitStream) citation(c []byte) error {
	if err := s.em.Citation(c); err != nil {
		return err
	}
	max := s.x.Settings.MaxEventSize
	if max <= 0 {
		max = sse.DefaultMaxEvent
	}
	if s.em.WaitingCitations() > max {
		s.em.FlushCitations()
	}
	return nil
}

// textDeltaPrefix and textDeltaMiddle frame the text of a text_delta event
// as Anthropic writes it. Nearly every event of a long answer is one, so
// they are recognised without a general JSON parse.
var (
	textDeltaPrefix = []byte(`{"type":"content_block_delta","index":`)
	textDeltaMiddle = []byte(`,"delta":{"type":"text_delta","text":"`)
)

// fastTextDelta returns the raw (still escaped) text of a text_delta event
// in Anthropic's canonical form; ok is false for anything else, which then
// takes the general path.
func fastTextDelta(data []byte) (raw []byte, ok bool) {
	if !bytes.HasPrefix(data, textDeltaPrefix) {
		return nil, false
	}
	rest := data[len(textDeltaPrefix):]
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i == 0 || !bytes.HasPrefix(rest[i:], textDeltaMiddle) {
		return nil, false
	}
	rest = rest[i+len(textDeltaMiddle):]
	// A string StringEnd finds malformed (a raw control character in it)
	// takes the general path, which is jsonparser's.
	end, _ := jsonbytes.StringEnd(rest)
	if end < 0 || string(rest[end:]) != `"}}` {
		return nil, false
	}
	return rest[:end], true
}

func (s *SplitStream) event(name, data []byte) error {
	if s.inText && string(name) == "content_block_delta" {
		if raw, ok := fastTextDelta(data); ok {
			if err := s.textDelta(raw, true); err != nil {
				return err
			}
			s.shape.Record("event: content_block_delta\n", data, raw)
			return nil
		}
	}
	s.parseText() // the text before this event goes first
	if len(name) == 0 {
		// Anthropic always names events; fall back to the payload's type.
		name, _ = rawString(data, "type")
		if len(name) == 0 {
			return malformed("event without a name or a type")
		}
	}
	if !s.em.Started() {
		// The client's stream must begin with message_start.
		switch string(name) {
		case "message_start", "error":
		case "ping":
			return nil
		default:
			return malformed(string(name) + " before message_start")
		}
	}
	switch string(name) {
	case "message_start":
		if s.x.ClientModel != s.x.UpstreamModel {
			if d, err := jsonparser.Set(data, mustJSON(s.x.ClientModel), "message", "model"); err == nil {
				data = d
			}
		}
		if err := s.em.MessageStartRaw(data); err != nil {
			return err
		}
		if u, _, _, err := jsonparser.Get(data, "message", "usage"); err == nil {
			s.x.Usage = readUsage(u, s.x.Usage)
		}
	case "content_block_start":
		block, _, _, err := jsonparser.Get(data, "content_block")
		if err != nil {
			return malformed("content_block_start without content_block")
		}
		typ, _ := rawString(block, "type")
		if string(typ) == "text" && !s.pass {
			s.inText = true
			if err := s.citations(block); err != nil {
				return err
			}
			if t, err := s.unescaped(block, "text"); err == nil && len(t) > 0 {
				s.parser.Write(t)
			}
			return nil
		}
		s.flushText()
		return s.em.RawBlockStart(block)
	case "content_block_delta":
		delta, _, _, err := jsonparser.Get(data, "delta")
		if err != nil {
			return malformed("content_block_delta without delta")
		}
		if s.inText {
			typ, _ := rawString(delta, "type")
			if string(typ) == "text_delta" {
				t, err := s.unescaped(delta, "text")
				if err != nil {
					return malformed("text_delta without text")
				}
				s.parser.Write(t)
				return nil
			}
			if string(typ) == "citations_delta" {
				// The text before it has gone through the parser (above).
				c, _, _, err := jsonparser.Get(delta, "citation")
				if err != nil {
					return malformed("citations_delta without citation")
				}
				return s.citation(c)
			}
			// A delta of a text block that is neither text nor a citation
			// has no place on the blocks the text was split into: dropped.
			return nil
		}
		return s.em.RawDelta(delta)
	case "content_block_stop":
		if s.inText {
			s.flushText()
		}
		s.em.CloseBlock()
	case "message_delta":
		s.flushText()
		if u, _, _, err := jsonparser.Get(data, "usage"); err == nil {
			s.x.Usage = readUsage(u, s.x.Usage)
		}
		return s.em.MessageDeltaRaw(data)
	case "message_stop":
		s.flushText()
		s.em.MessageStop()
	case "ping":
		s.em.Ping()
	case "error":
		s.flushText()
		return s.em.FailRaw(data)
	default:
		// Unknown events are forwarded as they are, for forward compatibility.
		if typ, err := rawString(data, "type"); err != nil || !bytes.Equal(typ, name) || !json.Valid(data) {
			return malformed(string(name) + " event whose data is not a JSON object of that type")
		}
		return s.em.RawEvent(string(name), data)
	}
	return nil
}

// textDelta takes the raw string of a text_delta of the open text block;
// without escapes it is the text.
func (s *SplitStream) textDelta(raw []byte, escaped bool) error {
	if !escaped {
		s.text = append(s.text, raw...)
		return nil
	}
	t, err := jsonbytes.AppendUnescaped(s.text, raw)
	if err != nil {
		s.parseText()
		return malformed("bad string in text_delta")
	}
	s.text = t
	return nil
}

// citations hands the citations a text block starts with to the emitter.
func (s *SplitStream) citations(block []byte) error {
	var err error
	_, _ = jsonparser.ArrayEach(block, func(c []byte, typ jsonparser.ValueType, _ int, _ error) {
		if err == nil && typ == jsonparser.Object {
			err = s.citation(c)
		}
	}, "citations")
	return err
}

func (s *SplitStream) unescaped(data []byte, key string) ([]byte, error) {
	v, typ, _, err := jsonparser.Get(data, key)
	if err != nil || typ != jsonparser.String {
		return nil, errNotString
	}
	return s.unescape(v)
}

// unescape decodes a raw JSON string body; without escapes it is v itself.
func (s *SplitStream) unescape(v []byte) ([]byte, error) {
	if bytes.IndexByte(v, '\\') < 0 {
		return v, nil
	}
	t, err := jsonbytes.AppendUnescaped(s.scratch[:0], v)
	s.scratch = t[:0]
	return t, err
}

var errNotString = malformed("expected a string")

func malformed(msg string) *wire.Error {
	return wire.APIError(http.StatusBadGateway, "malformed upstream event: "+msg)
}

func rawString(data []byte, key ...string) ([]byte, error) {
	v, typ, _, err := jsonparser.Get(data, key...)
	if err != nil || typ != jsonparser.String {
		return nil, errNotString
	}
	return v, nil
}

func readUsage(u []byte, prev emit.Usage) emit.Usage {
	get := func(k string, old int64) int64 {
		if n, err := jsonparser.GetInt(u, k); err == nil {
			return n
		}
		return old
	}
	return emit.Usage{
		InputTokens:              get("input_tokens", prev.InputTokens),
		OutputTokens:             get("output_tokens", prev.OutputTokens),
		CacheCreationInputTokens: get("cache_creation_input_tokens", prev.CacheCreationInputTokens),
		CacheReadInputTokens:     get("cache_read_input_tokens", prev.CacheReadInputTokens),
	}
}

func mustJSON(s string) []byte { b, _ := json.Marshal(s); return b }

// SplitMessage runs the text blocks of a Message JSON through thinkparse;
// every other block and every top-level field stays as it was.
func SplitMessage(x *providers.Exchange, body []byte) ([]byte, error) {
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(body, &msg); err != nil {
		return nil, malformed("message body is not JSON")
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(msg["content"], &blocks); err != nil {
		return nil, malformed("message content is not an array")
	}
	em := emit.NewCollector(x.Settings.Form, x.Settings.Signer)
	em.SetThinkingDisplay(x.ThinkingDisplay())
	em.MessageStart("", "", emit.Usage{})
	parser := thinkparse.New(x.Settings.Parse, em)
	for _, raw := range blocks {
		var b struct {
			Type      string            `json:"type"`
			Text      string            `json:"text"`
			Citations []json.RawMessage `json:"citations"`
		}
		_ = json.Unmarshal(raw, &b)
		if b.Type == "text" {
			// As in a stream, the citations come first and go on the
			// first text block made of the text.
			for _, c := range b.Citations {
				_ = em.Citation(c)
			}
			parser.Write([]byte(b.Text))
			parser.Close()
			parser.Reset(em)
			em.FlushCitations()
			em.CloseBlock()
			continue
		}
		em.RawBlockStart(raw)
		em.CloseBlock()
	}
	em.Finish("", "", emit.Usage{})
	var out struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(em.MessageJSON(), &out); err != nil {
		return nil, err
	}
	// jsonparser.Set keeps the upstream's field order and everything else as sent.
	body, err := jsonparser.Set(body, out.Content, "content")
	if err != nil {
		return nil, err
	}
	if x.ClientModel != x.UpstreamModel {
		if body, err = jsonparser.Set(body, mustJSON(x.ClientModel), "model"); err != nil {
			return nil, err
		}
	}
	if u, ok := msg["usage"]; ok {
		x.Usage = readUsage(u, x.Usage)
	}
	return body, nil
}

// Interface guards
var (
	_ providers.Provider   = (*Provider)(nil)
	_ providers.Translator = (*Translator)(nil)
)
