package wire

import (
	"fmt"
	"strings"
	"testing"
)

// TestCheckAnthropicRulesHistory: the walk reads ids spelled with escapes,
// skips a system turn, and passes a long history holding every kind of
// block Claude Code sends.
func TestCheckAnthropicRulesHistory(t *testing.T) {
	for _, c := range []struct {
		name, messages, want string
	}{
		{"escaped id", `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu\u005f1","name":"Read","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a"}]}]`, ""},
		{"system turn between", `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{}}]},` +
			`{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a"}]}]`, ""},
		{"after a user turn", `[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{}}]},{"role":"user","content":"q"},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a"}]}]`,
			"messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."},
		{"assistant blocks are not checked", `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"future_block"}]}]`, ""},
		{"history", history(200), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := `{"model":"m","max_tokens":10,"messages":` + c.messages + `}`
			r, err := ParseRequest([]byte(body))
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if e := CheckAnthropicRules(r, false); e != nil {
				got = e.Message
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// history is n rounds of thinking, a tool call and its result.
func history(n int) string {
	var b strings.Builder
	b.WriteString(`[{"role":"user","content":[{"type":"text","text":"Start.","cache_control":{"type":"ephemeral"}},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}`)
	for i := range n {
		fmt.Fprintf(&b, `,{"role":"assistant","content":[{"type":"thinking","thinking":"Thought %d \"quoted\" \\n","signature":"sig"},{"type":"text","text":"Calling."},`+
			`{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"echo %d"}}]},`+
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":[{"type":"text","text":"%s"}]},{"type":"text","text":"go on"}]}`,
			i, i, i, i, strings.Repeat("output line\\n", 400))
	}
	b.WriteString(`]`)
	return b.String()
}

// BenchmarkCheckAnthropicRules: the walk's cost per byte of a Claude Code
// history (about 1 MB), after the parse's own.
func BenchmarkCheckAnthropicRules(b *testing.B) {
	body := []byte(`{"model":"m","max_tokens":10,"messages":` + history(200) + `}`)
	r, err := ScanRequest(body)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if e := CheckAnthropicRules(r, false); e != nil {
			b.Fatal(e)
		}
	}
}
