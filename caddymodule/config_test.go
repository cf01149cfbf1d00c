package caddymodule

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
)

// TestConfigErrorMessages: a mistake in the thinkgate block gets an error
// that says what is wrong, what is valid, and the line of the option.
func TestConfigErrorMessages(t *testing.T) {
	for _, c := range []struct{ input, want string }{
		{"thinkgate openia", `unknown provider "openia"; the providers are amazonq, anthropic, azure, bedrock, gemini, openai, responses, vertex (did you mean openai?), at Testfile:1`},
		{"thinkgate openai {\n\tpth /x\n}", "thinkgate openai: unknown option 'pth' (did you mean 'path'?); the openai options are api_key, path, reasoning_history, thinking_mode, efforts, max_tokens_field, max_queued, prompt_cache_key, api_keys, key_selection, key_cooldown_max, " +
			"and every provider takes split_tags, thinking_block, tags, start_in_thinking, parse_in_code_fences, max_tag_length, default_thinking, thinking_hint, model, keepalive, " +
			"max_request_body, request_body_timeout, client_keys, client_keys_file, max_event_size, signing_key, previous_signing_keys, upstream_idle_timeout, forward_rate_limit_headers, advertise_models, upstream_body_timeout, trace_content, model_info, at Testfile:2"},
		{"thinkgate anthropic {\n\tsplit_tag\n}", "thinkgate anthropic: unknown option 'split_tag' (did you mean 'split_tags'?); the anthropic options are api_key, path, api_keys, key_selection, key_cooldown_max, and every provider takes "},
		{"thinkgate gemini {\n\tfrobnicate 1\n}", "thinkgate gemini: unknown option 'frobnicate'; the gemini options are api_key, api_version, thinking_budget, schema_expansion, thinking_level_models, thinking_levels, api_keys, key_selection, key_cooldown_max, and every provider takes "},
		{"thinkgate anthropic {\n\tmax_request_body ten\n}", `max_request_body: "ten" is not a size; write a number of bytes with a unit, e.g. 32MiB or 64KiB, at Testfile:2`},
		{"thinkgate anthropic {\n\tmax_tag_length lots\n}", `max_tag_length: "lots" is not a size; write a number of bytes with a unit, e.g. 32MiB or 64KiB, at Testfile:2`},
		{"thinkgate anthropic {\n\trequest_body_timeout soon\n}", `request_body_timeout: "soon" is not a positive duration; write e.g. 30s or 2m, at Testfile:2`},
		{"thinkgate anthropic {\n\tupstream_body_timeout -1s\n}", `upstream_body_timeout: "-1s" is not a positive duration; write e.g. 30s or 2m, at Testfile:2`},
		{"thinkgate anthropic {\n\tupstream_body_timeout 0\n}", `upstream_body_timeout: "0" is not a positive duration`},
		{"thinkgate anthropic {\n\tpath v1/messages\n}", `path: must start with / and carry no query, got "v1/messages", at Testfile:2`},
		// The option's own line, also when it is the block's last.
		{"thinkgate openai {\n\tapi_key k\n\tmodel a b\n\n\tpath v1/chat\n}", `path: must start with /, got "v1/chat", at Testfile:5`},
		{"thinkgate openai {\n\tpath v1/chat\n\tapi_key k\n}", `path: must start with /, got "v1/chat", at Testfile:2`},
		{"thinkgate openai {\n\treasoning_history tags\n}", `, at Testfile:2`},
		// What an unset {$VAR} leaves.
		{"thinkgate openai {\n\tapi_key\n}", "wrong argument count or unexpected line ending after 'api_key' (an unset {$VAR} leaves nothing here; {env.VAR} is read at load and fails there with its name), at Testfile:2"},
		{"thinkgate openai {\n\tsigning_key\n}", "after 'signing_key' (an unset {$VAR} leaves nothing here"},
		{"thinkgate openai {\n\tclient_keys\n}", "after 'client_keys' (an unset {$VAR} leaves nothing here"},
		{"thinkgate openai {\n\tprevious_signing_keys\n}", "after 'previous_signing_keys' (an unset {$VAR} leaves nothing here"},
	} {
		var h Handler
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(c.input))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got  %v\n want it to contain %q", c.input, err, c.want)
		}
	}
}

