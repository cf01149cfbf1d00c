package caddymodule

import (
	"go.uber.org/zap"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/providers/vertex"
)

func init() {
	caddy.RegisterModule(VertexProvider{})
}

// VertexProvider is the vertex provider: Gemini and Claude on Google
// Vertex AI, with access tokens from the operator's Google credentials.
// reverse_proxy must point at the location's host, e.g.
// https://us-east5-aiplatform.googleapis.com (vertex.Host).
type VertexProvider struct {
	vertex.Config
	guest
}

// CaddyModule returns the Caddy module information.
func (VertexProvider) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  providerNamespace + ".vertex",
		New: func() caddy.Module { return new(VertexProvider) },
	}
}

// Provision loads the credentials (a file that cannot be used fails the
// load) and builds the provider. The access token is fetched at the first
// request, never logged, and not scrubbed from relayed text as a static
// api_key is: Google's answers do not echo it.
func (p *VertexProvider) Provision(ctx caddy.Context) error {
	cfg := p.Config
	if err := cfg.Required(); err != nil {
		return err
	}
	// The path may be a placeholder ({env.NAME}); set, it must resolve.
	file, err := secret("credentials_file", cfg.CredentialsFile)
	if err != nil {
		return err
	}
	cfg.CredentialsFile = file
	tokens, source, err := vertex.LoadCredentials(cfg)
	if err != nil {
		return err
	}
	ctx.Logger().Info("vertex: credentials loaded", zap.String("credentials", source),
		zap.String("project", cfg.Project), zap.String("location", cfg.Location))
	return provision(&p.guest, cfg, func(c vertex.Config) *vertex.Provider { return vertex.New(c, tokens) })
}

// ProviderInfo: split_tags is off by default, since Gemini and Claude
// think natively.
func (p *VertexProvider) ProviderInfo() ProviderInfo {
	return p.info(ProviderInfo{SplitTags: false, GenAIName: "gcp.vertex_ai"})
}

// UnmarshalCaddyfile takes the provider's options from the thinkgate block:
//
//	thinkgate vertex {
//	    project          <id>                 # the Google Cloud project; required
//	    location         <region>|global      # e.g. us-east5; required
//	    credentials_file <path>               # default: Application Default Credentials
//	    publisher        auto|google|anthropic   # default auto: claude* → anthropic
//	    token_timeout    <duration>           # bound of a token fetch, default 10s
//	    drop_betas       <value>...           # anthropic-beta values removed besides the defaults; * for all
//	    thinking_budget  <tokens>|-1          # Gemini: as for thinkgate gemini
//	    schema_expansion <n>
//	    thinking_level_models <glob>...
//	    thinking_levels  <level>:<max_budget>... <level>
//	}
func (p *VertexProvider) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	return unmarshalProviderOptions(d, p)
}

// Interface guard
var _ providerGuest = (*VertexProvider)(nil)
