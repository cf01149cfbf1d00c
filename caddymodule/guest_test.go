package caddymodule

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/providers"
)

// TestProviderOptions: each provider's Caddyfile options become its
// Config's JSON fields, whatever their kind: strings, repeated lists,
// whole numbers and sizes.
func TestProviderOptions(t *testing.T) {
	for _, c := range []struct{ block, want string }{
		{"thinkgate anthropic {\n api_key {env.K}\n path /v2/messages\n}",
			`{"name":"anthropic","api_key":"{env.K}","path":"/v2/messages"}`},
		{"thinkgate azure {\n drop_fields a b\n path /x\n drop_fields c\n drop_betas *\n}",
			`{"name":"azure","path":"/x","drop_fields":["a","b","c"],"drop_betas":["*"]}`},
		{"thinkgate openai {\n path /v1/chat?api-version=1\n reasoning_history reasoning_content\n max_tokens_field max_completion_tokens\n max_queued 1MiB\n}",
			`{"name":"openai","path":"/v1/chat?api-version=1","reasoning_history":"reasoning_content","max_tokens_field":"max_completion_tokens","max_queued":1048576}`},
		{"thinkgate gemini {\n api_version v1\n thinking_budget -1\n schema_expansion 64\n}",
			`{"name":"gemini","api_version":"v1","thinking_budget":-1,"schema_expansion":64}`},
		{"thinkgate amazonq {\n api_key k\n profile_arn {env.ARN}\n protocol aws\n origin CLI\n}",
			`{"name":"amazonq","api_key":"k","profile_arn":"{env.ARN}","protocol":"aws","origin":"CLI"}`},
	} {
		var h Handler
		if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(c.block)); err != nil {
			t.Errorf("%q: %v", c.block, err)
			continue
		}
		if !golden.EqualJSON(t, h.ProviderRaw, []byte(c.want)) {
			t.Errorf("%q:\n got  %s\n want %s", c.block, h.ProviderRaw, c.want)
		}
	}
}

// TestProviderOptionErrors: a bad value is refused with the provider's own
// message (the one the JSON config gets) at the option's line; a value of
// the wrong kind, and a 0 that would silently mean the default, likewise.
func TestProviderOptionErrors(t *testing.T) {
	for _, c := range []struct{ block, want string }{
		{"thinkgate gemini {\n api_key k\n thinking_budget lots\n}", `thinking_budget: "lots" is not a whole number, at Testfile:3`},
		{"thinkgate gemini {\n thinking_budget 0\n}", `thinking_budget: 0 is not allowed; leave the option out for its default, at Testfile:2`},
		{"thinkgate gemini {\n thinking_budget -2\n}", `thinking_budget: must be a positive number of tokens or -1 (dynamic), got -2, at Testfile:2`},
		{"thinkgate gemini {\n schema_expansion 1 2\n}", `wrong argument count`},
		{"thinkgate gemini {\n api_version v2\n}", `api_version: must be v1beta or v1, got "v2", at Testfile:2`},
		{"thinkgate openai {\n max_queued lots\n}", `max_queued: "lots" is not a size; write a number of bytes with a unit, e.g. 32MiB or 64KiB, at Testfile:2`},
		{"thinkgate azure {\n drop_betas a\n\n drop_fields x messages\n}", `drop_fields: "messages" is required by Azure and cannot be dropped, at Testfile:4`},
		{"thinkgate azure {\n drop_fields\n}", `wrong argument count or unexpected line ending after 'drop_fields'`},
		{"thinkgate amazonq {\n protocol smithy\n}", `protocol: must be json or aws, got "smithy", at Testfile:2`},
		{"thinkgate amazonq {\n now 1\n}", `thinkgate amazonq: unknown option 'now'; the amazonq options are api_key, profile_arn, protocol, origin, api_keys, key_selection, key_cooldown_max, and every provider takes`},
	} {
		var h Handler
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(c.block))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got  %v\n want it to contain %q", c.block, err, c.want)
		}
	}
}

// TestProviderJSONConfig: the JSON config is the provider's Config as
// written; Provision resolves the credentials for the provider it builds
// and for scrubbing, and leaves the module's fields (and so the config
// Caddy reports) as written.
func TestProviderJSONConfig(t *testing.T) {
	t.Setenv("THINKGATE_TEST_Q_KEY", "q-key-from-env")
	t.Setenv("THINKGATE_TEST_Q_ARN", "arn:aws:codewhisperer:us-east-1:1:profile/P")
	in := `{"api_key":"{env.THINKGATE_TEST_Q_KEY}","profile_arn":"{env.THINKGATE_TEST_Q_ARN}","protocol":"aws"}`
	var p AmazonQProvider
	if err := json.Unmarshal([]byte(in), &p); err != nil {
		t.Fatal(err)
	}
	if err := p.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(&p)
	if string(out) != in {
		t.Errorf("config after Provision %s, want %s", out, in)
	}
	if got := p.secrets(); !reflect.DeepEqual(got, []string{"q-key-from-env"}) {
		t.Errorf("secrets %q", got)
	}
	if p.ProviderInfo().Provider == nil {
		t.Error("no provider built")
	}
	// A set but empty credential fails the load, by the option's name.
	bad := AnthropicProvider{}
	bad.APIKey = "{env.THINKGATE_TEST_UNSET_KEY}"
	if err := bad.Provision(caddy.Context{}); err == nil || err.Error() != "api_key: {env.THINKGATE_TEST_UNSET_KEY} resolved to the empty string (unset environment variable?)" {
		t.Errorf("unset key: %v", err)
	}
}

// TestProviderModulesHaveCaddyfileForms: every registered provider's
// options are of a kind the shared Caddyfile reader takes.
func TestProviderModulesHaveCaddyfileForms(t *testing.T) {
	mods := caddy.GetModules(providerNamespace)
	if len(mods) < 5 {
		t.Fatalf("%d provider modules registered", len(mods))
	}
	for _, info := range mods {
		mod := info.New()
		v := reflect.ValueOf(mod).Elem()
		for _, name := range optionNames(mod) {
			f, _ := optionField(v, name)
			switch k := f.Kind(); {
			case k == reflect.String, k == reflect.Int, k == reflect.Bool, f.Type() == reflect.TypeOf(caddy.Duration(0)),
				k == reflect.Slice && f.Type().Elem().Kind() == reflect.String,
				f.Type() == reflect.TypeOf([]providers.EffortStep(nil)):
			default:
				t.Errorf("%s option %s: a %s has no Caddyfile form", info.ID, name, f.Type())
			}
		}
		if _, ok := mod.(providerGuest); !ok {
			t.Errorf("%s is not a complete provider module", info.ID)
		}
	}
}
