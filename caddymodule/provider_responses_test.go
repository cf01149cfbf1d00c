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
		efforts minimal:2000 low:8000 medium:24000 high
	}`)
	var h Handler
	if err := h.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(h.ProviderRaw)
	want := `{"api_key":"{env.OPENAI_API_KEY}","efforts":[{"effort":"minimal","max_budget":2000},{"effort":"low","max_budget":8000},{"effort":"medium","max_budget":24000},{"effort":"high"}],"name":"responses","path":"/openai/v1/responses?api-version=preview","reasoning_summary":"detailed","store":true}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestUnmarshalResponsesProviderErrors(t *testing.T) {
	for _, c := range []struct{ input, want string }{
		{"thinkgate responses {\n stor on\n}", "thinkgate responses: unknown option 'stor' (did you mean 'store'?)"},
		{"thinkgate responses {\n store maybe\n}", `store: expected on or off, got "maybe"`},
		{"thinkgate responses {\n reasoning_summary short\n}", `reasoning_summary: must be auto, concise, detailed or off, got "short"`},
		{"thinkgate responses {\n store on off\n}", "wrong argument count"},
		{"thinkgate responses {\n efforts\n}", "wrong argument count"},
		{"thinkgate responses {\n efforts low:x high\n}", `efforts: "low:x": the budget after the colon must be a positive number of tokens`},
		{"thinkgate responses {\n efforts extreme:4096 high\n}", `efforts: step 0: effort must be one of none, minimal, low, medium, high, got "extreme"`},
		{"thinkgate responses {\n efforts low high:4096\n}", "efforts: step 0 (low): only the last step may be without a budget"},
		{"thinkgate responses {\n efforts low:9000 high:4096\n}", "efforts: step 1 (high): budgets must rise, 4096 follows 9000"},
		{"thinkgate responses {\n effort_map 4096:low high\n}", "thinkgate responses: unknown option 'effort_map'"},
		{"thinkgate responses {\n default_effort high\n}", "thinkgate responses: unknown option 'default_effort'"},
		{"thinkgate responses {\n path v1/responses\n}", `path: must start with /, got "v1/responses"`},
	} {
		var h Handler
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(c.input))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.input, err, c.want)
		}
	}
}
