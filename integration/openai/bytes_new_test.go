package openai_test

import (
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
	"github.com/thinkgate/thinkgate/providers/openai/openaitest"
)

// TestHistoryFromClientBytes: a history whose strings mix escapes the
// gateway's encoder writes (\n, \t, \") with ones it does not (\/, \u0022,
// \u00e9), sent with its members in an unusual order, reaches the upstream
// as exactly the Chat Completions body the typed converter writes: the
// handler reads the request with a scan and converts it from the client's
// bytes, copying the canonical strings and writing the others again.
func TestHistoryFromClientBytes(t *testing.T) {
	const body = `{"model":"claude-test","max_tokens":100,"stream":true,"thinking":{"type":"disabled"},` +
		`"system":[{"type":"text","text":"Be brief. a\/b \u00e9"}],"messages":[` +
		`{"content":"Read \u0022x\u0022 <now> & go","role":"user"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"sig"},{"type":"text","text":"Reading."},` +
		`{"input":{"path" : "a\/b.go"},"name":"Read","id":"toolu_1","type":"tool_use"}]},` +
		`{"role":"user","content":[{"tool_use_id":"toolu_1","content":[{"type":"text","text":"package main\n\nfunc main() {\n\tprintln(\"h\u00e9llo\")\n}\n"},` +
		`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo\/AAAA"}}],"type":"tool_result"},{"type":"text","text":"Go on."}]}]}`
	const want = `{"model":"claude-test","messages":[{"role":"system","content":"Be brief. a/b é"},` +
		`{"role":"user","content":"Read \"x\" <now> & go"},` +
		`{"role":"assistant","content":"Reading.","tool_calls":[{"id":"toolu_1","type":"function","function":{"name":"Read","arguments":"{\"path\":\"a\\/b.go\"}"}}]},` +
		`{"role":"tool","content":"package main\n\nfunc main() {\n\tprintln(\"héllo\")\n}\n","tool_call_id":"toolu_1"},` +
		`{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo/AAAA"}},{"type":"text","text":"Go on."}]}],` +
		`"max_tokens":100,"stream":true,"stream_options":{"include_usage":true}}`
	up := streaming(t, openaitest.New().Content("Done.", 5).Finish("stop").Usage(10, 2, 0).Done().Bytes(), 64)
	gw := testgw.Start(t, testgw.SlotOpenAI, site("", up))

	_, got := events(t, gw, "/v1/messages", body)
	if s := string(up.Last(t).Body); s != want {
		t.Errorf("upstream body\n%s\nwant\n%s", s, want)
	}
	testgw.Diff(t, "events", got, []string{
		"message_start",
		`content_block_start 0 {"type":"text","text":""}`,
		`text_delta 0 "Done."`,
		"content_block_stop 0",
		"message_delta end_turn",
		"message_stop",
	})
}