// TestUpstreamBodyTimeoutOption: the Caddyfile's upstream_body_timeout
// reaches the JSON config, and a negative one there is refused.
func TestUpstreamBodyTimeoutOption(t *testing.T) {
	var h Handler
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("thinkgate anthropic {\n\tupstream_body_timeout 2m\n}")); err != nil {
		t.Fatal(err)
	}
	if h.UpstreamBodyTimeout != caddy.Duration(2*time.Minute) {
		t.Errorf("upstream_body_timeout %v", h.UpstreamBodyTimeout)
	}
	if err := (&Handler{UpstreamBodyTimeout: -1}).Validate(); err == nil || err.Error() != "upstream_body_timeout: must not be negative" {
		t.Errorf("Validate: %v", err)
	}
}

// TestUnsetVarInCaddyfile: {$VAR} is replaced when the Caddyfile is read; an
// unset one leaves the option without a value, and the error says so.
func TestUnsetVarInCaddyfile(t *testing.T) {
	os.Unsetenv("THINKGATE_TEST_UNSET")
	_, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(":8080 {\n\tthinkgate openai {\n\t\tapi_key {$THINKGATE_TEST_UNSET}\n\t}\n\treverse_proxy localhost:9\n}"), nil)
	want := "wrong argument count or unexpected line ending after 'api_key' (an unset {$VAR} leaves nothing here; {env.VAR} is read at load and fails there with its name)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
}

// validate adapts a site body and runs caddy.Validate on it, as `caddy
// validate` does, with storage in a temporary directory.
func validate(t *testing.T, storage, site string) error {
	t.Helper()
	cf := fmt.Sprintf("{\n\tstorage file_system %s\n\tadmin off\n}\n:0 {\n%s\n}\n", storage, site)
	out, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cf), nil)
	if err != nil {
		return err
	}
	var cfg caddy.Config
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	return caddy.Validate(&cfg)
}

// TestUnsetSecretsFailAtLoad: a secret that resolves to nothing stops the
// load with the option's name, instead of sending no credential (or the
// client's own) upstream. In a Caddyfile the error carries the option's
// line, as every other Caddyfile error does.
func TestUnsetSecretsFailAtLoad(t *testing.T) {
	os.Unsetenv("THINKGATE_TEST_UNSET")
	dir := t.TempDir()
	for _, c := range []struct{ block, want string }{
		{"thinkgate openai {\n api_key {env.THINKGATE_TEST_UNSET}\n}", "api_key: {env.THINKGATE_TEST_UNSET} resolved to the empty string (unset environment variable?)"},
		{"thinkgate anthropic {\n api_key {env.THINKGATE_TEST_UNSET}\n}", "api_key: {env.THINKGATE_TEST_UNSET} resolved to the empty string (unset environment variable?)"},
		{"thinkgate azure {\n api_key {env.THINKGATE_TEST_UNSET}\n}", "api_key: {env.THINKGATE_TEST_UNSET} resolved to the empty string (unset environment variable?)"},
		{"thinkgate gemini {\n api_key {env.THINKGATE_TEST_UNSET}\n}", "api_key: {env.THINKGATE_TEST_UNSET} resolved to the empty string (unset environment variable?)"},
		{"thinkgate amazonq {\n api_key {env.THINKGATE_TEST_UNSET}\n}", "api_key: {env.THINKGATE_TEST_UNSET} resolved to the empty string (unset environment variable?)"},
		{"thinkgate amazonq {\n api_key k\n profile_arn {env.THINKGATE_TEST_UNSET}\n}", "profile_arn: {env.THINKGATE_TEST_UNSET} resolved to the empty string (unset environment variable?)"},
		{"thinkgate openai {\n signing_key {env.THINKGATE_TEST_UNSET}\n}", "signing_key: {env.THINKGATE_TEST_UNSET} resolved to the empty string (unset environment variable?)"},
		{"thinkgate openai {\n signing_key k\n previous_signing_keys old {env.THINKGATE_TEST_UNSET}\n}", "previous_signing_keys: {env.THINKGATE_TEST_UNSET} resolved to the empty string (unset environment variable?)"},
		{"thinkgate openai {\n client_keys k {env.THINKGATE_TEST_UNSET}\n}", "client_keys: {env.THINKGATE_TEST_UNSET} resolved to the empty string (unset environment variable?)"},
		{"thinkgate openai {\n client_keys_file {env.THINKGATE_TEST_UNSET}\n}", "client_keys_file: {env.THINKGATE_TEST_UNSET} resolved to the empty string (unset environment variable?)"},
		{"thinkgate vertex {\n project p\n location us-east5\n credentials_file {env.THINKGATE_TEST_UNSET}\n}", "credentials_file: {env.THINKGATE_TEST_UNSET} resolved to the empty string (unset environment variable?)"},
	} {
		err := validate(t, dir, c.block+"\nreverse_proxy localhost:9")
		// The site body starts on the Caddyfile's line 6; the secret is on the block's last line.
		line := fmt.Sprintf(", at Caddyfile:%d", 6+strings.Count(c.block, "\n")-1)
		if err == nil || !strings.Contains(err.Error(), c.want+line) {
			t.Errorf("%q:\n got  %v\n want it to contain %q", c.block, err, c.want+line)
		}
	}
	t.Setenv("THINKGATE_TEST_SET", "k")
	if err := validate(t, dir, "thinkgate openai {\n api_key {env.THINKGATE_TEST_SET}\n}\nreverse_proxy localhost:9"); err != nil {
		t.Errorf("a set variable: %v", err)
	}
}

