package caddymodule

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddytest"

	// The reverse_proxy and encode directives of the adapt tests.
	_ "github.com/caddyserver/caddy/v2/modules/standard"
)

func TestUnmarshalCaddyfile(t *testing.T) {
	d := caddyfile.NewTestDispenser(`thinkgate anthropic {
		api_key {env.UPSTREAM_KEY}
		model claude-* upstream-1
		model gpt-? upstream-2
		split_tags off
		thinking_block text
		tags thinking think
		start_in_thinking
		parse_in_code_fences on
		max_tag_length 4KiB
		default_thinking off
		thinking_hint "think: {budget}"
		keepalive 3s
		max_request_body 1MiB
		client_keys a {env.B}
		client_keys_file /etc/keys
		signing_key {env.SIGNING}
	}`)
	var h Handler
	if err := h.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(h)
	want := `{"provider":{"api_key":"{env.UPSTREAM_KEY}","name":"anthropic"},"split_tags":false,"thinking_block":"text","tags":["thinking","think"],"start_in_thinking":true,"parse_in_code_fences":true,"max_tag_length":4096,"default_thinking":false,"thinking_hint":"think: {budget}","models":[{"from":"claude-*","to":"upstream-1"},{"from":"gpt-?","to":"upstream-2"}],"keepalive":3000000000,"max_request_body":1048576,"signing_key":"{env.SIGNING}","client_keys":["a","{env.B}"],"client_keys_file":"/etc/keys"}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestUnmarshalCaddyfileErrors(t *testing.T) {
	for _, c := range []struct{ input, want string }{
		{`thinkgate`, "expected a provider name"},
		{`thinkgate nosuch`, `unknown provider "nosuch"; the providers are amazonq, anthropic, azure, bedrock, gemini, openai, responses, vertex`},
		{"thinkgate anthropic {\n bogus 1\n}", "thinkgate anthropic: unknown option 'bogus'"},
		{"thinkgate anthropic {\n thinking_block fancy\n}", `thinking_block: must be thinking or text, got "fancy"`},
		{"thinkgate anthropic {\n split_tags maybe\n}", `split_tags: expected on or off, got "maybe"`},
		{"thinkgate anthropic {\n model onlyone\n}", "model: expected <from> <to>, got 1 arguments"},
		{"thinkgate anthropic {\n model [ x\n}", `model: bad pattern "["`},
		{"thinkgate anthropic {\n keepalive soon\n}", "keepalive:"},
		{"thinkgate anthropic {\n keepalive 0s\n}", `keepalive: "0s" is not a positive duration or off; write e.g. 30s, 5m or off`},
		{"thinkgate anthropic {\n max_request_body lots\n}", "max_request_body:"},
		{"thinkgate anthropic {\n tags\n}", "wrong argument count"},
		{"thinkgate anthropic {\n path a b\n}", "wrong argument count"},
		{"thinkgate anthropic extra", "wrong argument count"},
	} {
		var h Handler
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(c.input))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.input, err, c.want)
		}
	}
}

// TestAdapt: the Caddyfile adapts to the documented JSON, with thinkgate
// ordered inside encode and before reverse_proxy whatever the order written.
func TestAdapt(t *testing.T) {
	caddytest.AssertAdapt(t, `:8080 {
	reverse_proxy localhost:9000
	thinkgate anthropic {
		split_tags
		keepalive off
	}
	encode
}`, "caddyfile", `{
	"apps": {
		"http": {
			"servers": {
				"srv0": {
					"listen": [
						":8080"
					],
					"routes": [
						{
							"handle": [
								{
									"encodings": {
										"gzip": {},
										"zstd": {}
									},
									"handler": "encode",
									"prefer": [
										"zstd",
										"gzip"
									]
								},
								{
									"handler": "thinkgate",
									"keepalive": -1,
									"provider": {
										"name": "anthropic"
									},
									"split_tags": true
								},
								{
									"handler": "reverse_proxy",
									"upstreams": [
										{
											"dial": "localhost:9000"
										}
									]
								}
							]
						}
					]
				}
			}
		}
	}
}`)
}
