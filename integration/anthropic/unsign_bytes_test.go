package anthropic_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
	"github.com/thinkgate/thinkgate/providers/emit"
)

// TestLongSignedHistoryUnsigned: a long agent session as a Python client
// sends it (spaces after separators, each message's content before its
// role, non-ASCII escaped, / escaped), every assistant turn opening with
// thinking the gateway signed, reaches Anthropic with exactly the bytes
// below: each tag-derived span as <thinking> text where it stood, escaped
// as encoding/json escapes it, the user turns compacted and otherwise as
// sent, and thinking off because the last tool turn no longer opens with
// thinking.
func TestLongSignedHistoryUnsigned(t *testing.T) {
	signer := emit.NewSigner([]byte(signingKey))
	const turns = 60
	var sent, want []string
	for i := 0; i < turns; i++ {
		thinking := fmt.Sprintf("Step %d: read a/b and caf\u00e9 <then> test.", i)
		sig := signer.Sign(emit.OriginTags, "", thinking)
		escaped := fmt.Sprintf(`Step %d: read a\/b and caf\u00e9 <then> test.`, i)
		id := fmt.Sprintf("toolu_%03d", i)
		sent = append(sent,
			`{"content": [{"type": "thinking", "thinking": "`+escaped+`", "signature": "`+sig+`"}, {"type": "tool_use", "id": "`+id+`", "name": "bash", "input": {"command": "cat a.go"}}], "role": "assistant"}`,
			`{"content": [{"type": "tool_result", "tool_use_id": "`+id+`", "content": "func main() {\n\tfmt.Println(\"h\u00e9llo\")\n}\n"}], "role": "user"}`)
		want = append(want,
			fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"\u003cthinking\u003eStep %d: read a/b and café \u003cthen\u003e test.\u003c/thinking\u003e"},{"type":"tool_use","id":"%s","name":"bash","input":{"command":"cat a.go"}}]}`, i, id),
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+id+`","content":"func main() {\n\tfmt.Println(\"h\u00e9llo\")\n}\n"}]}`)
	}
	reqBody := `{"model": "claude-sonnet-4-5", "max_tokens": 1024, "thinking": {"type": "enabled", "budget_tokens": 2048}, "messages": [` +
		`{"content": "Fix the test.", "role": "user"}, ` + strings.Join(sent, ", ") + `]}`
	wantBody := `{"max_tokens":1024,"messages":[{"role":"user","content":"Fix the test."},` + strings.Join(want, ",") + `],"model":"claude-sonnet-4-5"}`

	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(messageJSON))
	})
	gw := testgw.Start(t, testgw.SlotAnthropic, site("", up))
	if res, body := gw.PostRead("/v1/messages", reqBody); res.StatusCode != 200 {
		t.Fatalf("status %d %s", res.StatusCode, body)
	}
	if got := string(up.Last(t).Body); got != wantBody {
		t.Errorf("upstream body\n%s\nwant\n%s", got, wantBody)
	}
}
