package caddymodule

import (
	"net/url"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// TestModelTargetStars: a target's '*' needs a '*' of the pattern to fill
// it, in the Caddyfile and in JSON.
func TestModelTargetStars(t *testing.T) {
	var h Handler
	err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("thinkgate openai {\n model openrouter,* *\n model x */*\n}"))
	want := "model x */*: the target has 2 '*' but the pattern only 0; each '*' of the target is what the '*' of the same rank in the pattern matched"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to contain %q", err, want)
	}
	h = Handler{}
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("thinkgate openai {\n model openrouter,* *\n model *,*-latest *-*\n}")); err != nil {
		t.Fatal(err)
	}
	h.Models[1].To = "***"
	if err := h.Validate(); err == nil || !strings.Contains(err.Error(), "the target has 3 '*' but the pattern only 2") {
		t.Errorf("Validate: %v", err)
	}
}

// TestModelsPage: Anthropic's paging of the models list, exactly.
func TestModelsPage(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e"}
	m := func(ids ...string) string {
		var parts []string
		for _, id := range ids {
			parts = append(parts, `{"type":"model","id":"`+id+`","display_name":"`+id+`","created_at":"1970-01-01T00:00:00Z"}`)
		}
		return `{"data":[` + strings.Join(parts, ",") + `]`
	}
	for _, c := range []struct{ query, want string }{
		{"", m("a", "b", "c", "d", "e") + `,"has_more":false,"first_id":"a","last_id":"e"}`},
		{"limit=2", m("a", "b") + `,"has_more":true,"first_id":"a","last_id":"b"}`},
		{"limit=2&after_id=b", m("c", "d") + `,"has_more":true,"first_id":"c","last_id":"d"}`},
		{"limit=2&after_id=d", m("e") + `,"has_more":false,"first_id":"e","last_id":"e"}`},
		{"after_id=e", `{"data":[],"has_more":false,"first_id":null,"last_id":null}`},
		{"limit=2&before_id=e", m("c", "d") + `,"has_more":true,"first_id":"c","last_id":"d"}`},
		{"limit=2&before_id=c", m("a", "b") + `,"has_more":false,"first_id":"a","last_id":"b"}`},
		{"limit=1000", m("a", "b", "c", "d", "e") + `,"has_more":false,"first_id":"a","last_id":"e"}`},
		{"limit=0", `limit: must be a whole number from 1 to 1000, got "0"`},
		{"limit=1001", `limit: must be a whole number from 1 to 1000, got "1001"`},
		{"after_id=zz", `after_id: no model "zz" in the list`},
		{"after_id=a&before_id=c", "after_id and before_id: give one or the other, not both"},
	} {
		q, _ := url.ParseQuery(c.query)
		b, err := modelsPage(names, q, func(n string) any { return newModelInfo(n) })
		got := string(b)
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.query, got, c.want)
		}
	}
}

// TestAdvertisedModels: advertise_models, else the model rules' plain
// patterns once each in order, then the cards' plain names not listed yet;
// "off" lists nothing.
func TestAdvertisedModels(t *testing.T) {
	for _, c := range []struct{ caddyfile, want string }{
		{"thinkgate openai {\n model claude-haiku-4-5 gpt-4.1-mini\n model claude-* gpt-4.1\n model openrouter,* *\n model claude-opus-4-6 o3\n model claude-haiku-4-5 x\n}", "claude-haiku-4-5 claude-opus-4-6"},
		{"thinkgate openai {\n model claude-haiku-4-5 gpt-4.1-mini\n advertise_models m1 m2\n}", "m1 m2"},
		{"thinkgate openai {\n model claude-haiku-4-5 gpt-4.1-mini\n advertise_models off\n}", ""},
		{"thinkgate openai", ""},
		{"thinkgate openai {\n model claude-haiku-4-5 x\n model_info claude-sonnet-4-5 {\n max_input_tokens 1\n max_tokens 1\n }\n model_info claude-* {\n max_input_tokens 1\n max_tokens 1\n }\n model_info claude-haiku-4-5 {\n max_input_tokens 1\n max_tokens 1\n }\n}", "claude-haiku-4-5 claude-sonnet-4-5"},
		{"thinkgate openai {\n advertise_models m1\n model_info m2 {\n max_input_tokens 1\n max_tokens 1\n }\n}", "m1 m2"},
		{"thinkgate openai {\n advertise_models off\n model_info m2 {\n max_input_tokens 1\n max_tokens 1\n }\n}", ""},
	} {
		var h Handler
		if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(c.caddyfile)); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(h.advertisedModels(), " "); got != c.want {
			t.Errorf("%q: %q, want %q", c.caddyfile, got, c.want)
		}
	}
}
