package caddymodule

import (
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

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
	gemini.Config
	guest
}

// CaddyModule returns the Caddy module information.
func (GeminiProvider) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  providerNamespace + ".gemini",
		New: func() caddy.Module { return new(GeminiProvider) },
	}
}

// Provision resolves the key's placeholders and builds the provider.
func (p *GeminiProvider) Provision(caddy.Context) error {
	return provision(&p.guest, p.Config, gemini.New)
}

// ProviderInfo: split_tags is off by default, since Gemini has native
// thoughts.
func (p *GeminiProvider) ProviderInfo() ProviderInfo {
	return p.info(ProviderInfo{SplitTags: false, GenAIName: "gcp.gemini"})
}

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
	return unmarshalProviderOptions(d, p)
}

// Interface guard
var _ providerGuest = (*GeminiProvider)(nil)