// TestUnknownProviderInJSON: the JSON config's wrong provider name gets the
// same list as the Caddyfile's.
func TestUnknownProviderInJSON(t *testing.T) {
	cfg := caddy.Config{AppsRaw: caddy.ModuleMap{"http": json.RawMessage(`{"servers":{"s":{"listen":[":0"],"routes":[{"handle":[{"handler":"thinkgate","provider":{"name":"openia"}}]}]}}}`)}}
	err := caddy.Validate(&cfg)
	want := `unknown provider "openia"; the providers are amazonq, anthropic, azure, bedrock, gemini, openai, responses, vertex (did you mean openai?)`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
}

func TestModelRuleWarnings(t *testing.T) {
	got := modelRuleWarnings([]providers.ModelRule{
		{From: "claude-*", To: "gpt-4.1"},
		{From: "claude-opus-*", To: "o3"},         // shadowed by claude-*
		{From: "claude-3-haiku", To: "mini"},      // shadowed by claude-*
		{From: "gpt-?", To: "a"},                  // not covered
		{From: "gpt-4", To: "b"},                  // shadowed by gpt-?
		{From: "gpt-*", To: "c"},                  // gpt-? does not cover gpt-* (not flagged)
		{From: "gemini.*", To: "gemini-2.5-pro"},  // a regular expression
		{From: "^o[0-9]$", To: "o3"},              // another
		{From: "claude-opus-*", To: "duplicate"},  // shadowed
		{From: "deepseek-*", To: "deepseek-chat"}, // fine
	})
	want := []string{
		"model claude-opus-* o3: never used, the earlier rule 'model claude-* gpt-4.1' matches every name it does (the first matching rule wins)",
		"model claude-3-haiku mini: never used, the earlier rule 'model claude-* gpt-4.1' matches every name it does (the first matching rule wins)",
		"model gpt-4 b: never used, the earlier rule 'model gpt-? a' matches every name it does (the first matching rule wins)",
		"model gemini.* gemini-2.5-pro: patterns are globs, not regular expressions ('*' is any run of characters, '?' one character); did you mean gemini*?",
		"model ^o[0-9]$ o3: patterns are globs, not regular expressions ('*' is any run of characters, '?' one character); did you mean o[0-9]?",
		"model claude-opus-* duplicate: never used, the earlier rule 'model claude-* gpt-4.1' matches every name it does (the first matching rule wins)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// loadLog validates a site with the default log going to a file, and
// returns the log's lines.
func loadLog(t *testing.T, site string) string {
	t.Helper()
	dir := t.TempDir()
	logFile := filepath.Join(dir, "caddy.log")
	cf := fmt.Sprintf("{\n\tstorage file_system %s\n\tadmin off\n\tlog default {\n\t\toutput file %s\n\t\tformat json\n\t\tlevel INFO\n\t}\n}\n:0 {\n%s\n}\n", dir, logFile, site)
	out, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cf), nil)
	if err != nil {
		t.Fatalf("adapt: %v", err)
	}
	var cfg caddy.Config
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	if err := caddy.Validate(&cfg); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLoadWarnings: shadowed model rules, regular-expression patterns and a
// thinkgate that reverse_proxy runs before are logged at load.
func TestLoadWarnings(t *testing.T) {
	log := loadLog(t, `thinkgate openai {
	model claude-* gpt-4.1
	model claude-opus-* o3
	model claude.* x
}
reverse_proxy localhost:9`)
	for _, want := range []string{
		`"level":"warn"`,
		`"msg":"model claude-opus-* o3: never used, the earlier rule 'model claude-* gpt-4.1' matches every name it does (the first matching rule wins)"`,
		`"msg":"model claude.* x: patterns are globs, not regular expressions`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s:\n%s", want, log)
		}
	}
	if strings.Contains(log, "comes after reverse_proxy") {
		t.Errorf("top-level order warned about:\n%s", log)
	}

	// Inside route {} handlers run as written.
	log = loadLog(t, "route {\n\treverse_proxy localhost:9\n\tthinkgate openai\n}")
	if !strings.Contains(log, `"msg":"`+misorderedWarning+`"`) {
		t.Errorf("route with thinkgate after reverse_proxy: no warning:\n%s", log)
	}
	log = loadLog(t, "route {\n\tthinkgate openai\n\treverse_proxy localhost:9\n}")
	if strings.Contains(log, "comes after reverse_proxy") {
		t.Errorf("route in the right order warned about:\n%s", log)
	}
	// A reverse_proxy behind a matcher does not take every request.
	log = loadLog(t, "route {\n\treverse_proxy /other/* localhost:9\n\tthinkgate openai\n\treverse_proxy localhost:9\n}")
	if strings.Contains(log, "comes after reverse_proxy") {
		t.Errorf("matched reverse_proxy warned about:\n%s", log)
	}
}

