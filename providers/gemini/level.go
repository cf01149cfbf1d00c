package gemini

import (
	"fmt"
	"path"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// DefaultThinkingLevelModels are the models that take thinkingLevel rather
// than thinkingBudget: the Gemini 3 family.
var DefaultThinkingLevelModels = []string{"gemini-3*"}

// DefaultThinkingLevels maps a thinking budget to a thinkingLevel: up to
// 8192 tokens low, above that high (the two levels every Gemini 3 model takes).
var DefaultThinkingLevels = []providers.EffortStep{
	{Effort: "low", MaxBudget: 8192},
	{Effort: "high"},
}

// thinkingLevels are the values of thinkingLevel.
var thinkingLevels = []string{"minimal", "low", "medium", "high"}

// levelOff is the level of a request with thinking off: Gemini 3 models
// cannot stop thinking, so they think least and show none of it.
const levelOff = "low"

// validateLevels checks the level options.
func validateLevels(models []string, levels []providers.EffortStep) error {
	for _, m := range models {
		if _, err := path.Match(m, ""); err != nil {
			return fmt.Errorf("thinking_level_models: bad pattern %q", m)
		}
	}
	if err := providers.ValidateEffortSteps(levels, thinkingLevels...); err != nil {
		return fmt.Errorf("thinking_levels: %v", err)
	}
	return nil
}

// levelsFor is the provider's conversion's levelsFor.
func (p *Provider) levelsFor(model string) []providers.EffortStep { return p.cfg.levelsFor(model) }

// levelsFor returns the budget → level table for model, or nil when the
// model takes thinkingBudget.
func (c Conversion) levelsFor(model string) []providers.EffortStep {
	for _, m := range c.ThinkingLevelModels {
		if ok, _ := path.Match(m, model); ok {
			return c.ThinkingLevels
		}
	}
	return nil
}

// levelConfigFor maps the request's thinking field to thinkingLevel, the
// same decisions as thinkingConfigFor with the budget read through levels:
// a budget (the request's, or the provider's thinking_budget) becomes the
// level the table gives it; adaptive and a thinking_budget of -1 send no
// level (the model's own, dynamic); thinking off sends levelOff with no
// thoughts shown.
func levelConfigFor(t wire.ThinkingParam, defaultOn bool, budget int, levels []providers.EffortStep) *thinkingConfig {
	on := func(n int) *thinkingConfig {
		c := &thinkingConfig{IncludeThoughts: t.Display != "omitted"}
		if n > 0 {
			c.ThinkingLevel = providers.ReasoningEffort(n, true, levels)
		}
		return c
	}
	off := &thinkingConfig{IncludeThoughts: false, ThinkingLevel: levelOff}
	switch {
	case !t.Present:
		if !defaultOn {
			return &thinkingConfig{IncludeThoughts: false}
		}
		return on(budget)
	case t.Bool != nil:
		if *t.Bool {
			return on(budget)
		}
		return off
	}
	switch t.Type {
	case "disabled":
		return off
	case "adaptive":
		return on(-1)
	}
	if t.BudgetTokens > 0 {
		return on(t.BudgetTokens)
	}
	return on(budget)
}
