package caddymodule

import (
	"context"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/providers/bedrock"
)

func init() {
	caddy.RegisterModule(BedrockProvider{})
}

// BedrockProvider is the bedrock provider: Anthropic requests go to Amazon
// Bedrock's runtime, Claude through InvokeModel with its own Anthropic
// events, other models through the Converse API; requests are signed with
// SigV4 from the AWS credential chain, or carry a Bedrock API key.
type BedrockProvider struct {
	bedrock.Config
	guest
}

// CaddyModule returns the Caddy module information.
func (BedrockProvider) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  providerNamespace + ".bedrock",
		New: func() caddy.Module { return new(BedrockProvider) },
	}
}

// Provision resolves the options' placeholders, loads the AWS
// configuration (a broken profile fails the load here) and builds the
// provider.
func (p *BedrockProvider) Provision(ctx caddy.Context) error {
	var loadCtx context.Context = ctx
	if ctx.Context == nil {
		loadCtx = context.Background() // a module provisioned outside a running Caddy
	}
	var err error
	perr := provision(&p.guest, p.Config, func(c bedrock.Config) *bedrock.Provider {
		c.Region = resolveSecret(c.Region)
		c.Profile = resolveSecret(c.Profile)
		c.Host = resolveSecret(c.Host)
		var prov *bedrock.Provider
		prov, err = bedrock.New(loadCtx, c)
		return prov
	})
	if perr != nil {
		return perr
	}
	if err != nil {
		p.guest.provider = nil
		return err
	}
	return nil
}

// ProviderInfo: split_tags is off by default, since Claude on Bedrock has
// native thinking.
func (p *BedrockProvider) ProviderInfo() ProviderInfo {
	return p.info(ProviderInfo{SplitTags: false, GenAIName: "aws.bedrock"})
}

// UnmarshalCaddyfile takes the provider's options from the thinkgate block:
//
//	thinkgate bedrock {
//	    region             <region>     # required, e.g. us-east-1; signs and names the host
//	    profile            <name>       # shared-config profile; default the SDK's chain
//	    api_key            <key>        # a Bedrock API key (bearer) instead of SigV4; use {env.NAME}
//	    api                auto|invoke|converse  # default auto: Anthropic models invoke, others converse
//	    host               <host>       # default bedrock-runtime.<region>.amazonaws.com
//	    drop_betas         <beta>...    # anthropic-beta values not sent; * for none
//	    credential_timeout <duration>   # default 10s
//	}
func (p *BedrockProvider) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	return unmarshalProviderOptions(d, p)
}

// Interface guard
var _ providerGuest = (*BedrockProvider)(nil)
