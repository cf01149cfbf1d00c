package caddymodule

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// TestUnmarshalResponseOptions: the response-side options and their JSON.
func TestUnmarshalResponseOptions(t *testing.T) {
	for _, c := range []struct{ input, want string }{
		{"upstream_idle_timeout 90s\nforward_rate_limit_headers", `"upstream_idle_timeout":90000000000,"forward_rate_limit_headers":true`},
		{"upstream_idle_timeout off\nforward_rate_limit_headers off", `"upstream_idle_timeout":-1`},
	} {
		var h Handler
		if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("thinkgate openai {\n" + c.input + "\n}")); err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(h)
		if want := `{"provider":{"name":"openai"},` + c.want + `}`; string(got) != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
	for _, c := range []struct{ input, want string }{
		{"upstream_idle_timeout", "wrong argument count"},
		{"upstream_idle_timeout soon", "upstream_idle_timeout:"},
		{"upstream_idle_timeout 0s", `upstream_idle_timeout: "0s" is not a positive duration or off; write e.g. 30s, 5m or off`},
		{"upstream_idle_timeout 1m 2m", "wrong argument count"},
		{"forward_rate_limit_headers maybe", `forward_rate_limit_headers: expected on or off, got "maybe"`},
	} {
		var h Handler
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("thinkgate openai {\n" + c.input + "\n}"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.input, err, c.want)
		}
	}
}
