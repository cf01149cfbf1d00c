package caddymodule

import (
	"fmt"
	"strings"

	"github.com/thinkgate/thinkgate/providers"
)

// checkModelRule checks a model rule: a well-formed pattern, a target, and
// no more '*' in the target than the pattern has to fill them.
func checkModelRule(r providers.ModelRule) error {
	if r.From == "" || r.To == "" {
		return fmt.Errorf("model: needs a pattern and a name")
	}
	if err := providers.CheckModelGlob(r.From); err != nil {
		return fmt.Errorf("model: bad pattern %q: %v", r.From, err)
	}
	if n, have := strings.Count(r.To, "*"), providers.Stars(r.From); n > have {
		return fmt.Errorf("model %s %s: the target has %d '*' but the pattern only %d; each '*' of the target is what the '*' of the same rank in the pattern matched",
			r.From, r.To, n, have)
	}
	return nil
}
