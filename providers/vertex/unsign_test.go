package vertex

import (
	"testing"

	"github.com/thinkgate/thinkgate/providers/emit"
)

// Claude on Vertex gets the history as the anthropic provider rewrites it:
// thinking the gateway made from tags goes back as <thinking> text where it
// stood, another upstream's signed thinking is dropped; then Vertex's
// changes.
func TestClaudeHistoryUnsigned(t *testing.T) {
	s := testSettings()
	tagSig := s.Signer.Sign(emit.OriginTags, "foreign", "Need the weather.")
	gemSig := s.Signer.Sign(emit.OriginGemini, "foreign", "Gemini's thought.")
	body := `{"model":"claude-sonnet-4@20250514","max_tokens":5,"messages":[{"role":"user","content":"weather?"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"Gemini's thought.","signature":"` + gemSig + `"},` +
		`{"type":"text","text":"Intro. "},{"type":"thinking","thinking":"Need the weather.","signature":"` + tagSig + `"},{"type":"text","text":"Sunny."}]},` +
		`{"role":"user","content":"thanks"}]}`
	p, _ := newTestProvider(Config{})
	out, _, err := rewrite(t, p, s, "/v1/messages", body, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"anthropic_version":"vertex-2023-10-16","max_tokens":5,"messages":[{"role":"user","content":"weather?"},` +
		`{"role":"assistant","content":[{"type":"text","text":"Intro. "},{"type":"text","text":"\u003cthinking\u003eNeed the weather.\u003c/thinking\u003e"},{"type":"text","text":"Sunny."}]},` +
		`{"role":"user","content":"thanks"}]}`
	// The fields are written as encoding/json writes them, < and > escaped.
	if string(out.Body) != want {
		t.Errorf("body\n%s\nwant\n%s", out.Body, want)
	}
}