// TestTwoHandlersInOneRoute: two thinkgate handlers in one route list
// stop the load (the second would never serve); in handle blocks of their
// own, or as fallback steps, they load.
func TestTwoHandlersInOneRoute(t *testing.T) {
	dir := t.TempDir()
	for _, site := range []string{
		"thinkgate openai\nthinkgate gemini\nreverse_proxy localhost:9",
		"route {\n\tthinkgate openai\n\treverse_proxy localhost:9\n\tthinkgate anthropic\n}",
		"handle /v1/* {\n\tthinkgate openai\n\tthinkgate openai\n\treverse_proxy localhost:9\n}",
	} {
		err := validate(t, dir, site)
		if err == nil || !strings.Contains(err.Error(), errTwoHandlers.Error()) {
			t.Errorf("%q: %v", site, err)
		}
	}
	for _, site := range []string{
		"handle /a/* {\n\tthinkgate openai\n\treverse_proxy localhost:9\n}\nhandle {\n\tthinkgate gemini\n\treverse_proxy localhost:9\n}",
		"thinkgate_fallback {\n\ttry {\n\t\tthinkgate openai\n\t\treverse_proxy localhost:9\n\t}\n\ttry {\n\t\tthinkgate gemini\n\t\treverse_proxy localhost:9\n\t}\n}",
	} {
		if err := validate(t, dir, site); err != nil {
			t.Errorf("%q: %v", site, err)
		}
	}
	// In JSON, two in one route's handle list.
	cfg := caddy.Config{StorageRaw: json.RawMessage(fmt.Sprintf(`{"module":"file_system","root":%q}`, dir)),
		AppsRaw: caddy.ModuleMap{"http": json.RawMessage(`{"servers":{"s":{"listen":[":0"],"routes":[{"handle":[` +
			`{"handler":"thinkgate","provider":{"name":"openai"}},{"handler":"thinkgate","provider":{"name":"openai"}},{"handler":"reverse_proxy"}]}]}}}`)}}
	if err := caddy.Validate(&cfg); err == nil || !strings.Contains(err.Error(), errTwoHandlers.Error()) {
		t.Errorf("JSON: %v", err)
	}
}

// TestNoProxyWarning: a thinkgate with no reverse_proxy after it, in its
// route or around it, is logged at load; one with a reverse_proxy after it
// anywhere a request reaches is not.
func TestNoProxyWarning(t *testing.T) {
	for _, c := range []struct {
		site string
		warn bool
	}{
		{"thinkgate openai", true},
		{"handle {\n\tthinkgate openai\n}", true},
		{"thinkgate_fallback {\n\ttry {\n\t\tthinkgate openai\n\t}\n}", true},
		{"thinkgate openai\nreverse_proxy localhost:9", false},
		{"handle {\n\tthinkgate openai\n\treverse_proxy localhost:9\n}", false},
		{"route {\n\tthinkgate openai\n}\nreverse_proxy localhost:9", false},
		{"thinkgate openai\nhandle {\n\treverse_proxy localhost:9\n}", false},
		{"thinkgate_fallback {\n\ttry {\n\t\tthinkgate openai\n\t\treverse_proxy localhost:9\n\t}\n}", false},
	} {
		log := loadLog(t, c.site)
		if got := strings.Contains(log, `"msg":"`+noProxyWarning+`"`); got != c.warn {
			t.Errorf("%q: warned %v, want %v:\n%s", c.site, got, c.warn, log)
		}
	}
}

