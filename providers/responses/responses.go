package responses

import (
	"mime"
	"net/http"
	"strings"

	"github.com/thinkgate/thinkgate/providers"
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
	p := &Provider{cfg: cfg, path: cfg.Path}
	if p.path == "" {
		p.path = DefaultPath
	}
	if i := strings.IndexByte(p.path, '?'); i >= 0 {
		p.path, p.rawQuery = p.path[:i], p.path[i+1:]
	}
	return p
}

// Rewrite converts the client's request into a Responses request, or for
// count_tokens into a request to the input_tokens endpoint beside it.
func (p *Provider) Rewrite(x *providers.Exchange, out *providers.Outbound) error {
	body, state, err := ConvertRequest(x, p.cfg)
	if err != nil {
		return err
	}
	x.State = state
	out.Body = body
	out.Path, out.RawQuery = p.path, p.rawQuery
	if x.CountTokens {
		out.Path = strings.TrimSuffix(p.path, "/") + "/input_tokens"
	}
	openai.SetHeaders(out.Header, p.cfg.APIKey)
	return nil
}

// TranslatesResponse: every response is rewritten.
func (p *Provider) TranslatesResponse(x *providers.Exchange) bool { return true }

// IsStream reports an event stream.
func (p *Provider) IsStream(x *providers.Exchange, mediaType string) bool {
	mt, _, err := mime.ParseMediaType(mediaType)
	return err == nil && mt == "text/event-stream"
}

// NewStream returns the event translator; it sends message_start at once.
func (p *Provider) NewStream(x *providers.Exchange, em *providers.Emitter) providers.Stream {
	return NewStream(x, em)
}

// Message converts a response object (or an input_tokens answer).
func (p *Provider) Message(x *providers.Exchange, body []byte) ([]byte, error) {
	if x.CountTokens {
		return CountTokens(body)
	}
	return ConvertMessage(x, body)
}

// UpstreamError maps an OpenAI error response.
func (p *Provider) UpstreamError(x *providers.Exchange, status int, header http.Header, body []byte) *providers.Error {
	return UpstreamError(status, header, body)
}

var _ providers.Provider = (*Provider)(nil)
