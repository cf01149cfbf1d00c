package anthropic_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
	"github.com/thinkgate/thinkgate/providers/emit"
)

// TestScannedHistoryForwarded: a history with nothing for the gateway to
// change (Anthropic's own signatures, escapes, a lone surrogate escape and
// a stray byte the gateway does not decode, an image) reaches the upstream
// byte for byte, on /v1/messages and count_tokens; one with a gateway
// signature is still rewritten; and a request the gateway rejects gets the
// same error as before the scan.
func TestScannedHistoryForwarded(t *testing.T) {
	var turns []string
	for i := 0; i < 40; i++ {
		turns = append(turns,
			`{"role":"assistant","content":[{"type":"thinking","thinking":"Step \u00e9 \"quoted\"\n","signature":"EqQBCkgIARABGAIiQLx7Qm"},{"type":"text","text":"Reading."},{"type":"tool_use","id":"toolu_01","name":"bash","input":{"command":"cat a.go"}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"func main() {\n\tfmt.Println(\"h\u00e9llo \\\"w\u00f6rld\\\"\")\t// \ud800 日本語 `+"\xff"+`\n}\n"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}`)
	}
	untouched := `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"thinking":{"type":"enabled","budget_tokens":2048},` +
		`"tools":[{"name":"bash","description":"Runs \"bash\"","input_schema":{"type":"object"}}],"system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],` +
		`"messages":[{"role":"user","content":"Fix it."},` + strings.Join(turns, ",") + `]}`

	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/count_tokens") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"input_tokens":7}`)
			return
		}
		testgw.WriteChunks(w, "text/event-stream", upstreamSSE, 64)
	})
	gw := testgw.Start(t, testgw.SlotAnthropic, site("", up))
	for _, path := range []string{"/v1/messages", "/v1/messages/count_tokens"} {
		if res, body := gw.PostRead(path, untouched); res.StatusCode != 200 {
			t.Fatalf("%s: status %d %s", path, res.StatusCode, body)
		}
		if got := up.Last(t); got.Path != path || string(got.Body) != untouched {
			t.Errorf("%s: upstream got %s, body changed:\n%s", path, got.Path, got.Body)
		}
	}

	// The gateway's own signature in an assistant turn: that turn is
	// rewritten, the rest kept.
	sig := emit.NewSigner([]byte(signingKey)).Sign(emit.OriginTags, "", "Think.")
	signed := `{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"Hi"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"Think.","signature":"` + sig + `"},{"type":"text","text":"Hello."}]},` +
		`{"role":"user","content":"Again"}]}`
	const unsigned = `{"max_tokens":1024,"messages":[{"role":"user","content":"Hi"},` +
		`{"role":"assistant","content":[{"type":"text","text":"\u003cthinking\u003eThink.\u003c/thinking\u003e"},{"type":"text","text":"Hello."}]},` +
		`{"role":"user","content":"Again"}],"model":"claude-sonnet-4-5"}`
	if res, body := gw.PostRead("/v1/messages", signed); res.StatusCode != 200 {
		t.Fatalf("signed: status %d %s", res.StatusCode, body)
	}
	if got := up.Last(t).Body; string(got) != unsigned {
		t.Errorf("signed history went upstream as\n%s\nwant\n%s", got, unsigned)
	}

	for _, c := range []struct{ body, want string }{
		{`{"model":"m","messages":[{"role":"user","content":"x"},{"role":"bot","content":"y"}]}`,
			`{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.role: must be \"user\" or \"assistant\", got \"bot\""}}`},
		{`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":5}]}]}`,
			`{"type":"error","error":{"type":"invalid_request_error","message":"invalid request: messages.content.text: expected a string, got number"}}`},
		{`{"model":"m"}`,
			`{"type":"error","error":{"type":"invalid_request_error","message":"messages: Field required"}}`},
	} {
		res, body := gw.PostRead("/v1/messages", c.body)
		if res.StatusCode != 400 || body != c.want {
			t.Errorf("%s: got %d %s\nwant 400 %s", c.body, res.StatusCode, body, c.want)
		}
	}
}
