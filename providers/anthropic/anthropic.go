// Package anthropic is the passthrough provider for Anthropic-format
// upstreams (api.anthropic.com and anything that speaks /v1/messages). The
// request goes through unchanged but for the model name, the upstream key and
// thinking blocks the gateway signed itself; with split_tags the response's
// text is run through thinkparse so a prompted model's <thinking> tags become
// thinking blocks.
package anthropic

import (
	"encoding/json"
	"mime"
	"net/http"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/thinkparse"
)

// Config is the anthropic provider's own configuration.
type Config struct {
	// APIKey, when set, replaces the client's key upstream.
	APIKey string `json:"api_key,omitempty"`
}

// Provider is the Anthropic passthrough provider.
type Provider struct {
	cfg Config
}

// New returns a provider for cfg.
func New(cfg Config) *Provider { return &Provider{cfg: cfg} }

// Rewrite forwards the client's request, changing only what must change.
func (p *Provider) Rewrite(x *providers.Exchange, out *providers.Outbound) error {
	body, err := RewriteBody(x)
	if err != nil {
		return err
	}
	out.Body = body
	SetAuth(out.Header, p.cfg.APIKey)
	return nil
}

// SetAuth puts the upstream credential in place of the client's when key is
// set; otherwise the client's own key goes through.
func SetAuth(h http.Header, key string) {
	if key == "" {
		return
	}
	h.Del("Authorization")
	h.Set("X-Api-Key", key)
}

// RewriteBody returns the client's body with the upstream model name and with
// history thinking blocks the gateway signed turned back into what an
// Anthropic upstream accepts: tag-derived ones become <thinking> text at the
// start of the turn, foreign ones are dropped. An untouched request is
// forwarded byte for byte.
func RewriteBody(x *providers.Exchange) ([]byte, error) {
	req := x.Request
	changed := false
	if x.UpstreamModel != x.ClientModel {
		if err := req.SetField("model", x.UpstreamModel); err != nil {
			return nil, err
		}
		changed = true
	}
	if histChanged := unsignHistory(x.Settings, req.Messages); histChanged {
		if err := req.SetField("messages", req.Messages); err != nil {
			return nil, err
		}
		changed = true
	}
	if !changed {
		return x.Body, nil
	}
	return req.MarshalFields()
}

func unsignHistory(s *providers.Settings, msgs []providers.Message) bool {
	changed := false
	for i := range msgs {
		m := &msgs[i]
		if m.Role != "assistant" {
			continue
		}
		var tags []byte
		kept := m.Content.Blocks[:0:0]
		touched := false
		for _, b := range m.Content.Blocks {
			origin, _, ok := s.ThinkingOrigin(b)
			if !ok {
				kept = append(kept, b)
				continue
			}
			touched = true
			if origin == providers.OriginTags {
				tags = append(tags, "<thinking>"...)
				tags = append(tags, b.Thinking...)
				tags = append(tags, "</thinking>"...)
			}
		}
		if !touched {
			continue
		}
		changed = true
		if len(tags) > 0 {
			kept = append([]providers.Block{{Type: "text", Text: string(tags)}}, kept...)
		}
		m.Content = providers.Content{Blocks: kept, Present: true}
	}
	return changed
}

// TranslatesResponse: only split_tags changes an Anthropic response.
func (p *Provider) TranslatesResponse(x *providers.Exchange) bool {
	return x.Settings.SplitTags && !x.CountTokens
}

// IsStream reports an event stream.
func (p *Provider) IsStream(x *providers.Exchange, mediaType string) bool {
	return IsEventStream(mediaType)
}

// IsEventStream reports whether a Content-Type is text/event-stream.
func IsEventStream(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/event-stream"
}

// UpstreamError keeps the upstream's Anthropic error as it is.
func (p *Provider) UpstreamError(x *providers.Exchange, status int, header http.Header, body []byte) *providers.Error {
	return providers.DefaultUpstreamError(status, header, body)
}

// NewStream returns the split_tags translator.
func (p *Provider) NewStream(x *providers.Exchange, em *providers.Emitter) providers.Stream {
	return NewSplitStream(x, em)
}

// SplitStream rewrites an Anthropic event stream, running the text of text
// blocks through thinkparse. Other blocks and events pass through with their
// indexes renumbered by the emitter. Azure's responses share it.
type SplitStream struct {
	x       *providers.Exchange
	em      *providers.Emitter
	dec     providers.SSEDecoder
	parser  *thinkparse.Parser
	inText  bool // the upstream's open block is a text block
	scratch []byte
}

// NewSplitStream returns a translator writing to em.
func NewSplitStream(x *providers.Exchange, em *providers.Emitter) *SplitStream {
	return &SplitStream{x: x, em: em, parser: thinkparse.New(x.Settings.Parse, em)}
}

