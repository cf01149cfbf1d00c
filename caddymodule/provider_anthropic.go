package caddymodule

import (
	"fmt"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/anthropic"
)

func init() {
	caddy.RegisterModule(AnthropicProvider{})
}

// AnthropicProvider is the anthropic provider: requests pass through to an
// Anthropic Messages API upstream; with split_tags the response's inline
// thinking tags become thinking blocks.
type AnthropicProvider struct {
	// APIKey replaces the client's key upstream when set. Use {env.NAME}.
	APIKey string `json:"api_key,omitempty"`

	// Path is the upstream Messages path, default /v1/messages;
	// count_tokens requests go to Path + "/count_tokens". The client's own
	// path is never forwarded.
	Path string `json:"path,omitempty"`

	provider *anthropic.Provider
}

// CaddyModule returns the Caddy module information.
func (AnthropicProvider) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  providerNamespace + ".anthropic",
		New: func() caddy.Module { return new(AnthropicProvider) },
	}
}

// Provision resolves the key's placeholders.
func (p *AnthropicProvider) Provision(ctx caddy.Context) error {
	key, err := secret("api_key", p.APIKey)
	if err != nil {
		return err
	}
	p.provider = anthropic.New(anthropic.Config{APIKey: key, Path: p.Path})
	return nil
}

// Validate checks the path.
func (p *AnthropicProvider) Validate() error { return checkPath(p.Path) }

// checkPath accepts an absolute upstream path without a query.
func checkPath(path string) error {
	if path != "" && (!strings.HasPrefix(path, "/") || strings.ContainsAny(path, "?#")) {
		return fmt.Errorf("path: must start with / and carry no query, got %q", path)
	}
	return nil
}

// Provider returns the provisioned provider.
func (p *AnthropicProvider) Provider() providers.Provider { return p.provider }

// SplitTagsByDefault is false: Anthropic models have native thinking.
func (p *AnthropicProvider) SplitTagsByDefault() bool { return false }

// UnmarshalCaddyfile takes the provider's options from the thinkgate block:
//
//	api_key <key>
//	path    <path>     # default /v1/messages
func (p *AnthropicProvider) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	for d.NextBlock(0) {
		switch d.Val() {
		case "api_key":
			v, err := ParseStringOption(d)
			if err != nil {
				return err
			}
			p.APIKey = v
		case "path":
			v, err := ParseStringOption(d)
			if err != nil {
				return err
			}
			if err := checkPath(v); err != nil {
				return d.Err(err.Error())
			}
			p.Path = v
		default:
			return UnknownOption(d, "anthropic", p)
		}
	}
	return nil
}

// resolveSecret replaces {env.*} and other global placeholders at load, so
// the secret never has to appear in the config itself.
func resolveSecret(s string) string {
	return caddy.NewReplacer().ReplaceKnown(s, "")
}

// Interface guards
var (
	_ caddy.Provisioner     = (*AnthropicProvider)(nil)
	_ caddy.Validator       = (*AnthropicProvider)(nil)
	_ caddyfile.Unmarshaler = (*AnthropicProvider)(nil)
	_ ProviderModule        = (*AnthropicProvider)(nil)
)
