package openai

import (
	"fmt"
	"strings"

	"github.com/thinkgate/thinkgate/providers"
)

// MaxQueuedLimit is the largest MaxQueued a configuration may set.
const MaxQueuedLimit = 1 << 30

// Config is the openai provider's own configuration. Its JSON form is the
// provider's part of a Caddy config.
type Config struct {
	// APIKey is sent as "Authorization: Bearer <key>". Empty sends no
	// Authorization header (local servers such as Ollama need none). In a
	// Caddy config, use {env.NAME}.
	APIKey string `json:"api_key,omitempty"`
	// Path is the upstream's Chat Completions path, default DefaultPath. It
	// may carry a query (Azure OpenAI's ?api-version=…).
	Path string `json:"path,omitempty"`
	// ReasoningHistory is how history thinking blocks go back:
	// HistoryContent (<thinking> tags at the start of the assistant
	// message, the default), HistoryReasoningContent (the field DeepSeek's
	// thinking mode demands), HistoryOpenRouter or HistoryMistral.
	ReasoningHistory string `json:"reasoning_history,omitempty"`
	// ThinkingMode is how thinking is asked for: ModeHint (default),
	// ModeEffort, ModeBoth, ModeOpenRouter or ModeNone.
	ThinkingMode string `json:"thinking_mode,omitempty"`
	// Efforts maps budget_tokens to reasoning_effort (and to OpenRouter's
	// effort when the request has no budget); empty means
	// providers.DefaultEfforts.
	Efforts []providers.EffortStep `json:"efforts,omitempty"`
	// MaxTokensField names the field max_tokens is sent as: MaxTokens
	// (default) or MaxCompletionTokens, which OpenAI's reasoning models
	// require.
	MaxTokensField string `json:"max_tokens_field,omitempty"`
	// MaxQueued bounds, in bytes, the text, reasoning and other tool calls'
	// arguments a stream holds back while one tool call's arguments are
	// incomplete; past it the stream ends with an error event. 0 means
	// DefaultMaxQueued (16 MiB); at most MaxQueuedLimit (1 GiB).
	MaxQueued int `json:"max_queued,omitempty"`
	// PromptCacheKey is PromptCacheAuto (default: send the client
	// session's keyed id as prompt_cache_key) or PromptCacheOff.
	PromptCacheKey string `json:"prompt_cache_key,omitempty"`
}

// Validate checks the configuration.
func (c Config) Validate() error {
	if c.Path != "" && !strings.HasPrefix(c.Path, "/") {
		return fmt.Errorf("path: must start with /, got %q", c.Path)
	}
	switch c.ReasoningHistory {
	case "", HistoryContent, HistoryReasoningContent, HistoryOpenRouter, HistoryMistral:
	default:
		return fmt.Errorf("reasoning_history: must be %s, %s, %s or %s, got %q",
			HistoryContent, HistoryReasoningContent, HistoryOpenRouter, HistoryMistral, c.ReasoningHistory)
	}
	switch c.ThinkingMode {
	case "", ModeHint, ModeEffort, ModeBoth, ModeOpenRouter, ModeNone:
	default:
		return fmt.Errorf("thinking_mode: must be %s, %s, %s, %s or %s, got %q",
			ModeHint, ModeEffort, ModeBoth, ModeOpenRouter, ModeNone, c.ThinkingMode)
	}
	if err := providers.ValidateEffortSteps(c.Efforts, chatEfforts...); err != nil {
		return fmt.Errorf("efforts: %v", err)
	}
	if c.MaxQueued < 0 || c.MaxQueued > MaxQueuedLimit {
		return fmt.Errorf("max_queued: must be between 1B and 1GiB, got %d", c.MaxQueued)
	}
	if err := ValidatePromptCacheKey(c.PromptCacheKey); err != nil {
		return err
	}
	switch c.MaxTokensField {
	case "", MaxTokens, MaxCompletionTokens:
	default:
		return fmt.Errorf("max_tokens_field: must be %s or %s, got %q", MaxTokens, MaxCompletionTokens, c.MaxTokensField)
	}
	return nil
}
