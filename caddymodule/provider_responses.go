package caddymodule

import (
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/providers/responses"
)

func init() {
	caddy.RegisterModule(ResponsesProvider{})
}

// ResponsesProvider is the responses provider: requests are converted to
// OpenAI's Responses API (/v1/responses), where OpenAI's reasoning models
// show their reasoning, and its answers back to Anthropic Messages, with
// reasoning summaries as signed thinking blocks that carry the encrypted
// reasoning back on the next turn.
type ResponsesProvider struct {
	responses.Config
	guest
}

// CaddyModule returns the Caddy module information.
func (ResponsesProvider) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  providerNamespace + ".responses",
		New: func() caddy.Module { return new(ResponsesProvider) },
	}
}

// Provision resolves the key's placeholders and builds the provider.
func (p *ResponsesProvider) Provision(caddy.Context) error {
	return provision(&p.guest, p.Config, responses.New)
}

// ProviderInfo: split_tags is off by default, since the models reason
// natively.
func (p *ResponsesProvider) ProviderInfo() ProviderInfo {
	return p.info(ProviderInfo{SplitTags: false, GenAIName: "openai"})
}

// UnmarshalCaddyfile takes the provider's options from the thinkgate block:
//
//	thinkgate responses {
//	    api_key           <key>                          # Bearer key; use {env.NAME}
//	    path              <path>                         # default /v1/responses
//	    store             [on|off]                       # default off
//	    reasoning_summary auto|concise|detailed|off      # default auto
//	    efforts           <effort>:<max_budget>... <effort>  # budget → reasoning.effort,
//	                                                     # default low:4096 medium:16384 high
//	}
//
// An effort is none, minimal, low, medium or high. Thinking on without a
// budget asks for medium.
func (p *ResponsesProvider) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	return unmarshalProviderOptions(d, p)
}

// Interface guard
var _ providerGuest = (*ResponsesProvider)(nil)
