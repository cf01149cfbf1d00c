package providers

import (
	"strings"
	"testing"
)

func TestReasoningEffort(t *testing.T) {
	custom, err := ParseEffortSteps([]string{"minimal:1024", "low:2048", "high"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		budget int
		on     bool
		steps  []EffortStep
		want   string
	}{
		{budget: 2048, on: false, want: ""},
		{budget: 0, on: true, want: "medium"},
		{budget: 1024, on: true, want: "low"},
		{budget: 4096, on: true, want: "low"},
		{budget: 4097, on: true, want: "medium"},
		{budget: 16384, on: true, want: "medium"},
		{budget: 16385, on: true, want: "high"},
		{budget: 1 << 20, on: true, want: "high"},
		{budget: 1024, on: true, steps: custom, want: "minimal"},
		{budget: 1025, on: true, steps: custom, want: "low"},
		{budget: 2049, on: true, steps: custom, want: "high"},
		// A table without an open-ended last step: larger budgets take the last.
		{budget: 9000, on: true, steps: []EffortStep{{Effort: "low", MaxBudget: 100}}, want: "low"},
	} {
		if got := ReasoningEffort(tc.budget, tc.on, tc.steps); got != tc.want {
			t.Errorf("ReasoningEffort(%d, %v, %v) = %q, want %q", tc.budget, tc.on, tc.steps, got, tc.want)
		}
	}
}

func TestEffortStepsRejected(t *testing.T) {
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{[]string{"low:x"}, `"low:x": the budget after the colon must be a positive number of tokens`},
		{[]string{"low:0"}, `"low:0": the budget after the colon must be a positive number of tokens`},
		{[]string{"huge:10"}, `step 0: effort must be one of low, medium, high, got "huge"`},
		{[]string{"low", "high"}, `step 0 (low): only the last step may be without a budget`},
		{[]string{"low:200", "high:100"}, `step 1 (high): budgets must rise, 100 follows 200`},
	} {
		steps, err := ParseEffortSteps(tc.words)
		if err == nil {
			err = ValidateEffortSteps(steps, "low", "medium", "high")
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %s", strings.Join(tc.words, " "), err, tc.want)
		}
	}
}
