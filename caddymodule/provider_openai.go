package caddymodule

import (
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

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
	openai.Config
	guest
}

// CaddyModule returns the Caddy module information.
func (OpenAIProvider) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  providerNamespace + ".openai",
		New: func() caddy.Module { return new(OpenAIProvider) },
	}
}

// Provision resolves the key's placeholders and builds the provider.
func (p *OpenAIProvider) Provision(caddy.Context) error {
	return provision(&p.guest, p.Config, openai.New)
}

// ProviderInfo: split_tags is on by default, since prompted models write
// their thinking in tags.
func (p *OpenAIProvider) ProviderInfo() ProviderInfo {
	return p.info(ProviderInfo{SplitTags: true, GenAIName: "openai"})
}

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
	return unmarshalProviderOptions(d, p)
}

// Interface guard
var _ providerGuest = (*OpenAIProvider)(nil)
