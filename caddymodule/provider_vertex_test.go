package caddymodule

import (
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/internal/golden"
)

// TestVertexOptions: the vertex block's options, the Gemini conversion's
// included, are the JSON config's flat fields, as the gemini provider's are.
func TestVertexOptions(t *testing.T) {
	block := "thinkgate vertex {\n project my-project\n location global\n credentials_file {env.KEY_FILE}\n publisher anthropic\n" +
		" token_timeout 3s\n drop_betas a\n drop_betas b\n thinking_budget -1\n thinking_level_models none\n thinking_levels low:100 high\n}"
	want := `{"name":"vertex","project":"my-project","location":"global","credentials_file":"{env.KEY_FILE}","publisher":"anthropic",` +
		`"token_timeout":"3s","drop_betas":["a","b"],"thinking_budget":-1,"thinking_level_models":["none"],` +
		`"thinking_levels":[{"effort":"low","max_budget":100},{"effort":"high"}]}`
	var h Handler
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(block)); err != nil {
		t.Fatal(err)
	}
	if !golden.EqualJSON(t, h.ProviderRaw, []byte(want)) {
		t.Errorf("got  %s\nwant %s", h.ProviderRaw, want)
	}
	for _, c := range []struct{ block, want string }{
		{"thinkgate vertex {\n project my/../project\n}", `project: "my/../project" is not a Google Cloud project id (letters, digits, '-', '_', '.', ':'), at Testfile:2`},
		{"thinkgate vertex {\n location us-east5?x\n}", `location: "us-east5?x" is not a Vertex AI location (lowercase letters, digits and '-', or global), at Testfile:2`},
		{"thinkgate vertex {\n publisher meta\n}", `publisher: must be auto, google or anthropic, got "meta", at Testfile:2`},
		{"thinkgate vertex {\n token_timeout soon\n}", `token_timeout: must be a positive duration such as 10s, got "soon", at Testfile:2`},
		{"thinkgate vertex {\n thinking_budget -5\n}", `thinking_budget: must be a positive number of tokens or -1 (dynamic), got -5, at Testfile:2`},
		{"thinkgate vertex {\n api_key k\n}", `thinkgate vertex: unknown option 'api_key'; the vertex options are project, location, credentials_file, publisher, token_timeout, drop_betas, thinking_budget, schema_expansion, thinking_level_models, thinking_levels, and every provider takes`},
	} {
		var h Handler
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(c.block))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v\nwant %s", c.block, err, c.want)
		}
	}
}

// TestVertexProvisionErrors: what no request could work without fails the
// load, by the option's name, before any credential is looked for.
func TestVertexProvisionErrors(t *testing.T) {
	for _, c := range []struct {
		p    VertexProvider
		want string
	}{
		{VertexProvider{}, "project: required (the Google Cloud project id)"},
		{func() (p VertexProvider) { p.Project = "p"; return }(), "location: required (a Vertex AI region such as us-east5, or global)"},
		{func() (p VertexProvider) {
			p.Project, p.Location, p.CredentialsFile = "p", "global", "{env.THINKGATE_TEST_UNSET_FILE}"
			return
		}(), "credentials_file: {env.THINKGATE_TEST_UNSET_FILE} resolved to the empty string (unset environment variable?)"},
	} {
		if err := c.p.Provision(caddy.Context{}); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %s", c.p.Config, err, c.want)
		}
	}
}
