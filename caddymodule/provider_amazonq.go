package caddymodule

import (
	"fmt"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/providers"
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
	// APIKey is the bearer token sent upstream. Use {env.NAME}. When empty,
	// the client's own bearer token or x-api-key goes through.
	APIKey string `json:"api_key,omitempty"`

	// ProfileARN is sent as profileArn (IAM Identity Center accounts need it).
	ProfileARN string `json:"profile_arn,omitempty"`

	// Protocol is "json" (default: POST /generateAssistantResponse,
	// application/json, as Kiro-style endpoints take it) or "aws" (the
	// official form: POST / with application/x-amz-json-1.0 and
	// x-amz-target).
	Protocol string `json:"protocol,omitempty"`

	// Origin is userInputMessage.origin, default AI_EDITOR.
	Origin string `json:"origin,omitempty"`

	provider *amazonq.Provider
}

// CaddyModule returns the Caddy module information.
func (AmazonQProvider) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  providerNamespace + ".amazonq",
		New: func() caddy.Module { return new(AmazonQProvider) },
	}
}

// Provision resolves the secrets' placeholders and builds the provider.
func (p *AmazonQProvider) Provision(ctx caddy.Context) error {
	key, err := secret("api_key", p.APIKey)
	if err != nil {
		return err
	}
	arn, err := secret("profile_arn", p.ProfileARN)
	if err != nil {
		return err
	}
	p.provider = amazonq.New(amazonq.Config{
		APIKey:     key,
		ProfileARN: arn,
		Protocol:   p.Protocol,
		Origin:     p.Origin,
	})
	return nil
}

// Validate checks the protocol.
func (p *AmazonQProvider) Validate() error {
	switch p.Protocol {
	case "", amazonq.ProtocolJSON, amazonq.ProtocolAWS:
		return nil
	}
	return fmt.Errorf("protocol: must be json or aws, got %q", p.Protocol)
}

// Provider returns the provisioned provider.
func (p *AmazonQProvider) Provider() providers.Provider { return p.provider }

// SplitTagsByDefault is true: Amazon Q is prompted to think in <thinking> tags.
func (p *AmazonQProvider) SplitTagsByDefault() bool { return true }

// UnmarshalCaddyfile takes the provider's options from the thinkgate block:
//
//	api_key     <token>
//	profile_arn <arn>
//	protocol    json|aws
//	origin      <origin>
func (p *AmazonQProvider) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	for d.NextBlock(0) {
		opt := d.Val()
		switch opt {
		case "api_key", "profile_arn", "protocol", "origin":
			v, err := ParseStringOption(d)
			if err != nil {
				return err
			}
			switch opt {
			case "api_key":
				p.APIKey = v
			case "profile_arn":
				p.ProfileARN = v
			case "protocol":
				if v != amazonq.ProtocolJSON && v != amazonq.ProtocolAWS {
					return d.Errf("protocol: must be json or aws, got %q", v)
				}
				p.Protocol = v
			case "origin":
				p.Origin = v
			}
		default:
			return UnknownOption(d, "amazonq", p)
		}
	}
	return nil
}

// Interface guards
var (
	_ caddy.Provisioner     = (*AmazonQProvider)(nil)
	_ caddy.Validator       = (*AmazonQProvider)(nil)
	_ caddyfile.Unmarshaler = (*AmazonQProvider)(nil)
	_ ProviderModule        = (*AmazonQProvider)(nil)
)
