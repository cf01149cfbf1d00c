package caddymodule

import (
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/providers/amazonq"
)

func init() {
	caddy.RegisterModule(AmazonQProvider{})
}

// AmazonQProvider is the amazonq provider: Anthropic requests become Amazon
// Q Developer / CodeWhisperer generateAssistantResponse requests, and the
// AWS event-stream answer becomes an Anthropic response, with the model's
// inline <thinking> tags split into thinking blocks.
type AmazonQProvider struct {
	amazonq.Config
	guest
}

// CaddyModule returns the Caddy module information.
func (AmazonQProvider) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  providerNamespace + ".amazonq",
		New: func() caddy.Module { return new(AmazonQProvider) },
	}
}

// Provision resolves the secrets' placeholders and builds the provider.
func (p *AmazonQProvider) Provision(caddy.Context) error {
	return provision(&p.guest, p.Config, amazonq.New)
}

// ProviderInfo: split_tags is on by default, since Amazon Q is prompted to
// think in <thinking> tags. The GenAI conventions do not list Amazon Q;
// aws.amazon_q is the name they would give it.
func (p *AmazonQProvider) ProviderInfo() ProviderInfo {
	return p.info(ProviderInfo{SplitTags: true, GenAIName: "aws.amazon_q"})
}

// UnmarshalCaddyfile takes the provider's options from the thinkgate block:
//
//	thinkgate amazonq {
//	    api_key     <token>      # bearer token; use {env.NAME}
//	    profile_arn <arn>        # sent as profileArn; use {env.NAME}
//	    protocol    json|aws     # default json
//	    origin      <origin>     # default AI_EDITOR
//	}
func (p *AmazonQProvider) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	return unmarshalProviderOptions(d, p)
}

// Interface guard
var _ providerGuest = (*AmazonQProvider)(nil)
