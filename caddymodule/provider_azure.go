package caddymodule

import (
	"fmt"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/azure"
)

func init() {
	caddy.RegisterModule(AzureProvider{})
}

// AzureProvider is the azure provider: Claude on Azure AI Foundry. Requests
// are cleaned of what Azure rejects and sent to the resource's Anthropic
// endpoint; responses pass through, or are split with split_tags.
type AzureProvider struct {
	// APIKey is the Azure resource key, sent as x-api-key and api-key; the
	// client's own key is then never forwarded. Use {env.NAME}. Without it
	// the client's credential goes to Azure.
	APIKey string `json:"api_key,omitempty"`

	// Path is the upstream Messages path, default /anthropic/v1/messages;
	// count_tokens requests go to Path + "/count_tokens".
	Path string `json:"path,omitempty"`

	// DropFields are top-level request fields removed in addition to
	// context_management, betas and anthropic_beta.
	DropFields []string `json:"drop_fields,omitempty"`

	// DropBetas are anthropic-beta values removed in addition to the
	// default list of betas Azure rejects; "*" removes the header.
	DropBetas []string `json:"drop_betas,omitempty"`

	provider *azure.Provider
}

// CaddyModule returns the Caddy module information.
func (AzureProvider) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  providerNamespace + ".azure",
		New: func() caddy.Module { return new(AzureProvider) },
	}
}

// Provision resolves the key's placeholders.
func (p *AzureProvider) Provision(ctx caddy.Context) error {
	key, err := secret("api_key", p.APIKey)
	if err != nil {
		return err
	}
	p.provider = azure.New(azure.Config{
		APIKey:     key,
		Path:       p.Path,
		DropFields: p.DropFields,
		DropBetas:  p.DropBetas,
	})
	return nil
}

// Validate checks the configuration.
func (p *AzureProvider) Validate() error {
	if p.Path != "" && !strings.HasPrefix(p.Path, "/") {
		return fmt.Errorf("path: must start with /, got %q", p.Path)
	}
	for _, f := range p.DropFields {
		switch f {
		case "":
			return fmt.Errorf("drop_fields: empty field name")
		case "model", "messages":
			return fmt.Errorf("drop_fields: %q is required by Azure and cannot be dropped", f)
		}
	}
	for _, b := range p.DropBetas {
		if b == "" || strings.ContainsAny(b, ", ") {
			return fmt.Errorf("drop_betas: %q is not a single beta name", b)
		}
	}
	return nil
}

// Provider returns the provisioned provider.
func (p *AzureProvider) Provider() providers.Provider { return p.provider }

// SplitTagsByDefault is false: Claude on Azure has native thinking.
func (p *AzureProvider) SplitTagsByDefault() bool { return false }

// UnmarshalCaddyfile takes the provider's options from the thinkgate block:
//
//	api_key     <key>
//	path        <path>
//	drop_fields <name>...
//	drop_betas  <value>...
//
// drop_fields and drop_betas may repeat; their values add up.
func (p *AzureProvider) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
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
			if !strings.HasPrefix(v, "/") {
				return d.Errf("path: must start with /, got %q", v)
			}
			p.Path = v
		case "drop_fields":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return missingArg(d)
			}
			p.DropFields = append(p.DropFields, args...)
		case "drop_betas":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return missingArg(d)
			}
			p.DropBetas = append(p.DropBetas, args...)
		default:
			return UnknownOption(d, "azure", p)
		}
	}
	return nil
}

// Interface guards
var (
	_ caddy.Provisioner     = (*AzureProvider)(nil)
	_ caddy.Validator       = (*AzureProvider)(nil)
	_ caddyfile.Unmarshaler = (*AzureProvider)(nil)
	_ ProviderModule        = (*AzureProvider)(nil)
)
