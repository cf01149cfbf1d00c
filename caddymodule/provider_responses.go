package caddymodule

import (
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/responses"
)

func init() {
	caddy.RegisterModule(ResponsesProvider{})
}

// ResponsesProvider is the responses provider: requests are converted to
// OpenAI's Responses API (/v1/responses), where OpenAI's reasoning models
// show their reasoning, and its answers back to Anthropic Messages, with
// reasoning summaries as signed thinking blocks that carry the encrypted
// reasoning back on the next turn.
type ResponsesProvider struct {
	// APIKey is sent upstream as "Authorization: Bearer <key>". Use
	// {env.NAME}. Without it no Authorization header is sent.
	APIKey string `json:"api_key,omitempty"`

	// Path is the upstream's Responses path (default /v1/responses); it
	// may carry a query.
	Path string `json:"path,omitempty"`

	// Store sends store: true, asking the upstream to keep responses.
	// Default false: the reasoning goes back encrypted in the history.
	Store bool `json:"store,omitempty"`

	// ReasoningSummary is the reasoning summary asked for when thinking
	// is on: auto (default), concise, detailed, or off.
	ReasoningSummary string `json:"reasoning_summary,omitempty"`

	// EffortMap maps the request's budget_tokens to reasoning.effort: the
	// first rule whose up_to the budget does not pass wins, a rule
	// without up_to takes the rest. Default: up to 4096 low, up to 16384
	// medium, above high.
	EffortMap []providers.EffortRule `json:"effort_map,omitempty"`

	// DefaultEffort is the effort when thinking is on without a budget
	// (adaptive thinking, default_thinking). Default medium.
	DefaultEffort string `json:"default_effort,omitempty"`

	provider *responses.Provider
}

// CaddyModule returns the Caddy module information.
func (ResponsesProvider) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  providerNamespace + ".responses",
		New: func() caddy.Module { return new(ResponsesProvider) },
	}
}

func (p *ResponsesProvider) config() responses.Config {
	return responses.Config{
		APIKey:           resolveSecret(p.APIKey),
		Path:             p.Path,
		Store:            p.Store,
		ReasoningSummary: p.ReasoningSummary,
		EffortMap:        p.EffortMap,
		DefaultEffort:    p.DefaultEffort,
	}
}

// Provision resolves the key's placeholders and builds the provider.
func (p *ResponsesProvider) Provision(ctx caddy.Context) error {
	cfg := p.config()
	key, err := secret("api_key", p.APIKey)
	if err != nil {
		return err
	}
	cfg.APIKey = key
	if err := cfg.Validate(); err != nil {
		return err
	}
	p.provider = responses.New(cfg)
	return nil
}

// Validate checks the options.
func (p *ResponsesProvider) Validate() error { return p.config().Validate() }

// Provider returns the provisioned provider.
func (p *ResponsesProvider) Provider() providers.Provider { return p.provider }

// SplitTagsByDefault is false: the models reason natively.
func (p *ResponsesProvider) SplitTagsByDefault() bool { return false }

// UnmarshalCaddyfile takes the provider's options from the thinkgate block:
//
//	thinkgate responses {
//	    api_key           <key>                          # Bearer key; use {env.NAME}
//	    path              <path>                         # default /v1/responses
//	    store             [on|off]                       # default off
//	    reasoning_summary auto|concise|detailed|off      # default auto
//	    effort_map        <up_to>:<effort>... [<effort>] # default 4096:low 16384:medium high
//	    default_effort    <effort>                       # thinking on without a budget, default medium
//	}
//
// An effort is none, minimal, low, medium or high.
func (p *ResponsesProvider) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	for d.NextBlock(0) {
		opt := d.Val()
		var dst *string
		switch opt {
		case "api_key":
			dst = &p.APIKey
		case "path":
			dst = &p.Path
		case "reasoning_summary":
			dst = &p.ReasoningSummary
		case "default_effort":
			dst = &p.DefaultEffort
		case "store":
			v, err := parseOnOff(d, true)
			if err != nil {
				return err
			}
			p.Store = v
			continue
		case "effort_map":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return missingArg(d)
			}
			p.EffortMap = p.EffortMap[:0]
			for _, a := range args {
				r := providers.EffortRule{Effort: a}
				if bound, effort, ok := strings.Cut(a, ":"); ok {
					n, err := strconv.Atoi(bound)
					if err != nil || n <= 0 {
						return d.Errf("effort_map: %q: the budget before ':' must be a positive number of tokens", a)
					}
					r = providers.EffortRule{UpTo: n, Effort: effort}
				}
				p.EffortMap = append(p.EffortMap, r)
			}
			if err := (responses.Config{EffortMap: p.EffortMap}).Validate(); err != nil {
				return d.Err(err.Error())
			}
			continue
		default:
			return UnknownOption(d, "responses", p)
		}
		v, err := ParseStringOption(d)
		if err != nil {
			return err
		}
		*dst = v
		// Checked here, while the cursor is on the option, so that the
		// error carries the option's line.
		if err := (responses.Config{Path: p.Path, ReasoningSummary: p.ReasoningSummary, DefaultEffort: p.DefaultEffort}).Validate(); err != nil {
			return d.Err(err.Error())
		}
	}
	return nil
}

// Interface guards
var (
	_ caddy.Provisioner     = (*ResponsesProvider)(nil)
	_ caddy.Validator       = (*ResponsesProvider)(nil)
	_ caddyfile.Unmarshaler = (*ResponsesProvider)(nil)
	_ ProviderModule        = (*ResponsesProvider)(nil)
)
