package amazonq

import (
	"strings"
	"testing"
)

// TestFastHistoryLongerThanMessages: a history of many short turns comes
// out longer than the messages it is written from (each entry carries the
// model id and origin), past the room left for it; the fast converter
// still writes it, the same as the typed one.
func TestFastHistoryLongerThanMessages(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"model":"m","messages":[`)
	for i := 0; i < 2000; i++ {
		b.WriteString(`{"role":"user","content":"q"},{"role":"assistant","content":""},`)
	}
	b.WriteString(`{"role":"user","content":"last"}]}`)
	p := testProvider(Config{ProfileARN: "arn:aws:codewhisperer:us-east-1:1:profile/P"})
	checkFastMatchesTyped(t, p, testSettings(), []byte(b.String()))
}

// TestFastRewrittenStrings: strings whose escapes the escaper writes
// otherwise (\/, upper-case hex, \u of a plain character) are rewritten
// wherever the fast converter writes them, merged turns included, the same
// as by the typed converter.
func TestFastRewrittenStrings(t *testing.T) {
	const odd = `a\/b \u00E9 \u0041`
	body := `{"model":"m","thinking":{"type":"enabled","budget_tokens":2000},"system":[{"type":"text","text":"` + odd + `"}],"messages":[` +
		`{"role":"user","content":[{"type":"text","text":"` + odd + `"},{"type":"image","source":{"type":"base64","media_type":"image\/png","data":"A\/A"}},{"type":"document","source":{"type":"text","data":"` + odd + `"}}]},` +
		`{"role":"user","content":"` + odd + `"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"` + odd + `","signature":"s"},{"type":"text","text":"` + odd + `"},{"type":"tool_use","id":"t\/1","name":"Bash","input":{"c":"` + odd + `"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t\/1","content":[{"type":"text","text":"` + odd + `"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"A\/A"}},{"type":"document","source":{"type":"url","url":"` + odd + `"}}]}]},` +
		`{"role":"assistant","content":"` + odd + `"},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t\/1","content":"` + odd + `"},{"type":"text","text":"` + odd + `"}]}]}`
	p := testProvider(Config{})
	checkFastMatchesTyped(t, p, testSettings(), []byte(body))
}
