package azure

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// testSigningKey signs the gateway-signed fixtures in testdata/clean.
const testSigningKey = "test-signing-key"

func testSettings(models ...providers.ModelRule) *providers.Settings {
	return &providers.Settings{
		DefaultThinking: true,
		Models:          models,
		Signer:          emit.NewSigner([]byte(testSigningKey)),
	}
}

func exchange(t testing.TB, s *providers.Settings, body []byte) *providers.Exchange {
	t.Helper()
	req, err := wire.ParseRequest(body)
	if err != nil {
		t.Fatalf("ParseRequest: %v", err)
	}
	return providers.NewExchange(s, req, body, providers.ExchangeOptions{NewBody: providertest.DirtyBody})
}

// TestCleanGolden runs every cleaning rule on a before file and compares
// what Azure would receive with the after file, as JSON values. Run with
// UPDATE_GOLDEN=1 to rewrite the after files (then review them).
func TestCleanGolden(t *testing.T) {
	cases := []struct {
		name   string
		cfg    Config
		models []providers.ModelRule
		want   Changes
	}{
		{name: "drop_fields", want: Changes{Fields: []string{"context_management", "betas", "anthropic_beta"}}},
		{name: "drop_fields_option", cfg: Config{DropFields: []string{"output_config", "container", "not_present"}},
			want: Changes{Fields: []string{"context_management", "output_config", "container"}}},
		{name: "thinking_unsigned", want: Changes{Thinking: 2, ThinkingParam: true}},
		{name: "thinking_signed"},
		{name: "thinking_gateway_signed", want: Changes{Thinking: 3, GatewaySigned: 3, Messages: 1, ThinkingParam: true}},
		{name: "redacted_thinking", want: Changes{Redacted: 2, ThinkingParam: true}},
		{name: "empty_messages", want: Changes{Messages: 5}},
		{name: "empty_after_drop", want: Changes{Thinking: 1, Messages: 1, ThinkingParam: true}},
		{name: "tools_custom_wrapper", want: Changes{Tools: 2}},
		{name: "tools_openai_function", want: Changes{Tools: 3}},
		{name: "tools_extra_fields", want: Changes{Tools: 4}},
		{name: "tools_server_kept"},
		{name: "model_mapping", models: []providers.ModelRule{{From: "claude-opus-*", To: "opus-deployment"}}, want: Changes{Model: true}},
		{name: "untouched"},
		{name: "claude_code", models: []providers.ModelRule{{From: "claude-opus-4-6", To: "claude-opus-4-6-foundry"}},
			want: Changes{Fields: []string{"context_management"}, Thinking: 1, ThinkingParam: true, Tools: 2, Model: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := readFile(t, filepath.Join("testdata", "clean", c.name+".before.json"))
			x := exchange(t, testSettings(c.models...), before)
			got, ch, err := New(c.cfg).Clean(x)
			if err != nil {
				t.Fatalf("Clean: %v", err)
			}
			if !reflect.DeepEqual(ch, c.want) {
				t.Errorf("changes = %+v, want %+v", ch, c.want)
			}
			if !json.Valid(got) {
				t.Fatalf("output is not JSON: %s", got)
			}
			if !c.want.Any() && !bytes.Equal(got, before) {
				// Nothing to clean: the client's bytes go through as they are.
				t.Errorf("unchanged request was rewritten:\n%s", got)
			}
			golden.JSON(t, filepath.Join("clean", c.name+".after.json"), got)
		})
	}
}

// TestGatewaySignedFixture guards the fixture: the blocks it claims the
// gateway signed really open with the test key, except the foreign-key one.
func TestGatewaySignedFixture(t *testing.T) {
	s := testSettings()
	body := readFile(t, filepath.Join("testdata", "clean", "thinking_gateway_signed.before.json"))
	x := exchange(t, s, body)
	var origins []emit.Origin
	for _, m := range x.Request.Messages {
		for _, b := range m.Content.Blocks {
			if b.Type != "thinking" {
				continue
			}
			if o, _, ok := s.ThinkingOrigin(b); ok {
				origins = append(origins, o)
			} else if !wire.IsGatewaySignature(b.Signature) {
				t.Errorf("block %q has no gateway envelope", b.Thinking)
			}
		}
	}
	if want := []emit.Origin{emit.OriginTags, emit.OriginGemini}; !reflect.DeepEqual(origins, want) {
		t.Errorf("origins = %q, want %q", origins, want)
	}
}

// TestCleanKeepsOrder: the top-level fields and the kept blocks keep the
// client's order and bytes; only what was cleaned changes.
func TestCleanKeepsOrder(t *testing.T) {
	body := []byte(`{"z_first":1,"model":"m","context_management":{},"messages":[{"role":"user","content":"a <b> & c"},{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"x"}]}],"a_last":{"k":  [1, 2]}}`)
	x := exchange(t, testSettings(), body)
	got, _, err := New(Config{}).Clean(x)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"z_first":1,"model":"m","messages":[{"role":"user","content":"a <b> & c"},{"role":"assistant","content":[{"type":"text","text":"x"}]}],"a_last":{"k":  [1, 2]}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestCleanModelAdded: a mapped model is written even when the client's body
// had no model field (a "*" rule matches the empty name).
func TestCleanModelAdded(t *testing.T) {
	x := exchange(t, testSettings(providers.ModelRule{From: "*", To: "dep"}), []byte(`{"messages":[{"role":"user","content":"hi"}]}`))
	got, _, err := New(Config{}).Clean(x)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"messages":[{"role":"user","content":"hi"}],"model":"dep"}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCleanEdges: odd but valid requests are handled without error.
func TestCleanEdges(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"model":"m","messages":[]}`, `{"model":"m","messages":[]}`},
		{`{"model":"m","messages":[],"tools":[]}`, `{"model":"m","messages":[],"tools":[]}`},
		{`{"model":"m","messages":[{"role":"user","content":[]}],"thinking":{"type":"enabled","budget_tokens":1024}}`,
			`{"model":"m","messages":[],"thinking":{"type":"enabled","budget_tokens":1024}}`},
		{`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"x","signature":null}]}],"thinking":false}`,
			`{"model":"m","messages":[]}`},
		{`{ "model" : "m" , "context_management" : null , "messages" : [ { "role" : "user" , "content" : "hi" } ] }`,
			`{"model":"m","messages":[ { "role" : "user" , "content" : "hi" } ]}`},
		{`{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","description":null,"parameters":null}}]}`,
			`{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"f","input_schema":{"type":"object","properties":{}}}]}`},
	} {
		got, _, err := New(Config{}).Clean(exchange(t, testSettings(), []byte(c.in)))
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%s\ngot  %s\nwant %s", c.in, got, c.want)
		}
	}
}
