package providers

import (
	"regexp"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

func TestSettingsHint(t *testing.T) {
	cases := []struct {
		hint   string
		budget int
		want   string
	}{
		{"", 0, "<thinking_mode>interleaved</thinking_mode><max_thinking_length>16000</max_thinking_length>"},
		{"", -5, "<thinking_mode>interleaved</thinking_mode><max_thinking_length>16000</max_thinking_length>"},
		{"", 2048, "<thinking_mode>interleaved</thinking_mode><max_thinking_length>2048</max_thinking_length>"},
		{"think up to {budget} tokens; {budget}!", 1024, "think up to 1024 tokens; 1024!"},
		{"no placeholder", 1024, "no placeholder"},
	}
	for _, tc := range cases {
		s := &Settings{ThinkingHint: tc.hint}
		if got := s.Hint(wire.ThinkingParam{Present: true, Type: "enabled", BudgetTokens: tc.budget}); got != tc.want {
			t.Errorf("Hint(%q, %d) = %q, want %q", tc.hint, tc.budget, got, tc.want)
		}
	}
}

func TestSettingsMapModel(t *testing.T) {
	s := &Settings{Models: []ModelRule{
		{From: "claude-3-5-sonnet-20241022", To: "exact"},
		{From: "claude-*-haiku-*", To: "haiku-upstream"},
		{From: "claude-opus-?", To: "opus-one-char"},
		{From: "[", To: "malformed pattern never matches"},
		{From: "claude-*", To: "catch-all"},
	}}
	for in, want := range map[string]string{
		"claude-3-5-sonnet-20241022": "exact",
		"claude-3-5-haiku-20241022":  "haiku-upstream",
		"claude-opus-4":              "opus-one-char",
		"claude-opus-41":             "catch-all",
		"claude-sonnet-4-5":          "catch-all",
		"[":                          "[",
		"gpt-4o":                     "gpt-4o",
		"claude-x/y":                 "catch-all", // a model name is not a path: * crosses '/'
		"":                           "",
	} {
		if got := s.mapModel(in); got != want {
			t.Errorf("mapModel(%q) = %q, want %q", in, got, want)
		}
	}
	if got := (&Settings{}).mapModel("m"); got != "m" {
		t.Errorf("no rules: %q", got)
	}
}

func TestNewID(t *testing.T) {
	shape := regexp.MustCompile(`^(msg_|toolu_)[0-9A-Za-z]{24}$`)
	seen := map[string]bool{}
	for i := range 2000 {
		prefix := []string{"msg_", "toolu_"}[i%2]
		id := NewID(prefix)
		if !shape.MatchString(id) || !strings.HasPrefix(id, prefix) {
			t.Fatalf("NewID(%q) = %q", prefix, id)
		}
		if seen[id] {
			t.Fatalf("NewID repeated %q", id)
		}
		seen[id] = true
	}
}

func TestNewExchange(t *testing.T) {
	s := &Settings{DefaultThinking: true, Models: []ModelRule{{From: "claude-*", To: "up"}}}
	r := mustParse(t, `{"model":"claude-x","stream":true,"messages":[]}`)
	x := NewExchange(s, r, []byte("body"), ExchangeOptions{})
	if x.Settings != s || x.Request != r || string(x.Body) != "body" || x.ClientModel != "claude-x" ||
		x.UpstreamModel != "up" || !x.Streaming || !x.Thinking || !strings.HasPrefix(x.MessageID, "msg_") || x.Logger == nil {
		t.Errorf("NewExchange = %+v", x)
	}
	r = mustParse(t, `{"model":"m","messages":[],"thinking":{"type":"disabled"}}`)
	if x := NewExchange(s, r, nil, ExchangeOptions{}); x.Thinking || x.Streaming || x.UpstreamModel != "m" {
		t.Errorf("NewExchange = %+v", x)
	}
	// The options are the request's context; count_tokens is never a stream.
	r = mustParse(t, `{"model":"m","stream":true,"messages":[]}`)
	x = NewExchange(s, r, nil, ExchangeOptions{Path: "/v1/messages/count_tokens", RawQuery: "beta=true", ClientID: "c1", MapErrors: true})
	if !x.CountTokens || x.Streaming || x.Path != "/v1/messages/count_tokens" || x.RawQuery != "beta=true" || x.ClientID != "c1" || !x.MapErrors {
		t.Errorf("count_tokens exchange = %+v", x)
	}
	if x := NewExchange(s, r, nil, ExchangeOptions{Path: "/v1/messages"}); x.CountTokens || !x.Streaming {
		t.Errorf("messages exchange = %+v", x)
	}
}

func mustParse(t *testing.T, body string) *wire.Request {
	t.Helper()
	r, err := wire.ParseRequest([]byte(body))
	if err != nil {
		t.Fatalf("ParseRequest(%s): %v", body, err)
	}
	return r
}

func TestThinkingOrigin(t *testing.T) {
	signer := emit.NewSigner([]byte("thinking-origin-key"))
	s := &Settings{Signer: signer}
	const thinking = "Let me think."
	gemini := signer.Sign(emit.OriginGemini, "abc", thinking)
	tags := signer.Sign(emit.OriginTags, "", thinking)
	cases := []struct {
		name        string
		settings    *Settings
		block       wire.Block
		wantOrigin  emit.Origin
		wantForeign string
		wantOK      bool
	}{
		{"gemini", s, wire.Block{Type: "thinking", Thinking: thinking, Signature: gemini}, emit.OriginGemini, "abc", true},
		{"tags", s, wire.Block{Type: "thinking", Thinking: thinking, Signature: tags}, emit.OriginTags, "", true},
		{"edited thinking", s, wire.Block{Type: "thinking", Thinking: thinking + ".", Signature: tags}, 0, "", false},
		{"anthropic's own", s, wire.Block{Type: "thinking", Thinking: thinking, Signature: "EqQBCkgIBhABGAIiQHVu"}, 0, "", false},
		{"unsigned", s, wire.Block{Type: "thinking", Thinking: thinking}, 0, "", false},
		{"not a thinking block", s, wire.Block{Type: "redacted_thinking", Data: tags, Signature: tags}, 0, "", false},
		{"no signer", &Settings{}, wire.Block{Type: "thinking", Thinking: thinking, Signature: tags}, 0, "", false},
	}
	for _, tc := range cases {
		origin, foreign, ok := tc.settings.ThinkingOrigin(tc.block)
		if origin != tc.wantOrigin || foreign != tc.wantForeign || ok != tc.wantOK {
			t.Errorf("%s: got %c, %q, %v; want %c, %q, %v", tc.name, origin, foreign, ok, tc.wantOrigin, tc.wantForeign, tc.wantOK)
		}
	}
}
