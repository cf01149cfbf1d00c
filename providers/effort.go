package providers

import "fmt"

// EffortRule maps thinking budgets up to UpTo tokens (inclusive) to a
// reasoning effort. A rule with UpTo 0 takes every budget; rules are tried
// in order and the first that takes the budget wins.
type EffortRule struct {
	UpTo   int    `json:"up_to,omitempty"`
	Effort string `json:"effort"`
}

// DefaultEffortRules is the mapping of docs/providers/responses.md: the
// budgets Claude Code's "think", "think hard" and "ultrathink" ask for
// (4 000, 10 000, 31 999) land on low, medium and high.
var DefaultEffortRules = []EffortRule{
	{UpTo: 4096, Effort: "low"},
	{UpTo: 16384, Effort: "medium"},
	{Effort: "high"},
}

// DefaultEffort is the effort of a request whose thinking is on without a
// budget (adaptive thinking, thinking: true, or default_thinking).
const DefaultEffort = "medium"

// Efforts are the reasoning efforts OpenAI's reasoning models take
// (none: gpt-5.1 and later; minimal: gpt-5).
var Efforts = []string{"none", "minimal", "low", "medium", "high"}

// ReasoningEffort returns the reasoning effort for a request whose thinking
// is on: the first of rules (DefaultEffortRules when empty) that takes the
// request's budget_tokens, or fallback (DefaultEffort when empty) when the
// request names no budget. It is the one mapping from Anthropic's thinking
// budget to OpenAI's effort.
func ReasoningEffort(t ThinkingParam, rules []EffortRule, fallback string) string {
	if t.BudgetTokens <= 0 {
		if fallback == "" {
			return DefaultEffort
		}
		return fallback
	}
	if len(rules) == 0 {
		rules = DefaultEffortRules
	}
	for _, r := range rules {
		if r.UpTo == 0 || t.BudgetTokens <= r.UpTo {
			return r.Effort
		}
	}
	return rules[len(rules)-1].Effort
}

// ValidEffort reports an error unless e is one of Efforts.
func ValidEffort(e string) error {
	for _, v := range Efforts {
		if e == v {
			return nil
		}
	}
	return fmt.Errorf("must be one of none, minimal, low, medium, high, got %q", e)
}

// ValidateEffortRules checks a mapping: known efforts, bounds that rise,
// and only the last rule without a bound.
func ValidateEffortRules(rules []EffortRule) error {
	prev := 0
	for i, r := range rules {
		if err := ValidEffort(r.Effort); err != nil {
			return fmt.Errorf("rule %d: effort %v", i+1, err)
		}
		if r.UpTo < 0 {
			return fmt.Errorf("rule %d: up_to must not be negative", i+1)
		}
		if r.UpTo == 0 && i != len(rules)-1 {
			return fmt.Errorf("rule %d: only the last rule may go without a budget bound", i+1)
		}
		if r.UpTo != 0 && r.UpTo <= prev {
			return fmt.Errorf("rule %d: bounds must rise, %d after %d", i+1, r.UpTo, prev)
		}
		prev = r.UpTo
	}
	return nil
}
