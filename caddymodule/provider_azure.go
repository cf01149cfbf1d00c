package caddymodule

import (
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/providers/azure"
)

func init() {
	caddy.RegisterModule(AzureProvider{})
}

// AzureProvider is the azure provider: Claude on Azure AI Foundry. Requests
// are cleaned of what Azure rejects and sent to the resource's Anthropic
// endpoint; responses pass through, or are split with split_tags.
type AzureProvider struct {
	azure.Config
	guest
}

// CaddyModule returns the Caddy module information.
func (AzureProvider) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  providerNamespace + ".azure",
		New: func() caddy.Module { return new(AzureProvider) },
	}
}

// Provision resolves the key's placeholders and builds the provider.
func (p *AzureProvider) Provision(caddy.Context) error {
	return provision(&p.guest, p.Config, azure.New)
}

// ProviderInfo: split_tags is off by default, since Claude on Azure has
// native thinking.
func (p *AzureProvider) ProviderInfo() ProviderInfo {
	return p.info(ProviderInfo{SplitTags: false, GenAIName: "azure.ai.inference"})
}

// UnmarshalCaddyfile takes the provider's options from the thinkgate block:
//
//	thinkgate azure {
//	    api_key     <key>        # the resource key; use {env.NAME}
//	    path        <path>       # default /anthropic/v1/messages
//	    drop_fields <name>...    # top-level fields removed besides the defaults
//	    drop_betas  <value>...   # anthropic-beta values removed besides the defaults; * for all
//	}
//
// drop_fields and drop_betas may repeat; their values add up.
func (p *AzureProvider) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	return unmarshalProviderOptions(d, p)
}

// Interface guard
var _ providerGuest = (*AzureProvider)(nil)
