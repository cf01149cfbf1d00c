package caddymodule

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// TestUnmarshalResponsesProvider: every option of the responses provider
// reaches its JSON field.
func TestUnmarshalResponsesProvider(t *testing.T) {
	d := caddyfile.NewTestDispenser(`thinkgate responses {
		api_key {env.OPENAI_API_KEY}
		path /openai/v1/responses?api-version=preview
		store
		reasoning_summary detailed
		effort_map 2000:minimal 8000:low 24000:medium high
		default_effort high
	}`)
	var h Handler
	if err := h.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(h.ProviderRaw)
	want := `{"api_key":"{env.OPENAI_API_KEY}","default_effort":"high","effort_map":[{"effort":"minimal","up_to":2000},{"effort":"low","up_to":8000},{"effort":"medium","up_to":24000},{"effort":"high"}],"name":"responses","path":"/openai/v1/responses?api-version=preview","reasoning_summary":"detailed","store":true}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestUnmarshalResponsesProviderErrors(t *testing.T) {
	for _, c := range []struct{ input, want string }{
		{"thinkgate responses {\n stor on\n}", "thinkgate responses: unknown option 'stor' (did you mean 'store'?)"},
		{"thinkgate responses {\n store maybe\n}", `store: expected on or off, got "maybe"`},
		{"thinkgate responses {\n reasoning_summary short\n}", `reasoning_summary: must be auto, concise, detailed or off, got "short"`},
		{"thinkgate responses {\n effort_map\n}", "wrong argument count"},
		{"thinkgate responses {\n effort_map x:low high\n}", `effort_map: "x:low": the budget before ':' must be a positive number of tokens`},
		{"thinkgate responses {\n effort_map 4096:extreme high\n}", `effort_map: rule 1: effort must be one of none, minimal, low, medium, high, got "extreme"`},
		{"thinkgate responses {\n effort_map low 4096:high\n}", "effort_map: rule 1: only the last rule may go without a budget bound"},
		{"thinkgate responses {\n effort_map 9000:low 4096:high\n}", "effort_map: rule 2: bounds must rise, 4096 after 9000"},
		{"thinkgate responses {\n default_effort max\n}", `default_effort: must be one of none, minimal, low, medium, high, got "max"`},
		{"thinkgate responses {\n path v1/responses\n}", `path: must start with /, got "v1/responses"`},
	} {
		var h Handler
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(c.input))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.input, err, c.want)
		}
	}
}
