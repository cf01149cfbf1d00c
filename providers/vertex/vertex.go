// Package vertex is the provider for Google Vertex AI, which serves two
// publishers' models under one project and location: Google's Gemini, in
// Gemini's own format (converted by the gemini package), and Anthropic's
// Claude, in Anthropic's format with the model in the path and
// anthropic_version in the body. Every request carries an OAuth access
// token from the operator's Google credentials; clients never see them.
package vertex

import (
	"fmt"
	"strings"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/gemini"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// Provider is the Vertex AI provider.
type Provider struct {
	project, location string
	publisher         string
	conv              gemini.Conversion
	tokens            Tokens
	betas             betaFilter
}

// New returns a provider for cfg whose requests carry tokens' access
// tokens. cfg must have passed Validate.
func New(cfg Config, tokens Tokens) *Provider {
	p := &Provider{
		project:   cfg.Project,
		location:  cfg.Location,
		publisher: cfg.Publisher,
		conv:      cfg.Conversion.WithDefaults(),
		tokens:    tokens,
		betas:     newBetaFilter(cfg.DropBetas),
	}
	if p.publisher == "" {
		p.publisher = PublisherAuto
	}
	return p
}

// ScansRequest: Claude's requests pass through and are only scanned, and
// Gemini's conversion reads the history from the client's bytes: neither
// decodes it, whichever publisher serves the model.
func (p *Provider) ScansRequest() bool { return true }

// PublisherFor is the publisher that serves an upstream model.
func (p *Provider) PublisherFor(model string) string {
	if p.publisher != PublisherAuto {
		return p.publisher
	}
	if len(model) >= 6 && strings.EqualFold(model[:6], "claude") {
		return PublisherAnthropic
	}
	return PublisherGoogle
}

// Rewrite converts the request for its publisher and puts the access token
// on it. The body is converted first: a request that cannot be sent never
// waits for a token.
func (p *Provider) Rewrite(x *providers.Exchange, out *providers.Outbound) (providers.Translator, error) {
	var tr providers.Translator
	var err error
	if p.PublisherFor(x.UpstreamModel) == PublisherAnthropic {
		tr, err = p.rewriteClaude(x, out)
	} else {
		tr, err = p.rewriteGemini(x, out)
	}
	if err != nil {
		return nil, err
	}
	token, err := p.tokens.AccessToken()
	if err != nil {
		return nil, err
	}
	out.Header.Set("Authorization", "Bearer "+token)
	return tr, nil
}

// modelPath is the path of a publisher's model up to the method.
func (p *Provider) modelPath(publisher, model string) string {
	return "/v1/projects/" + p.project + "/locations/" + p.location + "/publishers/" + publisher + "/models/" + model
}

// rewriteGemini converts the request with the gemini provider's
// conversion.
func (p *Provider) rewriteGemini(x *providers.Exchange, out *providers.Outbound) (providers.Translator, error) {
	model, err := gemini.ModelName(x.UpstreamModel)
	if err != nil {
		return nil, err
	}
	method := ":generateContent"
	out.RawQuery = ""
	switch {
	case x.CountTokens:
		method = ":countTokens"
		out.Body, err = p.conv.CountTokensContents(x, model)
	case x.Streaming:
		method = ":streamGenerateContent"
		out.RawQuery = "alt=sse"
		fallthrough
	default:
		out.Body, err = p.conv.GenerateContent(x, model)
	}
	if err != nil {
		return nil, err
	}
	out.Path = p.modelPath(PublisherGoogle, model) + method
	// Every credential and anthropic-* header of the client's goes: the
	// gateway's token is the one credential Google sees.
	providers.StripClientHeaders(out.Header, true, true)
	return gemini.NewTranslator(x), nil
}

// ClaudeModelName checks a Claude model id as it goes into the path:
// letters, digits, '.', '_', '-' and '@' (claude-sonnet-4@20250514), no
// "..". None of these leaves the path segment.
func ClaudeModelName(name string) (string, error) {
	if !idChars(name, "._-@") {
		return "", wire.InvalidRequest(fmt.Sprintf(
			"model: %q is not a valid Vertex AI model id (letters, digits, '.', '_', '-' and '@' only)", name))
	}
	return name, nil
}

// Interface guards
var (
	_ providers.Provider       = (*Provider)(nil)
	_ providers.RequestScanner = (*Provider)(nil)
)
