// Package azure is the provider for Claude on Azure AI Foundry (Microsoft
// Foundry), which serves the Anthropic Messages API under
// https://{resource}.services.ai.azure.com/anthropic/v1/messages.
//
// Azure speaks Anthropic's format but is stricter than Anthropic about what a
// request may carry. The request is cleaned the way docs/providers/azure.md describes;
// _clean_claude_request_for_azure does, plus what Azure users have hit
// since: fields and anthropic-beta values it rejects are removed, history
// thinking blocks Azure did not sign are dropped (and with them the thinking
// parameter), and tools are reduced to {name, description, input_schema}.
// Everything else reaches Azure exactly as the client sent it. Responses pass
// through untouched, or through the anthropic provider's split_tags
// translator.
package azure

import (
	"net/http"
	"strings"

	"go.uber.org/zap"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/anthropic"
)

// DefaultPath is the Messages endpoint under an Azure AI Foundry resource.
const DefaultPath = "/anthropic/v1/messages"

// DefaultVersion is sent as anthropic-version when the client sent none.
const DefaultVersion = "2023-06-01"

// DefaultDropFields are the top-level request fields Azure rejects.
var DefaultDropFields = []string{"context_management", "betas", "anthropic_beta"}

// DefaultDropBetas are the anthropic-beta values removed before a request
// goes to Azure. Two kinds: betas of request features the cleaning strips
// (the header would announce something the body no longer has), and
// first-party-only betas a client talking to api.anthropic.com sends (Claude
// Code in its own Foundry mode was seen sending none of them).
var DefaultDropBetas = []string{
	"claude-code-20250219",                   // Claude Code's first-party marker
	"oauth-2025-04-20",                       // claude.ai subscription OAuth; Azure has its own keys
	"context-management-2025-06-27",          // context_management is removed
	"advanced-tool-use-2025-11-20",           // defer_loading / input_examples are removed
	"tool-search-tool-2025-10-19",            // defer_loading is removed
	"tool-examples-2025-10-29",               // input_examples is removed
	"fine-grained-tool-streaming-2025-05-14", // eager_input_streaming is removed
	"structured-outputs-2025-11-13",          // strict tools are unsupported on Azure
}

// Provider is the Azure AI Foundry provider.
type Provider struct {
	apiKey       string
	path         string
	dropFields   []string
	dropBetas    map[string]bool
	dropAllBetas bool
}

// New returns a provider for cfg.
func New(cfg Config) *Provider {
	p := &Provider{
		apiKey:    cfg.APIKey,
		path:      strings.TrimRight(cfg.Path, "/"),
		dropBetas: make(map[string]bool),
	}
	if p.path == "" {
		p.path = DefaultPath
	}
	p.dropFields = append(append(p.dropFields, DefaultDropFields...), cfg.DropFields...)
	for _, b := range append(append([]string(nil), DefaultDropBetas...), cfg.DropBetas...) {
		if b == "*" {
			p.dropAllBetas = true
		}
		p.dropBetas[strings.ToLower(b)] = true
	}
	return p
}

// ScansRequest: cleaning works on the raw body, so the request is read
// with ScanRequest and its history never decoded.
func (p *Provider) ScansRequest() bool { return true }

// Rewrite cleans the request for Azure and points it at the Azure path.
func (p *Provider) Rewrite(x *providers.Exchange, out *providers.Outbound) (providers.Translator, error) {
	body, ch, err := p.Clean(x)
	if err != nil {
		return nil, err
	}
	out.Body = body
	out.Path = p.path
	if x.CountTokens {
		out.Path += "/count_tokens"
	}
	// Of the client's query only ?beta=true (the SDKs' beta namespace, which
	// Anthropic's own Foundry SDK sends too) is kept.
	out.RawQuery = providers.ClientQuery(out.RawQuery)
	p.SetAuth(out.Header)
	ch.Betas = p.FilterBetas(out.Header)
	if out.Header.Get("Anthropic-Version") == "" {
		out.Header.Set("Anthropic-Version", DefaultVersion)
	}
	if c := x.Logger.Check(zap.DebugLevel, "azure: cleaned request"); c != nil && ch.Any() {
		c.Write(ch.fields()...)
	}
	// Azure streams Anthropic's events, and its model errors carry
	// Anthropic's shape; its own gateway's errors ({"error":{"code",
	// "message"}}) do not, so they are mapped even when the 2xx response
	// passes through (count_tokens answers excepted).
	return anthropic.NewTranslator(x, !x.CountTokens), nil
}

// SetAuth puts the credential in Azure's two header names. With an api_key
// every credential header of the client's is removed; without one the
// client's key (x-api-key or api-key) is sent under both names, and an
// Authorization: Bearer (a Microsoft Entra ID token) passes through as it is.
func (p *Provider) SetAuth(h http.Header) {
	key := p.apiKey
	if key != "" {
		providers.StripClientHeaders(h, true, false)
	} else if key = h.Get("X-Api-Key"); key == "" {
		key = h.Get("Api-Key")
	}
	if key != "" {
		h.Set("X-Api-Key", key)
		h.Set("Api-Key", key)
	}
}

// FilterBetas removes the anthropic-beta values Azure rejects from h and
// returns them. Each header line keeps its other values in their order; a
// line left empty goes, and so does a header left with no line.
func (p *Provider) FilterBetas(h http.Header) (removed []string) {
	lines := h.Values("Anthropic-Beta")
	if len(lines) == 0 {
		return nil
	}
	var kept []string
	for _, line := range lines {
		var keep []string
		for _, v := range strings.Split(line, ",") {
			v = strings.TrimSpace(v)
			switch {
			case v == "":
			case p.dropAllBetas || p.dropBetas[strings.ToLower(v)]:
				removed = append(removed, v)
			default:
				keep = append(keep, v)
			}
		}
		if len(keep) > 0 {
			kept = append(kept, strings.Join(keep, ","))
		}
	}
	if len(removed) == 0 {
		return nil
	}
	if len(kept) == 0 {
		h.Del("Anthropic-Beta")
	} else {
		h["Anthropic-Beta"] = kept
	}
	return removed
}

// Interface guard
var _ providers.Provider = (*Provider)(nil)
