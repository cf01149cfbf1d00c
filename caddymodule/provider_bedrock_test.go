package caddymodule

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/providers/bedrock"
)

// TestBedrockOptions: the bedrock block's options become its JSON fields;
// bad values are refused at their line with the provider's message.
func TestBedrockOptions(t *testing.T) {
	var h Handler
	block := "thinkgate bedrock {\n region us-west-2\n profile team\n api invoke\n host vpce-1.bedrock-runtime.us-west-2.vpce.amazonaws.com\n drop_betas a b\n credential_timeout 3s\n api_key {env.K}\n}"
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(block)); err != nil {
		t.Fatal(err)
	}
	want := `{"name":"bedrock","region":"us-west-2","profile":"team","api":"invoke","host":"vpce-1.bedrock-runtime.us-west-2.vpce.amazonaws.com","drop_betas":["a","b"],"credential_timeout":"3s","api_key":"{env.K}"}`
	if !golden.EqualJSON(t, h.ProviderRaw, []byte(want)) {
		t.Errorf("got  %s\nwant %s", h.ProviderRaw, want)
	}
	for _, c := range []struct{ block, want string }{
		{"thinkgate bedrock {\n region us-east-1/x\n}", `region: "us-east-1/x" is not an AWS region name (such as us-east-1), at Testfile:2`},
		{"thinkgate bedrock {\n api chat\n}", `api: must be auto, invoke or converse, got "chat", at Testfile:2`},
		{"thinkgate bedrock {\n host a/b\n}", `host: "a/b" is not a host name (such as bedrock-runtime.us-east-1.amazonaws.com), at Testfile:2`},
		{"thinkgate bedrock {\n credential_timeout soon\n}", `credential_timeout: must be a positive duration such as 10s, got "soon", at Testfile:2`},
		{"thinkgate bedrock {\n regoin us-east-1\n}", `thinkgate bedrock: unknown option 'regoin' (did you mean 'region'?); the bedrock options are region, profile, api_key, api, host, drop_betas, credential_timeout`},
	} {
		var h Handler
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(c.block))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got  %v\n want it to contain %q", c.block, err, c.want)
		}
	}
}

// TestBedrockProvision: placeholders in region and api_key are resolved for
// the provider, the key is scrubbed, the module keeps its config as
// written; no region, or one resolved to nothing, fails.
func TestBedrockProvision(t *testing.T) {
	t.Setenv("THINKGATE_TEST_REGION", "eu-west-1")
	t.Setenv("THINKGATE_TEST_BEDROCK_KEY", "bedrock-key-from-env")
	var p BedrockProvider
	if err := json.Unmarshal([]byte(`{"region":"{env.THINKGATE_TEST_REGION}","api_key":"{env.THINKGATE_TEST_BEDROCK_KEY}"}`), &p); err != nil {
		t.Fatal(err)
	}
	if err := p.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	if h := p.ProviderInfo().Provider.(*bedrock.Provider).Host(); h != "bedrock-runtime.eu-west-1.amazonaws.com" {
		t.Errorf("host %q", h)
	}
	if s := p.secrets(); len(s) != 1 || s[0] != "bedrock-key-from-env" {
		t.Errorf("secrets %q", s)
	}
	if p.Region != "{env.THINKGATE_TEST_REGION}" {
		t.Errorf("module config changed: %q", p.Region)
	}
	for in, want := range map[string]string{
		`{}`: "region: required",
		`{"region":"{env.THINKGATE_TEST_UNSET_REGION}","api_key":"k"}`: "region: required",
	} {
		var q BedrockProvider
		_ = json.Unmarshal([]byte(in), &q)
		if err := q.Provision(caddy.Context{}); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v", in, err)
		}
	}
	// A profile that does not exist fails the load, naming the option.
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	q := BedrockProvider{Config: bedrock.Config{Region: "us-east-1", Profile: "nope"}}
	if err := q.Provision(caddy.Context{}); err == nil || !strings.HasPrefix(err.Error(), `profile: loading AWS profile "nope": `) {
		t.Errorf("missing profile: %v", err)
	}
}
