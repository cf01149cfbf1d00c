package caddymodule

import (
	"fmt"
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/gemini"
)

func init() {
	caddy.RegisterModule(GeminiProvider{})
}

// GeminiProvider is the gemini provider: requests become Gemini API
// generateContent / streamGenerateContent / countTokens calls, and Gemini's
// thoughts come back as thinking blocks whose thoughtSignatures survive the
// client's history. reverse_proxy must point at the Gemini API host, e.g.
// generativelanguage.googleapis.com:443.
type GeminiProvider struct {
	// APIKey is sent as x-goog-api-key. Use {env.NAME}. Without it the
	// client's own key (x-api-key or Authorization: Bearer) is sent.
	APIKey string `json:"api_key,omitempty"`

	// APIVersion is v1beta (default) or v1.
	APIVersion string `json:"api_version,omitempty"`

	// ThinkingBudget is the thinkingBudget sent when thinking is on and the
	// request sets no budget_tokens. Default 1024; -1 lets the model decide.
	ThinkingBudget *int `json:"thinking_budget,omitempty"`

	// SchemaExpansion bounds each tool's input_schema, once reduced to
	// Gemini's Schema (every $ref inlined), to this many times the size the
	// client sent; a larger one is refused with 400. Default 32.
	SchemaExpansion int `json:"schema_expansion,omitempty"`

	// Thinking level options (docs/providers/gemini.md, "Thinking level").

	// ThinkingLevelModels are the model patterns (path.Match globs, on the
	// upstream model name) that take thinkingLevel instead of
	// thinkingBudget. Default gemini-3*.
	ThinkingLevelModels []string `json:"thinking_level_models,omitempty"`

	// ThinkingLevels maps budget_tokens to thinkingLevel; default low up
	// to 8192 tokens, high above.
	ThinkingLevels []providers.EffortStep `json:"thinking_levels,omitempty"`

	provider *gemini.Provider
}

// CaddyModule returns the Caddy module information.
func (GeminiProvider) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  providerNamespace + ".gemini",
		New: func() caddy.Module { return new(GeminiProvider) },
	}
}

// Provision resolves the key's placeholders and builds the provider.
func (p *GeminiProvider) Provision(ctx caddy.Context) error {
	key, err := secret("api_key", p.APIKey)
	if err != nil {
		return err
	}
	cfg := gemini.Config{APIKey: key, APIVersion: p.APIVersion}
	if p.ThinkingBudget != nil {
		cfg.ThinkingBudget = *p.ThinkingBudget
	}
	cfg.SchemaExpansion = p.SchemaExpansion
	cfg.ThinkingLevelModels, cfg.ThinkingLevels = p.ThinkingLevelModels, p.ThinkingLevels
	p.provider = gemini.New(cfg)
	return nil
}

// Validate checks the options.
func (p *GeminiProvider) Validate() error {
	switch p.APIVersion {
	case "", gemini.VersionV1Beta, gemini.VersionV1:
	default:
		return fmt.Errorf("api_version: must be v1beta or v1, got %q", p.APIVersion)
	}
	if b := p.ThinkingBudget; b != nil && *b < 1 && *b != -1 {
		return fmt.Errorf("thinking_budget: must be a positive number of tokens or -1 (dynamic), got %d", *b)
	}
	if p.SchemaExpansion < 0 {
		return fmt.Errorf("schema_expansion: must be a positive whole number, got %d", p.SchemaExpansion)
	}
	return gemini.Config{ThinkingLevelModels: p.ThinkingLevelModels, ThinkingLevels: p.ThinkingLevels}.Validate()
}

// Provider returns the provisioned provider.
func (p *GeminiProvider) Provider() providers.Provider { return p.provider }

// SplitTagsByDefault is false: Gemini has native thoughts.
func (p *GeminiProvider) SplitTagsByDefault() bool { return false }

// UnmarshalCaddyfile takes the provider's options from the thinkgate block:
//
//	thinkgate gemini {
//	    api_key         <key>          # sent as x-goog-api-key; use {env.NAME}
//	    api_version     v1beta|v1      # default v1beta
//	    thinking_budget <tokens>|-1    # budget when the request sets none, default 1024
//	    schema_expansion <n>           # a tool schema reduced (its $refs inlined) may
//	                                   # be at most n times its size, default 32
//	    thinking_level_models <glob>...   # models sent thinkingLevel, default gemini-3*;
//	                                      # none: every model gets thinkingBudget
//	    thinking_levels <level>:<max_budget>... <level>  # budget → thinkingLevel,
//	                                                     # default low:8192 high
//	}
func (p *GeminiProvider) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	for d.NextBlock(0) {
		switch d.Val() {
		case "api_key":
			v, err := ParseStringOption(d)
			if err != nil {
				return err
			}
			p.APIKey = v
		case "api_version":
			v, err := ParseStringOption(d)
			if err != nil {
				return err
			}
			if v != gemini.VersionV1Beta && v != gemini.VersionV1 {
				return d.Errf("api_version: must be v1beta or v1, got %q", v)
			}
			p.APIVersion = v
		case "thinking_budget":
			v, err := ParseStringOption(d)
			if err != nil {
				return err
			}
			n, err := strconv.Atoi(v)
			if err != nil || (n < 1 && n != -1) {
				return d.Errf("thinking_budget: must be a positive number of tokens or -1 (dynamic), got %q", v)
			}
			p.ThinkingBudget = &n
		case "schema_expansion":
			v, err := ParseStringOption(d)
			if err != nil {
				return err
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return d.Errf("schema_expansion: must be a positive whole number (default %d), got %q", gemini.DefaultSchemaExpansion, v)
			}
			p.SchemaExpansion = n
		case "thinking_level_models":
			models := d.RemainingArgs()
			if len(models) == 0 {
				return d.ArgErr()
			}
			if err := (gemini.Config{ThinkingLevelModels: models}).Validate(); err != nil {
				return d.Err(err.Error())
			}
			p.ThinkingLevelModels = models
		case "thinking_levels":
			words := d.RemainingArgs()
			if len(words) == 0 {
				return d.ArgErr()
			}
			steps, err := providers.ParseEffortSteps(words)
			if err != nil {
				return d.Errf("thinking_levels: %v", err)
			}
			if err := (gemini.Config{ThinkingLevels: steps}).Validate(); err != nil {
				return d.Err(err.Error())
			}
			p.ThinkingLevels = steps
		default:
			return UnknownOption(d, "gemini", p)
		}
	}
	return nil
}

// Interface guards
var (
	_ caddy.Provisioner     = (*GeminiProvider)(nil)
	_ caddy.Validator       = (*GeminiProvider)(nil)
	_ caddyfile.Unmarshaler = (*GeminiProvider)(nil)
	_ ProviderModule        = (*GeminiProvider)(nil)
)
