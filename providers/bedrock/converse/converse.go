// Package converse converts Anthropic Messages requests into Amazon
// Bedrock's Converse API (converse, converse-stream, count-tokens) and its
// answers back. It knows nothing of paths, hosts or credentials: the bedrock
// provider sends what it converts.
//
// The request becomes Converse's messages, system, inferenceConfig and
// toolConfig; thinking is asked for through additionalModelRequestFields
// in the form of the model's family (family.go), and history thinking that
// Bedrock issued goes back as the reasoningContent it came as. The answer,
// an AWS event stream or a JSON document, goes through one translator
// into the emitter: reasoningContent becomes thinking blocks whose
// signature wraps Bedrock's in the gateway's envelope (origin Bedrock).
package converse

import (
	"fmt"

	"github.com/thinkgate/thinkgate/providers"
)

// Values of Options.CachePoints.
const (
	// CacheAuto sends cache points to the models that take them (Claude,
	// Nova).
	CacheAuto = "auto"
	CacheOn   = "on"
	CacheOff  = "off"
)

// Options are the Converse conversion's options; the bedrock provider's
// Config embeds them.
type Options struct {
	// ThinkingFamily names how the model is asked to think: claude, nova,
	// gpt-oss, deepseek or none. Empty: read from the model id, which an
	// application inference profile's ARN does not tell.
	ThinkingFamily string `json:"thinking_family,omitempty"`
	// Efforts maps budget_tokens to the effort Nova 2 and gpt-oss take
	// (low, medium, high), as openai's and responses' efforts do; empty
	// means providers.DefaultEfforts.
	Efforts []providers.EffortStep `json:"efforts,omitempty"`
	// CachePoints says where cache_control becomes a cachePoint: auto
	// (default), on or off.
	CachePoints string `json:"cache_points,omitempty"`
}

// Validate checks the options.
func (o Options) Validate() error {
	switch o.ThinkingFamily {
	case "", FamilyClaude, FamilyNova, FamilyGPTOSS, FamilyDeepSeek, FamilyNone:
	default:
		return fmt.Errorf("thinking_family: must be claude, nova, gpt-oss, deepseek or none, got %q", o.ThinkingFamily)
	}
	switch o.CachePoints {
	case "", CacheAuto, CacheOn, CacheOff:
	default:
		return fmt.Errorf("cache_points: must be auto, on or off, got %q", o.CachePoints)
	}
	if err := providers.ValidateEffortSteps(o.Efforts, efforts...); err != nil {
		return fmt.Errorf("efforts: %v", err)
	}
	return nil
}

// State is what the response to one converted request needs to know.
type State struct {
	// Family is the model family the request was converted for.
	Family string
}

// ConvertRequest converts x's request into a Converse request body (for
// count_tokens, a count-tokens body). betas are the client's anthropic-beta
// values, less those the provider drops: Claude takes them as
// additionalModelRequestFields.anthropic_beta, which is how interleaved
// thinking is asked for on Converse; the other families refuse fields they
// do not know and are sent none.
func ConvertRequest(x *providers.Exchange, opts Options, betas []string) ([]byte, *State, error) {
	return convert(x, opts, betas)
}

// NewTranslator returns the translator of the response to the request
// ConvertRequest converted.
func NewTranslator(x *providers.Exchange, st *State) providers.Translator {
	if st == nil {
		st = &State{}
	}
	return &Translator{x: x, st: st}
}
