package caddymodule

import (
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/providers/anthropic"
)

func init() {
	caddy.RegisterModule(AnthropicProvider{})
}

// AnthropicProvider is the anthropic provider: requests pass through to an
// Anthropic Messages API upstream; with split_tags the response's inline
// thinking tags become thinking blocks.
type AnthropicProvider struct {
	anthropic.Config
	guest
}

// CaddyModule returns the Caddy module information.
func (AnthropicProvider) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  providerNamespace + ".anthropic",
		New: func() caddy.Module { return new(AnthropicProvider) },
	}
}

// Provision resolves the key's placeholders and builds the provider.
func (p *AnthropicProvider) Provision(caddy.Context) error {
	return provision(&p.guest, p.Config, anthropic.New)
}

// ProviderInfo: split_tags is off by default, since Anthropic models have
// native thinking.
func (p *AnthropicProvider) ProviderInfo() ProviderInfo {
	return p.info(ProviderInfo{SplitTags: false, GenAIName: "anthropic"})
}

// UnmarshalCaddyfile takes the provider's options from the thinkgate block:
//
//	thinkgate anthropic {
//	    api_key <key>      # replaces the client's key upstream; use {env.NAME}
//	    path    <path>     # default /v1/messages
//	}
func (p *AnthropicProvider) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	return unmarshalProviderOptions(d, p)
}

// Interface guard
var _ providerGuest = (*AnthropicProvider)(nil)
