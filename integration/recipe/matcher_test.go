package recipe_test

import (
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestRecipe runs the recipe exactly as written, its body matchers
// choosing the route: each kind of Claude Code request reaches the
// upstream its route names, with the model the route gives it (a
// provider,model name's model passes on without its provider), and the
// SDK accumulates every answer.
func TestRecipe(t *testing.T) {
	ups := startUpstreams(t)
	gw := testgw.StartConfig(t, slot, recipe(t, ups, false))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check(t, gw, ups, c)
		})
	}
}
