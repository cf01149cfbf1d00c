package caddymodule

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/internal/golden"
)

// TestKeyPoolOptions: api_key with several keys is a pool (api_keys in
// the JSON config), with key_selection and key_cooldown_max; one key stays
// the plain api_key.
func TestKeyPoolOptions(t *testing.T) {
	for _, c := range []struct{ block, want string }{
		{"thinkgate openai {\n api_key {env.A}\n}", `{"name":"openai","api_key":"{env.A}"}`},
		{"thinkgate openai {\n api_key {env.A} {env.B}\n key_selection round_robin\n key_cooldown_max 90s\n}",
			`{"name":"openai","api_keys":["{env.A}","{env.B}"],"key_selection":"round_robin","key_cooldown_max":90000000000}`},
		{"thinkgate responses {\n api_key a1234567 b1234567\n prompt_cache_key off\n}",
			`{"name":"responses","prompt_cache_key":"off","api_keys":["a1234567","b1234567"]}`},
		{"thinkgate gemini {\n api_key a b c\n key_selection session\n}",
			`{"name":"gemini","api_keys":["a","b","c"],"key_selection":"session"}`},
		{"thinkgate openai {\n prompt_cache_key auto\n}", `{"name":"openai","prompt_cache_key":"auto"}`},
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

// TestKeyPoolOptionErrors: the pool's options are refused at load where
// they mean nothing or are malformed, by name.
func TestKeyPoolOptionErrors(t *testing.T) {
	for _, c := range []struct{ block, want string }{
		{"thinkgate openai {\n api_key a b\n key_selection sticky\n}", `key_selection: must be session or round_robin, got "sticky", at Testfile:4`},
		{"thinkgate openai {\n api_key a\n key_selection round_robin\n}", `key_selection and key_cooldown_max need several keys (api_key <key> <key>...), at Testfile:4`},
		{"thinkgate openai {\n key_cooldown_max 1m\n}", `key_selection and key_cooldown_max need several keys (api_key <key> <key>...), at Testfile:3`},
		{"thinkgate openai {\n api_key a b\n key_cooldown_max soon\n}", `key_cooldown_max: time: invalid duration "soon", at Testfile:3`},
		{"thinkgate openai {\n api_key a b\n key_cooldown_max 0s\n}", `key_cooldown_max: must be positive, got 0s`},
		{"thinkgate openai {\n api_key a\n api_keys b c\n}", `api_key and api_keys: set one of them (api_key takes several keys), at Testfile:4`},
		{"thinkgate openai {\n prompt_cache_key sometimes\n}", `prompt_cache_key: must be auto or off, got "sometimes", at Testfile:2`},
		{"thinkgate vertex {\n key_selection session\n}", `thinkgate vertex: unknown option 'key_selection'`},
	} {
		var h Handler
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(c.block))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got  %v\n want it to contain %q", c.block, err, c.want)
		}
	}
}

// TestKeyPoolProvision: the pool's keys are resolved at load; every key is
// scrubbed from relayed text; an unset one or a repeated one fails the
// load.
func TestKeyPoolProvision(t *testing.T) {
	t.Setenv("THINKGATE_TEST_POOL_A", "pool-key-aaaaaaaa")
	t.Setenv("THINKGATE_TEST_POOL_B", "pool-key-bbbbbbbb")
	var p OpenAIProvider
	p.APIKeys = []string{"{env.THINKGATE_TEST_POOL_A}", "{env.THINKGATE_TEST_POOL_B}"}
	if err := p.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.secrets(), " "); got != "pool-key-aaaaaaaa pool-key-bbbbbbbb" {
		t.Errorf("secrets %q", got)
	}
	if p.keyPool() == nil || p.keyPool().cooldownMax != defaultKeyCooldownMax || p.keyPool().roundRobin {
		t.Errorf("pool %+v", p.keyPool())
	}
	if p.APIKey != "" {
		t.Errorf("the module's api_key became %q; the config stays as written", p.APIKey)
	}
	var unset OpenAIProvider
	unset.APIKeys = []string{"{env.THINKGATE_TEST_POOL_A}", "{env.THINKGATE_TEST_POOL_UNSET}"}
	if err := unset.Provision(caddy.Context{}); err == nil || err.Error() != "api_key: {env.THINKGATE_TEST_POOL_UNSET} resolved to the empty string (unset environment variable?)" {
		t.Errorf("unset key: %v", err)
	}
	var twice OpenAIProvider
	twice.APIKeys = []string{"{env.THINKGATE_TEST_POOL_A}", "pool-key-aaaaaaaa"}
	if err := twice.Provision(caddy.Context{}); err == nil || err.Error() != "api_key: the same key is listed twice" {
		t.Errorf("repeated key: %v", err)
	}
}

// TestKeyPoolSetAsideLoggedOnce: a key the upstream refuses is logged
// once, by position, never by value.
func TestKeyPoolSetAsideLoggedOnce(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	p := newKeyPool([]string{"pool-key-aaaaaaaa", "pool-key-bbbbbbbb"}, "", 0)
	p.logger, p.provider = zap.New(core), "openai"
	now := time.Now()
	for i := 0; i < 3; i++ {
		if !p.observe(1, &upstreamAttempt{status: http.StatusForbidden}, now) {
			t.Fatal("a 403 does not move on")
		}
	}
	entries := logs.All()
	if len(entries) != 1 {
		t.Fatalf("%d log lines, want 1", len(entries))
	}
	e := entries[0]
	if e.Message != "upstream refused an api_key; it is set aside until the next config load" || e.ContextMap()["key"] != int64(2) || e.ContextMap()["status"] != int64(403) {
		t.Errorf("log %q %v", e.Message, e.ContextMap())
	}
	for _, f := range e.Context {
		if strings.Contains(f.String, "pool-key") {
			t.Errorf("the key is in the log: %v", f)
		}
	}
	if got := p.pick(1, make([]bool, 2), now); got != 0 {
		t.Errorf("pick after set aside: %d, want 0", got)
	}
}