// Write decodes upstream bytes.
func (s *SplitStream) Write(p []byte) error { return s.dec.Write(p, s.event) }

// Close ends the stream; an upstream that stopped before message_stop is an error.
func (s *SplitStream) Close() error {
	if err := s.dec.Close(s.event); err != nil {
		return err
	}
	if !s.em.Finished() {
		s.flushText()
		return providers.APIError(http.StatusBadGateway, "upstream stream ended before message_stop")
	}
	return nil
}

func (s *SplitStream) flushText() {
	if s.inText {
		s.parser.Close()
		s.parser.Reset(s.em)
		s.inText = false
	}
}

func (s *SplitStream) event(name, data []byte) error {
	if len(name) == 0 {
		// Anthropic always names events; fall back to the payload's type.
		name, _ = rawString(data, "type")
	}
	switch string(name) {
	case "message_start":
		if s.x.ClientModel != s.x.UpstreamModel {
			if d, err := jsonparser.Set(data, mustJSON(s.x.ClientModel), "message", "model"); err == nil {
				data = d
			}
		}
		s.em.MessageStartRaw(data)
		if u, _, _, err := jsonparser.Get(data, "message", "usage"); err == nil {
			s.x.Usage = readUsage(u, s.x.Usage)
		}
	case "content_block_start":
		block, _, _, err := jsonparser.Get(data, "content_block")
		if err != nil {
			return malformed("content_block_start without content_block")
		}
		typ, _ := rawString(block, "type")
		if string(typ) == "text" {
			s.inText = true
			if t, err := s.unescaped(block, "text"); err == nil && len(t) > 0 {
				s.parser.Write(t)
			}
			return nil
		}
		s.flushText()
		s.em.RawBlockStart(block)
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
			// citations_delta and the like belong to the text block the
			// parser has open; anything else is forwarded on the open block.
			return nil
		}
		s.em.RawDelta(delta)
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
		s.em.MessageDeltaRaw(data)
	case "message_stop":
		s.flushText()
		s.em.MessageStop()
	case "ping":
		s.em.Ping()
	case "error":
		s.flushText()
		s.em.FailRaw(data)
	default:
		// Unknown events are forwarded as they are, for forward compatibility.
		s.em.Buf = providers.AppendSSE(s.em.Buf, string(name), data)
	}
	return nil
}

func (s *SplitStream) unescaped(data []byte, key string) ([]byte, error) {
	v, typ, _, err := jsonparser.Get(data, key)
	if err != nil || typ != jsonparser.String {
		return nil, errNotString
	}
	s.scratch, err = unescapeInto(s.scratch, v)
	return s.scratch, err
}

var errNotString = malformed("expected a string")

func malformed(msg string) *providers.Error {
	return providers.APIError(http.StatusBadGateway, "malformed upstream event: "+msg)
}

// unescapeInto decodes a raw JSON string body into buf without allocating
// when buf is large enough.
func unescapeInto(buf, raw []byte) ([]byte, error) {
	if cap(buf) < len(raw) {
		buf = make([]byte, len(raw), 2*len(raw))
	}
	out, err := jsonparser.Unescape(raw, buf[:len(raw)])
	if err != nil {
		return buf[:0], err
	}
	return out, nil
}

func rawString(data []byte, key ...string) ([]byte, error) {
	v, typ, _, err := jsonparser.Get(data, key...)
	if err != nil || typ != jsonparser.String {
		return nil, errNotString
	}
	return v, nil
}

func readUsage(u []byte, prev providers.Usage) providers.Usage {
	get := func(k string, old int64) int64 {
		if n, err := jsonparser.GetInt(u, k); err == nil {
			return n
		}
		return old
	}
	return providers.Usage{
		InputTokens:              get("input_tokens", prev.InputTokens),
		OutputTokens:             get("output_tokens", prev.OutputTokens),
		CacheCreationInputTokens: get("cache_creation_input_tokens", prev.CacheCreationInputTokens),
		CacheReadInputTokens:     get("cache_read_input_tokens", prev.CacheReadInputTokens),
	}
}

func mustJSON(s string) []byte { b, _ := json.Marshal(s); return b }

// Message splits the text blocks of a non-streaming Message the same way.
func (p *Provider) Message(x *providers.Exchange, body []byte) ([]byte, error) {
	return SplitMessage(x, body)
}

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
	em := providers.NewCollector(x.Settings.Form, x.Settings.Signer)
	em.MessageStart("", "", providers.Usage{})
	parser := thinkparse.New(x.Settings.Parse, em)
	for _, raw := range blocks {
		var b struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(raw, &b)
		if b.Type == "text" {
			parser.Write([]byte(b.Text))
			parser.Close()
			parser.Reset(em)
			em.CloseBlock()
			continue
		}
		em.RawBlockStart(raw)
		em.CloseBlock()
	}
	em.Finish("", "", providers.Usage{})
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
