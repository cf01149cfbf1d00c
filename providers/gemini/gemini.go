// Package gemini is the provider for Google's Gemini API
// (generativelanguage.googleapis.com): it converts Anthropic Messages requests
// into generateContent / streamGenerateContent / countTokens requests and
// Gemini's responses back into Anthropic Messages and event streams, with
// Gemini's thoughts as thinking blocks whose thoughtSignatures survive the
// round trip through the client's history.
package gemini

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// DefaultThinkingBudget is the thinkingBudget of a request that turns
// thinking on without a budget (docs/providers/gemini.md).
const DefaultThinkingBudget = 1024

// API versions.
const (
	VersionV1Beta = "v1beta"
	VersionV1     = "v1"
)

// Provider is the Gemini provider.
type Provider struct {
	cfg Config
}

// New returns a provider for cfg, with defaults filled in.
func New(cfg Config) *Provider {
	if cfg.APIVersion == "" {
		cfg.APIVersion = VersionV1Beta
	}
	cfg.Conversion = cfg.Conversion.WithDefaults()
	return &Provider{cfg: cfg}
}

// Rewrite converts the request: body, path, query and headers.
func (p *Provider) Rewrite(x *providers.Exchange, out *providers.Outbound) (providers.Translator, error) {
	model, err := ModelName(x.UpstreamModel)
	if err != nil {
		return nil, err
	}
	if out.Body, err = p.requestBody(x, model); err != nil {
		return nil, err
	}
	method := ":generateContent"
	out.RawQuery = "" // the client's query (e.g. ?beta=true) means nothing to Gemini
	switch {
	case x.CountTokens:
		method = ":countTokens"
	case x.Streaming:
		method = ":streamGenerateContent"
		out.RawQuery = "alt=sse"
	}
	out.Path = "/" + p.cfg.APIVersion + "/models/" + model + method
	p.setHeaders(out.Header)
	return &Translator{x: x}, nil
}

// setHeaders removes the client's Anthropic credentials and headers (with an
// api_key, every credential header of the client's) and sets Gemini's key.
func (p *Provider) setHeaders(h http.Header) {
	key := p.cfg.APIKey
	if key == "" {
		key = h.Get("X-Api-Key")
		if key == "" {
			if a := h.Get("Authorization"); len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
				key = strings.TrimSpace(a[7:])
			}
		}
	}
	providers.StripClientHeaders(h, p.cfg.APIKey != "", true)
	h.Del("X-Api-Key")
	h.Del("Authorization")
	if key != "" {
		h.Set("X-Goog-Api-Key", key)
	}
}

// ModelName checks the upstream model name that goes into the URL path.
// A leading "models/" is accepted and removed. The rest must be a plain
// model id: letters, digits, '.', '_' and '-', without "..". These need no
// escaping in a path segment, and nothing in them can leave the
// models/{model}:method segment (no '/', '?', '#', ':', '%', '\', no control
// characters).
func ModelName(name string) (string, error) {
	name = strings.TrimPrefix(name, "models/")
	bad := name == "" || strings.Contains(name, "..")
	for i := 0; i < len(name) && !bad; i++ {
		c := name[i]
		bad = !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-')
	}
	if bad {
		return "", wire.InvalidRequest(fmt.Sprintf(
			"model: %q is not a valid Gemini model name (letters, digits, '.', '_' and '-' only)", name))
	}
	return name, nil
}

// Translator is the request's providers.Translator; the body goes through
// an answerTranslator.
type Translator struct {
	x *providers.Exchange
}

// NewTranslator returns the translator of x's response.
func NewTranslator(x *providers.Exchange) *Translator { return &Translator{x: x} }

// Handle translates every response: Gemini's SSE stream (alt=sse) as it
// flows, a generateContent or countTokens body whole, an error into
// Anthropic's shape.
func (t *Translator) Handle(status int, header http.Header) providers.Handling {
	x := t.x
	if status >= 300 {
		return providers.Handling{Error: UpstreamError}
	}
	if x.Streaming && emit.IsSSE(header.Get("Content-Type")) {
		return providers.Handling{NewStream: t.NewStream}
	}
	return providers.Handling{Body: func(body []byte) ([]byte, error) { return Message(x, body) }}
}

// Message converts a generateContent body (or, for count_tokens, a
// countTokens body) into the Anthropic answer. A JSON array of responses
// (streamGenerateContent without alt=sse) is accepted too.
func Message(x *providers.Exchange, body []byte) ([]byte, error) {
	if x.CountTokens {
		return CountTokens(x, body)
	}
	em := emit.NewCollector(x.Settings.Form, x.Settings.Signer)
	em.SetThinkingDisplay(x.ThinkingDisplay())
	em.MessageStart(x.MessageID, x.ClientModel, emit.Usage{})
	t := newAnswerTranslator(x, em)
	body = bytes.TrimSpace(body)
	var err error
	if len(body) > 0 && body[0] == '[' {
		_, aerr := jsonparser.ArrayEach(body, func(v []byte, vt jsonparser.ValueType, _ int, _ error) {
			switch {
			case err != nil:
			case vt != jsonparser.Object:
				err = malformed("expected an array of JSON objects")
			default:
				err = t.chunk(v)
			}
		})
		if err == nil && aerr != nil {
			err = malformed(aerr.Error())
		}
	} else {
		err = t.chunk(body)
	}
	if err != nil {
		return nil, err
	}
	if t.upErr != nil {
		return nil, t.upErr
	}
	// A complete body without a finishReason ended normally.
	t.end()
	return em.MessageJSON(), nil
}

// CountTokens converts {"totalTokens":N} into {"input_tokens":N}.
func CountTokens(x *providers.Exchange, body []byte) ([]byte, error) {
	if body = bytes.TrimSpace(body); len(body) == 0 || body[0] != '{' {
		return nil, malformed("countTokens answer is not a JSON object")
	}
	n, err := jsonparser.GetInt(body, "totalTokens")
	if err != nil {
		if _, _, _, gerr := jsonparser.Get(body, "totalTokens"); gerr == jsonparser.KeyPathNotFoundError {
			n = 0 // Gemini omits zero values
		} else {
			return nil, malformed("countTokens answer without totalTokens")
		}
	}
	x.Usage = emit.Usage{InputTokens: n}
	return fmt.Appendf(nil, `{"input_tokens":%d}`, n), nil
}

// Interface guards
var (
	_ providers.Provider         = (*Provider)(nil)
	_ providers.Translator       = (*Translator)(nil)
	_ providers.StreamTranslator = (*StreamTranslator)(nil)
)
