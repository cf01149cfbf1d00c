package openai

import (
	"fmt"

	"github.com/thinkgate/thinkgate/providers"
)

// The values of the prompt_cache_key option (openai and responses).
const (
	PromptCacheAuto = "auto"
	PromptCacheOff  = "off"
)

// ValidatePromptCacheKey checks a prompt_cache_key option.
func ValidatePromptCacheKey(mode string) error {
	switch mode {
	case "", PromptCacheAuto, PromptCacheOff:
		return nil
	}
	return fmt.Errorf("prompt_cache_key: must be %s or %s, got %q", PromptCacheAuto, PromptCacheOff, mode)
}

// PromptCacheKey is the prompt_cache_key to send for x: the client
// session's keyed id, so that OpenAI routes one session's requests to the
// same prompt cache; "" with the option off or when the gateway knows no
// session (the field is then left out).
func PromptCacheKey(x *providers.Exchange, mode string) string {
	if mode == PromptCacheOff {
		return ""
	}
	return x.SessionKey
}