// TestStoredSigningKeyRace: instances that start together on one storage
// end up with one key, which the storage then holds.
func TestStoredSigningKeyRace(t *testing.T) {
	dir := t.TempDir()
	const n = 4
	keys := make([][]byte, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each its own storage value, as separate processes have.
			k, err := storedSigningKey(context.Background(), &certmagic.FileStorage{Path: dir}, zap.NewNop())
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		}()
	}
	wg.Wait()
	for i := range keys {
		if len(keys[i]) != 44 || !bytes.Equal(keys[i], keys[0]) {
			t.Fatalf("instance %d got key %x, instance 0 %x", i, keys[i], keys[0])
		}
	}
	stored, err := os.ReadFile(filepath.Join(dir, "thinkgate", "signing_key"))
	if err != nil {
		t.Fatal(err)
	}
	if raw, err := base64.StdEncoding.DecodeString(string(stored)); err != nil || len(raw) != 32 || !bytes.Equal(stored, keys[0]) {
		t.Errorf("storage holds %q, the key is %q", stored, keys[0])
	}
	if err := os.WriteFile(filepath.Join(dir, "thinkgate", "signing_key"), []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = storedSigningKey(context.Background(), &certmagic.FileStorage{Path: dir}, zap.NewNop())
	want := "does not hold a key the gateway made (32 bytes, base64); remove it or set signing_key"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a damaged key: %v", err)
	}
}

// provisionHandler provisions a thinkgate handler in a Caddy context of its
// own whose storage is dir: one gateway instance.
func provisionHandler(t *testing.T, dir, handlerJSON string) *Handler {
	t.Helper()
	cfg := &caddy.Config{StorageRaw: json.RawMessage(fmt.Sprintf(`{"module":"file_system","root":%q}`, dir))}
	ctx, err := caddy.ProvisionContext(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := ctx.LoadModuleByID("http.handlers.thinkgate", json.RawMessage(handlerJSON))
	if err != nil {
		t.Fatal(err)
	}
	return mod.(*Handler)
}

// TestSigningKeyAcrossInstances: without signing_key, two independent
// instances on one storage (or one instance after a reload) accept each
// other's envelopes; previous_signing_keys keeps a rotated key verifying.
func TestSigningKeyAcrossInstances(t *testing.T) {
	dir := t.TempDir()
	a := provisionHandler(t, dir, `{"provider":{"name":"openai"}}`)
	b := provisionHandler(t, dir, `{"provider":{"name":"openai"}}`)
	sig := a.settings.Signer.Sign(emit.OriginTags, "", "plan")
	if _, _, ok := b.settings.Signer.Open(sig, "plan"); !ok {
		t.Fatal("instance b rejects instance a's envelope")
	}
	if _, _, ok := b.settings.Signer.Open(sig, "plan!"); ok {
		t.Fatal("an envelope verifies for other text")
	}
	other := provisionHandler(t, t.TempDir(), `{"provider":{"name":"openai"}}`)
	if _, _, ok := other.settings.Signer.Open(sig, "plan"); ok {
		t.Fatal("an instance on another storage accepts the envelope")
	}

	// Rotation: the stored key becomes a previous key.
	stored, err := os.ReadFile(filepath.Join(dir, "thinkgate", "signing_key"))
	if err != nil {
		t.Fatal(err)
	}
	// The stored text is the key, as it would be copied into the config.
	t.Setenv("THINKGATE_TEST_OLD_KEY", string(stored))
	rotated := provisionHandler(t, dir, `{"provider":{"name":"openai"},"signing_key":"new key","previous_signing_keys":["{env.THINKGATE_TEST_OLD_KEY}"]}`)
	if _, _, ok := rotated.settings.Signer.Open(sig, "plan"); !ok {
		t.Fatal("a previous key does not verify")
	}
	newSig := rotated.settings.Signer.Sign(emit.OriginTags, "", "plan")
	if newSig == sig {
		t.Fatal("signed with the previous key")
	}
	if _, _, ok := a.settings.Signer.Open(newSig, "plan"); ok {
		t.Fatal("the old key verifies the new key's envelope")
	}
	noPrevious := provisionHandler(t, dir, `{"provider":{"name":"openai"},"signing_key":"new key"}`)
	if _, _, ok := noPrevious.settings.Signer.Open(sig, "plan"); ok {
		t.Fatal("without previous_signing_keys the old envelope still verifies")
	}
}

// TestLogFilterAdapts: the access-log filter the docs give for redacting
// the credential headers Caddy's own redaction misses adapts.
func TestLogFilterAdapts(t *testing.T) {
	out, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(`{
	log default {
		format filter {
			wrap json
			fields {
				request>headers>X-Api-Key replace REDACTED
				request>headers>Api-Key replace REDACTED
				request>headers>X-Goog-Api-Key replace REDACTED
				request>headers>X-Amz-Security-Token replace REDACTED
			}
		}
	}
}
:8080 {
	log {
		format filter {
			wrap json
			fields {
				request>headers>X-Api-Key replace REDACTED
				request>headers>Api-Key replace REDACTED
				request>headers>X-Goog-Api-Key replace REDACTED
				request>headers>X-Amz-Security-Token replace REDACTED
			}
		}
	}
	thinkgate anthropic
	reverse_proxy localhost:9
}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"request\u003eheaders\u003eX-Api-Key":{"filter":"replace","value":"REDACTED"}`, `"default":{"encoder":{"fields":`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("adapted config lacks %s:\n%s", want, out)
		}
	}
}

