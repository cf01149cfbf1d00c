package caddymodule

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/providers"
)

// A model card (model_info) declares what a model the site serves can do,
// in the terms of Anthropic's Models API: GET /v1/models reports it, and
// every request for the model is held to it before conversion
// (cardrequest.go). A card is what the operator declares; nothing is
// guessed from model names.

// ModelCard is one model_info block.
type ModelCard struct {
	// Model is the client-side model name the card describes; a glob
	// (as in model rules) describes every name it matches. The first card
	// whose pattern matches a name is that name's card.
	Model string `json:"model"`

	// DisplayName is the models list's display_name; default the name.
	DisplayName string `json:"display_name,omitempty"`

	// CreatedAt is the models list's created_at, RFC 3339; default the
	// Unix epoch, as Anthropic gives for an unknown release date.
	CreatedAt string `json:"created_at,omitempty"`

	// MaxInputTokens is the model's context window, as listed.
	MaxInputTokens int64 `json:"max_input_tokens"`

	// MaxTokens is the largest max_tokens the model takes: a request
	// asking for more is lowered to it.
	MaxTokens int64 `json:"max_tokens"`

	// Effort is the output_config.effort levels the model takes (low,
	// medium, high, xhigh, max); none: a request with an effort is
	// refused. max on a card without it becomes the highest level listed.
	Effort []string `json:"effort,omitempty"`

	// Thinking is the thinking types the model takes (enabled, adaptive).
	Thinking []string `json:"thinking,omitempty"`

	// Input is the kinds of content beyond text the model takes (image,
	// pdf); a request holding another is refused.
	Input []string `json:"input,omitempty"`

	// StructuredOutputs: the model takes output_config.format; without
	// it a request that sets a format is refused.
	StructuredOutputs bool `json:"structured_outputs,omitempty"`
}

// effortLevels are Anthropic's effort levels, lowest first: "the
// highest level a card lists" is the last of these it lists.
var effortLevels = []string{"low", "medium", "high", "xhigh", "max"}

// cardThinkingTypes are the thinking types a card may list: the ones the
// gateway translates. disabled is always taken (the gateway can always
// send a request without thinking); between_tools never is.
var cardThinkingTypes = []string{"enabled", "adaptive"}

// cardInputs are the content kinds a card may list.
var cardInputs = []string{"image", "pdf"}

// cardOptions are model_info's sub-options, for the unknown-option error.
var cardOptions = []string{"display_name", "created_at", "max_input_tokens", "max_tokens", "effort", "thinking", "input", "structured_outputs"}

// check reports what is wrong with the card, naming the option.
func (c *ModelCard) check() error {
	if c.Model == "" {
		return fmt.Errorf("model_info: needs a model name or pattern")
	}
	if err := providers.CheckModelGlob(c.Model); err != nil {
		return fmt.Errorf("model_info %s: bad pattern: %v", c.Model, err)
	}
	if c.MaxInputTokens <= 0 {
		return fmt.Errorf("model_info %s: max_input_tokens is required, a positive number of tokens", c.Model)
	}
	if c.MaxTokens <= 0 {
		return fmt.Errorf("model_info %s: max_tokens is required, a positive number of tokens", c.Model)
	}
	if c.CreatedAt != "" {
		if _, err := time.Parse(time.RFC3339, c.CreatedAt); err != nil {
			return fmt.Errorf("model_info %s: created_at: %q is not an RFC 3339 time such as 2025-09-29T00:00:00Z", c.Model, c.CreatedAt)
		}
	}
	for _, l := range []struct {
		option string
		values []string
		valid  []string
	}{
		{"effort", c.Effort, effortLevels},
		{"thinking", c.Thinking, cardThinkingTypes},
		{"input", c.Input, cardInputs},
	} {
		for i, v := range l.values {
			if !slices.Contains(l.valid, v) {
				return fmt.Errorf("model_info %s: %s: unknown value %q; valid: %s", c.Model, l.option, v, strings.Join(l.valid, ", "))
			}
			if slices.Contains(l.values[:i], v) {
				return fmt.Errorf("model_info %s: %s: %q is listed twice", c.Model, l.option, v)
			}
		}
	}
	return nil
}

// has reports whether the card lists v in values.
func has(values []string, v string) bool { return slices.Contains(values, v) }

// highestEffort is the highest effort level the card lists, "" for none.
func (c *ModelCard) highestEffort() string {
	for i := len(effortLevels) - 1; i >= 0; i-- {
		if has(c.Effort, effortLevels[i]) {
			return effortLevels[i]
		}
	}
	return ""
}

// cardFor returns the first card whose pattern matches the client-side
// model name, nil for none.
func (h *Handler) cardFor(model string) *ModelCard {
	for i := range h.ModelInfo {
		if _, ok := providers.MatchModel(h.ModelInfo[i].Model, model); ok {
			return &h.ModelInfo[i]
		}
	}
	return nil
}

// parseModelInfo reads a model_info block:
//
//	model_info <model-glob> {
//	    display_name       <text>
//	    created_at         <RFC 3339 time>
//	    max_input_tokens   <tokens>
//	    max_tokens         <tokens>
//	    effort             <level>...   # low medium high xhigh max
//	    thinking           <type>...    # enabled adaptive
//	    input              <kind>...    # image pdf
//	    structured_outputs
//	}
func parseModelInfo(d *caddyfile.Dispenser) (ModelCard, error) {
	var c ModelCard
	if !d.NextArg() {
		return c, d.Err("model_info: expected a model name or pattern, then a block")
	}
	c.Model = d.Val()
	if d.NextArg() {
		return c, d.Errf("model_info %s: expected a block after the name, got %q", c.Model, d.Val())
	}
	seen := map[string]bool{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		opt := d.Val()
		if seen[opt] {
			return c, d.Errf("model_info %s: %s is set twice", c.Model, opt)
		}
		seen[opt] = true
		args := d.RemainingArgs()
		one := func() (string, error) {
			if len(args) != 1 {
				return "", d.Errf("model_info %s: %s: expected one value, got %d", c.Model, opt, len(args))
			}
			return args[0], nil
		}
		tokens := func() (int64, error) {
			v, err := one()
			if err != nil {
				return 0, err
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return 0, d.Errf("model_info %s: %s: %q is not a positive whole number of tokens", c.Model, opt, v)
			}
			return n, nil
		}
		list := func() ([]string, error) {
			if len(args) == 0 {
				return nil, d.Errf("model_info %s: %s: expected at least one value", c.Model, opt)
			}
			return args, nil
		}
		var err error
		switch opt {
		case "display_name":
			c.DisplayName, err = one()
		case "created_at":
			c.CreatedAt, err = one()
		case "max_input_tokens":
			c.MaxInputTokens, err = tokens()
		case "max_tokens":
			c.MaxTokens, err = tokens()
		case "effort":
			c.Effort, err = list()
		case "thinking":
			c.Thinking, err = list()
		case "input":
			c.Input, err = list()
		case "structured_outputs":
			if len(args) != 0 {
				return c, d.Errf("model_info %s: structured_outputs takes no value", c.Model)
			}
			c.StructuredOutputs = true
		default:
			return c, d.Errf("model_info %s: unknown option %q; valid: %s", c.Model, opt, strings.Join(cardOptions, ", "))
		}
		if err != nil {
			return c, err
		}
	}
	if err := c.check(); err != nil {
		return c, d.WrapErr(err)
	}
	return c, nil
}
