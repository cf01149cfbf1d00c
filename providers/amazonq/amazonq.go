// Package amazonq is the provider for Amazon Q Developer / CodeWhisperer
// (and Kiro-style gateways) generateAssistantResponse upstreams.
//
// The Anthropic request becomes a conversationState: the last user turn is
// the currentMessage (wrapped in the CONTEXT ENTRY / USER MESSAGE
// template, with the system prompt folded in and the thinking hint appended
// twice), the turns before it an alternating history. The answer is an AWS
// binary event stream (application/vnd.amazon.eventstream) whose frames are
// decoded with aws-sdk-go-v2's eventstream decoder; assistantResponseEvent
// text runs through thinkparse, so the model's <thinking> tags become
// thinking blocks, toolUseEvent fragments become tool_use blocks, and
// reasoningContentEvent becomes a thinking block with its signature.
package amazonq

import (
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// Protocols: how the request is addressed to the upstream.
const (
	// ProtocolJSON posts to /generateAssistantResponse with
	// Content-Type application/json, as Kiro-style gateways expect.
	ProtocolJSON = "json"
	// ProtocolAWS is the official AWS JSON 1.0 form: POST / with
	// Content-Type application/x-amz-json-1.0 and an x-amz-target header.
	ProtocolAWS = "aws"
)

// Addressing of the two protocols.
const (
	PathJSON      = "/generateAssistantResponse"
	PathAWS       = "/"
	ContentAWS    = "application/x-amz-json-1.0"
	TargetAWS     = "AmazonCodeWhispererStreamingService.GenerateAssistantResponse"
	DefaultOrigin = "AI_EDITOR"
)

// Provider is the Amazon Q provider.
type Provider struct {
	cfg Config
}

// New returns a provider for cfg, with defaults filled in.
func New(cfg Config) *Provider {
	if cfg.Protocol == "" {
		cfg.Protocol = ProtocolJSON
	}
	if cfg.Origin == "" {
		cfg.Origin = DefaultOrigin
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Provider{cfg: cfg}
}

// Rewrite converts the Anthropic request into a generateAssistantResponse
// request and addresses it for the configured protocol.
func (p *Provider) Rewrite(x *providers.Exchange, out *providers.Outbound) (providers.Translator, error) {
	if x.CountTokens {
		// The gateway answers it with CountTokens (providers.TokenCounter).
		return nil, &wire.Error{Status: http.StatusNotFound, Type: "not_found_error",
			Message: "count_tokens is not available: Amazon Q has no token-counting endpoint"}
	}
	body, st, err := p.convert(x)
	if err != nil {
		return nil, err
	}
	out.Body = body
	out.RawQuery = ""
	h := out.Header
	if p.cfg.Protocol == ProtocolAWS {
		out.Path = PathAWS
		h.Set("Content-Type", ContentAWS)
		h.Set("X-Amz-Target", TargetAWS)
	} else {
		out.Path = PathJSON
		h.Set("Content-Type", "application/json")
		h.Del("X-Amz-Target")
	}
	setAuth(h, p.cfg.APIKey)
	// The client's Accept (application/json from the SDKs) must not steer
	// the upstream away from its event stream.
	h.Del("Accept")
	return &Translator{x: x, st: st}, nil
}

// setAuth puts the bearer token in place: the configured key, else the
// client's own bearer token or x-api-key.
func setAuth(h http.Header, key string) {
	clientKey := h.Get("X-Api-Key")
	// Anthropic's own headers mean nothing upstream; with a key, none of the
	// client's credentials go beside it.
	providers.StripClientHeaders(h, key != "", true)
	h.Del("X-Api-Key")
	switch {
	case key != "":
		h.Set("Authorization", "Bearer "+key)
	case h.Get("Authorization") != "":
		// the client's bearer token goes through
	case clientKey != "":
		h.Set("Authorization", "Bearer "+clientKey)
	}
}

// Translator is the translator of one request's response: it holds the
// request's shortened tool names.
type Translator struct {
	x  *providers.Exchange
	st *state
}

// NewTranslator returns the translator of x's response for a request
// converted without shortened tool names.
func NewTranslator(x *providers.Exchange) *Translator { return &Translator{x: x} }

// Handle translates every response: an Amazon Q response is never
// Anthropic-shaped.
func (t *Translator) Handle(status int, header http.Header) providers.Handling {
	switch {
	case status >= 300:
		return providers.Handling{Error: upstreamError}
	case t.x.Streaming && IsStream(header.Get("Content-Type")):
		return providers.Handling{NewStream: t.NewStream}
	}
	return providers.Handling{Body: t.Message}
}

// IsStream reports whether a 2xx response is to be read as an event stream.
// generateAssistantResponse answers with application/vnd.amazon.eventstream;
// some gateways label the same bytes application/json, x-amz-json or
// octet-stream, or not at all. The translator checks the first byte, so a
// real JSON body under one of these types is still recognised (and turned
// into an error) rather than misread as frames.
func IsStream(mediaType string) bool {
	if strings.TrimSpace(mediaType) == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(mediaType)
	if err != nil {
		return false
	}
	switch mt {
	case "application/vnd.amazon.eventstream", "application/octet-stream",
		"application/json", "application/x-amz-json-1.0", "application/x-amz-json-1.1":
		return true
	}
	return false
}

// Message collects a whole (buffered) event stream into one Message: Amazon
// Q always streams, so a non-streaming client request is served by running
// the same translator into a collector.
func (t *Translator) Message(body []byte) ([]byte, error) {
	x := t.x
	em := emit.NewCollector(x.Settings.Form, x.Settings.Signer)
	em.SetThinkingDisplay(x.ThinkingDisplay())
	s := t.NewStream(em)
	if err := s.Write(body); err != nil {
		return nil, err
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	if e := em.CollectError(); e != nil {
		return nil, e
	}
	return em.MessageJSON(), nil
}

// Interface guards
var (
	_ providers.Provider   = (*Provider)(nil)
	_ providers.Translator = (*Translator)(nil)
)
