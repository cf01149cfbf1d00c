// Package responses is the provider for the OpenAI Responses API
// (/v1/responses), where OpenAI's reasoning models (o-series, gpt-5 family)
// show their reasoning: as reasoning summaries, with an encrypted_content
// the model needs back to keep its reasoning across tool calls when nothing
// is stored on OpenAI's side.
//
// Three stages (docs/providers/responses.md): the Anthropic request becomes
// a Responses request (ConvertRequest), with thinking asked for as a
// reasoning effort and history thinking blocks that came from a Responses
// upstream restored as reasoning items; the upstream's typed events become
// Anthropic events (StreamTranslator), one thinking block per reasoning item signed
// with the item's id and encrypted_content inside the gateway's envelope;
// a non-streaming response object becomes an Anthropic Message by the same
// translator (Translator.Message).
package responses

import (
	"fmt"
	"strings"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/openai"
)

// DefaultPath is where the Responses API lives on OpenAI.
const DefaultPath = "/v1/responses"

// Values of Config.ReasoningSummary.
const (
	SummaryAuto     = "auto"
	SummaryConcise  = "concise"
	SummaryDetailed = "detailed"
	// SummaryOff asks for no summary: thinking blocks come back empty
	// (as redacted_thinking) but the reasoning is still kept.
	SummaryOff = "off"
)

// Config is the responses provider's own configuration.
type Config struct {
	// APIKey is sent as "Authorization: Bearer <key>"; empty sends none.
	APIKey string `json:"api_key,omitempty"`
	// Path is the upstream's Responses path, default DefaultPath. It may
	// carry a query (Azure OpenAI's ?api-version=…).
	Path string `json:"path,omitempty"`
	// Store asks the upstream to keep the response (store: true). Off by
	// default: the gateway keeps no state and sends the reasoning back
	// itself, encrypted.
	Store bool `json:"store,omitempty"`
	// ReasoningSummary is the reasoning.summary asked for: auto (default),
	// concise, detailed, or off.
	ReasoningSummary string `json:"reasoning_summary,omitempty"`
	// Efforts maps budget_tokens to reasoning.effort; empty means
	// providers.DefaultEfforts. Thinking on without a budget asks for
	// providers.DefaultEffort.
	Efforts []providers.EffortStep `json:"efforts,omitempty"`
	// PromptCacheKey is openai.PromptCacheAuto (default: send the client
	// session's keyed id as prompt_cache_key) or openai.PromptCacheOff.
	PromptCacheKey string `json:"prompt_cache_key,omitempty"`
}

// efforts are the values reasoning.effort takes (none: gpt-5.1 and later;
// minimal: gpt-5).
var efforts = []string{"none", "minimal", "low", "medium", "high"}

// Validate checks the configuration.
func (c Config) Validate() error {
	if c.Path != "" && !strings.HasPrefix(c.Path, "/") {
		return fmt.Errorf("path: must start with /, got %q", c.Path)
	}
	if err := openai.ValidatePromptCacheKey(c.PromptCacheKey); err != nil {
		return err
	}
	switch c.ReasoningSummary {
	case "", SummaryAuto, SummaryConcise, SummaryDetailed, SummaryOff:
	default:
		return fmt.Errorf("reasoning_summary: must be auto, concise, detailed or off, got %q", c.ReasoningSummary)
	}
	if err := providers.ValidateEffortSteps(c.Efforts, efforts...); err != nil {
		return fmt.Errorf("efforts: %v", err)
	}
	return nil
}
