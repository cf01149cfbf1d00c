package caddymodule

import (
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/openai"
)

func init() {
	caddy.RegisterModule(OpenAIProvider{})
}

// OpenAIProvider is the openai provider: requests are converted to the Chat
// Completions API of an OpenAI-compatible server (OpenAI, DeepSeek, vLLM,
// OpenRouter, Ollama, LM Studio …), and its answers back to Anthropic
// Messages, with the model's <thinking> tags and reasoning fields as
// thinking blocks.
type OpenAIProvider struct {
	// APIKey is sent upstream as "Authorization: Bearer <key>". Use
	// {env.NAME}. Without it no Authorization header is sent.
	APIKey string `json:"api_key,omitempty"`

	// Path is the upstream's Chat Completions path (default
	// /v1/chat/completions); it may carry a query.
	Path string `json:"path,omitempty"`

	// ReasoningHistory is how history thinking blocks go back: "content"
	// (<thinking> tags at the start of the assistant message, the default)
	// or "reasoning_content" (the field DeepSeek's thinking mode demands).
	ReasoningHistory string `json:"reasoning_history,omitempty"`

	// MaxTokensField is the field max_tokens is sent as: "max_tokens"
	// (default) or "max_completion_tokens" (OpenAI's reasoning models).
	MaxTokensField string `json:"max_tokens_field,omitempty"`

	// MaxQueued bounds, in bytes, the output a stream holds back while a
	// tool call's arguments are incomplete; past it the stream ends with an
	// error event. Default 16 MiB.
	MaxQueued int `json:"max_queued,omitempty"`

	// Reasoning options (docs/providers/openai.md, "Asking for thinking").

	// ThinkingMode is how thinking is asked for: "hint" (default), "effort"
	// (reasoning_effort), "both", "openrouter" (OpenRouter's reasoning
	// object) or "none".
	ThinkingMode string `json:"thinking_mode,omitempty"`

	// Efforts maps budget_tokens to reasoning_effort; default low up to
	// 4096 tokens, medium up to 16384, high above.
	Efforts []providers.EffortStep `json:"efforts,omitempty"`

	provider *openai.Provider
}

// CaddyModule returns the Caddy module information.
func (OpenAIProvider) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  providerNamespace + ".openai",
		New: func() caddy.Module { return new(OpenAIProvider) },
	}
}

func (p *OpenAIProvider) config() openai.Config {
	return openai.Config{
		APIKey:           resolveSecret(p.APIKey),
		Path:             p.Path,
		ReasoningHistory: p.ReasoningHistory,
		MaxTokensField:   p.MaxTokensField,
		MaxQueued:        p.MaxQueued,
		ThinkingMode:     p.ThinkingMode,
		Efforts:          p.Efforts,
	}
}

// Provision resolves the key's placeholders and builds the provider.
func (p *OpenAIProvider) Provision(ctx caddy.Context) error {
	cfg := p.config()
	key, err := secret("api_key", p.APIKey)
	if err != nil {
		return err
	}
	cfg.APIKey = key
	if err := cfg.Validate(); err != nil {
		return err
	}
	p.provider = openai.New(cfg)
	return nil
}

// Validate checks the options.
func (p *OpenAIProvider) Validate() error { return p.config().Validate() }

// Provider returns the provisioned provider.
func (p *OpenAIProvider) Provider() providers.Provider { return p.provider }

// SplitTagsByDefault is true: prompted models write their thinking in tags.
func (p *OpenAIProvider) SplitTagsByDefault() bool { return true }

// UnmarshalCaddyfile takes the provider's options from the thinkgate block:
//
//	thinkgate openai {
//	    api_key           <key>                        # Bearer key; use {env.NAME}
//	    path              <path>                       # default /v1/chat/completions
//	    reasoning_history content|reasoning_content    # default content
//	    max_tokens_field  max_tokens|max_completion_tokens  # default max_tokens
//	    max_queued        <size>                       # held back while a tool call is open, default 16MiB
//	    thinking_mode     hint|effort|both|openrouter|none  # how thinking is asked for, default hint
//	    efforts           <effort>:<max_budget>... <effort>  # budget → reasoning_effort,
//	                                                   # default low:4096 medium:16384 high
//	}
//
// reasoning_history also takes openrouter (reasoning_details go back) and
// mistral (thinking chunks go back).
func (p *OpenAIProvider) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	for d.NextBlock(0) {
		opt := d.Val()
		var dst *string
		switch opt {
		case "api_key":
			dst = &p.APIKey
		case "path":
			dst = &p.Path
		case "reasoning_history":
			dst = &p.ReasoningHistory
		case "max_tokens_field":
			dst = &p.MaxTokensField
		case "thinking_mode":
			dst = &p.ThinkingMode
		case "efforts":
			words := d.RemainingArgs()
			if len(words) == 0 {
				return d.ArgErr()
			}
			steps, err := providers.ParseEffortSteps(words)
			if err != nil {
				return d.Errf("efforts: %v", err)
			}
			if err := (openai.Config{Efforts: steps}).Validate(); err != nil {
				return d.Err(err.Error())
			}
			p.Efforts = steps
			continue
		case "max_queued":
			n, err := parseSize(d)
			if err != nil {
				return err
			}
			if n <= 0 || n > 1<<30 {
				return d.Errf("max_queued: must be between 1B and 1GiB")
			}
			p.MaxQueued = int(n)
			continue
		default:
			return UnknownOption(d, "openai", p)
		}
		v, err := ParseStringOption(d)
		if err != nil {
			return err
		}
		*dst = v
		// Checked here, while the cursor is on the option, so that the
		// error carries the option's line.
		if err := (openai.Config{Path: p.Path, ReasoningHistory: p.ReasoningHistory, MaxTokensField: p.MaxTokensField,
			ThinkingMode: p.ThinkingMode}).Validate(); err != nil {
			return d.Err(err.Error())
		}
	}
	return nil
}

// Interface guards
var (
	_ caddy.Provisioner     = (*OpenAIProvider)(nil)
	_ caddy.Validator       = (*OpenAIProvider)(nil)
	_ caddyfile.Unmarshaler = (*OpenAIProvider)(nil)
	_ ProviderModule        = (*OpenAIProvider)(nil)
)
