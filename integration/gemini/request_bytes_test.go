package gemini_test

import (
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestHistoryFromClientBytes: a history with escapes of every kind (ones
// Gemini's body writes the same, \/, \u escapes of printable characters,
// upper-case hex, a surrogate pair, a raw U+2028), members in an unusual
// order (content before role, type last) and a role "system" turn reaches
// Gemini as exactly this body: each string in the escapes Gemini's body
// uses, whatever the client wrote.
func TestHistoryFromClientBytes(t *testing.T) {
	up := mockGemini(t, jsonReply(`{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP"}]}`))
	gw := testgw.Start(t, testgw.SlotGemini, site("", up))
	req := `{"messages":[` +
		`{"content":[{"text":"caf\u00e9 \/ \u001B[0m \"q\" ` + "\u2028" + ` <b>&","type":"text"}],"role":"user"},` +
		`{"content":[{"input":{ "path" : "a\/b" },"name":"read","id":"toolu_1","type":"tool_use"}],"role":"assistant"},` +
		`{"role":"system","content":"Be brief."},` +
		`{"content":[{"content":[{"type":"text","text":"line\none"},{"text":"two\t\u0009","type":"text"}],"tool_use_id":"toolu_1","type":"tool_result"},{"type":"text","text":"go on"}],"role":"user"}],` +
		`"model":"claude-sonnet-4-5","max_tokens":100,"system":"Sys \ud83d\ude00"}`
	res, body := gw.PostRead("/v1/messages", req)
	if res.StatusCode != 200 || !strings.Contains(body, `"text":"ok"`) {
		t.Fatalf("got %d %s", res.StatusCode, body)
	}
	want := `{"contents":[` +
		`{"role":"user","parts":[{"text":"café / \u001b[0m \"q\" \u2028 <b>&"}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"read","args":{"path":"a\/b"}},"thoughtSignature":"skip_thought_signature_validator"}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"read","response":{"output":"line\none\ntwo\t\t"}}},{"text":"go on"}]}],` +
		`"systemInstruction":{"parts":[{"text":"Sys 😀"},{"text":"Be brief."}]},` +
		`"generationConfig":{"maxOutputTokens":100,"thinkingConfig":{"includeThoughts":true,"thinkingBudget":1024}}}`
	if got := string(up.Last(t).Body); got != want {
		t.Errorf("Gemini got\n%s\nwant\n%s", got, want)
	}
}