// TestExampleListensOnLoopback: the shipped example's gateway is reachable
// from the local machine only, since uncommenting an api_key there would
// otherwise let anyone on the network spend it.
func TestExampleListensOnLoopback(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "Caddyfile.example"))
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := caddyconfig.GetAdapter("caddyfile").Adapt(raw, map[string]any{"filename": "Caddyfile.example"})
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Apps struct {
			HTTP struct {
				Servers map[string]struct {
					Listen []string `json:"listen"`
				} `json:"servers"`
			} `json:"http"`
		} `json:"apps"`
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	var listens []string
	for _, srv := range cfg.Apps.HTTP.Servers {
		for _, l := range srv.Listen {
			listens = append(listens, l)
			if !strings.HasPrefix(l, "tcp/127.0.0.1:") && !strings.HasPrefix(l, "tcp/[::1]:") && !strings.HasPrefix(l, "127.0.0.1:") && !strings.HasPrefix(l, "[::1]:") {
				t.Errorf("the example listens on %s", l)
			}
		}
	}
	if len(listens) < 3 {
		t.Errorf("listen addresses %v", listens)
	}
}

// readOnlyStorage refuses every write, as a read-only data directory does.
type readOnlyStorage struct{ *certmagic.FileStorage }

func (readOnlyStorage) Store(context.Context, string, []byte) error {
	return errors.New("read-only file system")
}

// TestStoredSigningKeyUnwritable: storage the key cannot be written to
// stops the load with the way out.
func TestStoredSigningKeyUnwritable(t *testing.T) {
	_, err := storedSigningKey(context.Background(), readOnlyStorage{&certmagic.FileStorage{Path: t.TempDir()}}, zap.NewNop())
	want := "signing_key: not set, and storing a generated key at thinkgate/signing_key in "
	want2 := "failed: read-only file system (set signing_key, or give Caddy writable storage)"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.HasSuffix(err.Error(), want2) {
		t.Errorf("got %v", err)
	}
}

// TestHandlerOptionsListed: the options an unknown option's error lists are
// every option the handler takes.
func TestHandlerOptionsListed(t *testing.T) {
	listed := map[string]bool{}
	for _, o := range handlerOptions {
		listed[o] = true
	}
	for _, name := range optionNames(Handler{}) {
		switch name {
		case "provider":
			continue // the directive's argument
		case "models":
			name = "model"
		}
		if !listed[name] {
			t.Errorf("option %s is missing from handlerOptions", name)
		}
		delete(listed, name)
	}
	for o := range listed {
		t.Errorf("handlerOptions lists %s, which the handler does not take", o)
	}
}
