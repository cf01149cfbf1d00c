package caddymodule

import (
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// TestModelTargetStars: a target's '*' needs a '*' of the pattern to fill
// it, in the Caddyfile and in JSON.
func TestModelTargetStars(t *testing.T) {
	var h Handler
	err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("thinkgate openai {\n model openrouter,* *\n model x */*\n}"))
	want := "model x */*: the target has 2 '*' but the pattern only 0; each '*' of the target is what the '*' of the same rank in the pattern matched"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to contain %q", err, want)
	}
	h = Handler{}
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("thinkgate openai {\n model openrouter,* *\n model *,*-latest *-*\n}")); err != nil {
		t.Fatal(err)
	}
	h.Models[1].To = "***"
	if err := h.Validate(); err == nil || !strings.Contains(err.Error(), "the target has 3 '*' but the pattern only 2") {
		t.Errorf("Validate: %v", err)
	}
}
