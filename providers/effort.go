package providers

import (
	"fmt"
	"strconv"
	"strings"
)

// EffortStep is one row of the table that turns a thinking budget into a
// reasoning effort (or a level): budgets up to MaxBudget tokens, inclusive,
// take Effort. A MaxBudget of 0 takes every larger budget; it ends a table.
type EffortStep struct {
	Effort    string `json:"effort"`
	MaxBudget int    `json:"max_budget,omitempty"`
}

// DefaultEfforts is the budget → reasoning effort table of upstreams that
// take an effort (OpenAI's reasoning_effort, the Responses API's
// reasoning.effort, OpenRouter's reasoning.effort): up to 4096 tokens low,
// up to 16384 medium, above that high. "minimal" is left out because the
// o-series models reject it; a table may name it.
var DefaultEfforts = []EffortStep{
	{Effort: "low", MaxBudget: 4096},
	{Effort: "medium", MaxBudget: 16384},
	{Effort: "high"},
}

// DefaultEffort is the effort of thinking that is on without a budget
// (thinking: true, adaptive, or on by default_thinking).
const DefaultEffort = "medium"

// ReasoningEffort returns the effort for a request's thinking: "" when
// thinking is off (the caller sends no effort, or its own "off" value);
// DefaultEffort when it is on without a budget (budget <= 0); otherwise the
// first step of steps (DefaultEfforts when empty) whose MaxBudget holds
// budget, or the last step when none does.
func ReasoningEffort(budget int, thinkingOn bool, steps []EffortStep) string {
	if !thinkingOn {
		return ""
	}
	if budget <= 0 {
		return DefaultEffort
	}
	if len(steps) == 0 {
		steps = DefaultEfforts
	}
	for _, s := range steps {
		if s.MaxBudget == 0 || budget <= s.MaxBudget {
			return s.Effort
		}
	}
	return steps[len(steps)-1].Effort
}

// ThinkingBudget returns the request's budget_tokens when thinking is on
// with one, else 0.
func (x *Exchange) ThinkingBudget() int {
	if !x.Thinking || x.Request == nil {
		return 0
	}
	t := x.Request.Thinking
	if t.Type == "enabled" && t.BudgetTokens > 0 {
		return t.BudgetTokens
	}
	return 0
}

// ValidateEffortSteps checks a table: every effort one of allowed, budgets
// rising, and only the last step open-ended.
func ValidateEffortSteps(steps []EffortStep, allowed ...string) error {
	prev := 0
	for i, s := range steps {
		ok := false
		for _, a := range allowed {
			ok = ok || s.Effort == a
		}
		if !ok {
			return fmt.Errorf("step %d: effort must be one of %s, got %q", i, strings.Join(allowed, ", "), s.Effort)
		}
		switch {
		case s.MaxBudget < 0:
			return fmt.Errorf("step %d (%s): budget must not be negative", i, s.Effort)
		case s.MaxBudget == 0 && i != len(steps)-1:
			return fmt.Errorf("step %d (%s): only the last step may be without a budget", i, s.Effort)
		case s.MaxBudget != 0 && s.MaxBudget <= prev:
			return fmt.Errorf("step %d (%s): budgets must rise, %d follows %d", i, s.Effort, s.MaxBudget, prev)
		}
		prev = s.MaxBudget
	}
	return nil
}

// ParseEffortSteps reads a table written as words "effort:max_budget", the
// last one maybe a bare "effort": e.g. "low:4096 medium:16384 high".
func ParseEffortSteps(words []string) ([]EffortStep, error) {
	steps := make([]EffortStep, 0, len(words))
	for _, w := range words {
		effort, budget, hasBudget := strings.Cut(w, ":")
		s := EffortStep{Effort: effort}
		if hasBudget {
			n, err := strconv.Atoi(budget)
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("%q: the budget after the colon must be a positive number of tokens", w)
			}
			s.MaxBudget = n
		}
		steps = append(steps, s)
	}
	return steps, nil
}
