package responses

import (
	"net/http"
	"strings"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/openai"
)

// This file is the provider's glue to providers.Provider; the converter,
// the translator and the error mapping above do not depend on it.

// Provider is the OpenAI Responses API provider.
type Provider struct {
	cfg            Config
	path, rawQuery string
}

// New returns a provider for cfg, which must be valid.
func New(cfg Config) *Provider {
	p := &Provider{cfg: cfg}
	p.path, p.rawQuery = openai.UpstreamPath(cfg.Path, DefaultPath)
	return p
}

// Rewrite converts the client's request into a Responses request, or for
// count_tokens into a request to the input_tokens endpoint beside it.
func (p *Provider) Rewrite(x *providers.Exchange, out *providers.Outbound) (providers.Translator, error) {
	body, state, err := ConvertRequest(x, p.cfg)
	if err != nil {
		return nil, err
	}
	out.Body = body
	out.Path, out.RawQuery = p.path, p.rawQuery
	if x.CountTokens {
		out.Path = strings.TrimSuffix(p.path, "/") + "/input_tokens"
	}
	openai.SetHeaders(out.Header, p.cfg.APIKey)
	return NewTranslator(x, state), nil
}

// Translator is the request's providers.Translator: it holds what
// the response needs to know about the request (the shortened tool names).
type Translator struct {
	x     *providers.Exchange
	state *State
}

// NewTranslator returns the translator of x's response. st is what
// ConvertRequest returned (nil: no tool name was shortened).
func NewTranslator(x *providers.Exchange, st *State) *Translator {
	return &Translator{x: x, state: st}
}

// Handle translates every response: an event stream as it flows, a
// response object (or an input_tokens answer) whole, an error into
// Anthropic's shape.
func (t *Translator) Handle(status int, header http.Header) providers.Handling {
	switch {
	case status >= 300:
		return providers.Handling{Error: UpstreamError}
	case t.x.Streaming && !t.x.CountTokens && emit.IsSSE(header.Get("Content-Type")):
		return providers.Handling{NewStream: t.NewStream}
	}
	return providers.Handling{Body: t.Message}
}

// Message converts a response object, or for count_tokens the
// input_tokens endpoint's answer.
func (t *Translator) Message(body []byte) ([]byte, error) {
	if t.x.CountTokens {
		return CountTokens(body)
	}
	return t.convertMessage(body)
}

// Interface guards
var (
	_ providers.Provider   = (*Provider)(nil)
	_ providers.Translator = (*Translator)(nil)
)
