package amazonq_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestHistoryFromClientBytes: a history sent with escapes of every kind
// reaches Amazon Q with exactly the text the client meant, escaped the
// upstream's way: \/ and \u escapes of printable characters written
// plainly, < and & raw (as the client wrote some of them), U+2028
// escaped, quotes, backslashes and control characters as JSON needs them;
// members in any order; the assistant's thinking in its tags and its
// tool_use as the client sent it, compacted.
func TestHistoryFromClientBytes(t *testing.T) {
	up := upstream(t, join(text(t, "Done."), metadata(t, 5, 2)), 64)
	gw := testgw.Start(t, testgw.SlotAmazonQ, site(t, "", up))
	// The client's JSON, escapes as clients write them.
	code := `func main() {\n\tfmt.Println(\"h\u00e9llo \\\"w\u00f6rld\\\"\")\t// \u003cb\u003e&amp; <i> \u65e5\u672c \u2028 a\/b \u001b[0m\n}`
	const codeText = "func main() {\n\tfmt.Println(\"héllo \\\"wörld\\\"\")\t// <b>&amp; <i> 日本 \u2028 a/b \x1b[0m\n}"
	body := `{"model":"claude-test","max_tokens":4096,"stream":true,"thinking":{"type":"enabled","budget_tokens":2000},
		"metadata":{"user_id":"{\"session_id\":\"5b6c7d8e-9fa0-4b1c-8d2e-3f4a5b6c7d8e\"}"},
		"messages":[
			{"role":"user","content":[{"type":"text","text":"Read main.go"}]},
			{"content":[{"signature":"EqQBCkgIARAB","thinking":"I \/ will read it.","type":"thinking"},{"text":"Reading.","type":"text"},
				{"id":"toolu_1","input":{ "path" : "main.go", "n" : [1, 2] },"name":"Read","type":"tool_use"}],"role":"assistant"},
			{"role":"user","content":[{"content":"` + code + `","tool_use_id":"toolu_1","type":"tool_result"},{"type":"text","text":"Explain."}]}]}`
	if res, got := gw.PostRead("/v1/messages", body); res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, got)
	}
	sent := up.Last(t).Body
	var req struct {
		ConversationState struct {
			CurrentMessage struct {
				UserInputMessage struct {
					Content                 string `json:"content"`
					UserInputMessageContext struct {
						ToolResults []struct {
							ToolUseID string `json:"toolUseId"`
							Content   []struct {
								Text string `json:"text"`
							} `json:"content"`
							Status string `json:"status"`
						} `json:"toolResults"`
					} `json:"userInputMessageContext"`
				} `json:"userInputMessage"`
			} `json:"currentMessage"`
			History []json.RawMessage `json:"history"`
		} `json:"conversationState"`
	}
	if err := json.Unmarshal(sent, &req); err != nil {
		t.Fatalf("upstream body %s: %v", sent, err)
	}
	cur := req.ConversationState.CurrentMessage.UserInputMessage
	results := cur.UserInputMessageContext.ToolResults
	if len(results) != 1 || results[0].ToolUseID != "toolu_1" || results[0].Status != "success" ||
		len(results[0].Content) != 1 || results[0].Content[0].Text != codeText {
		t.Errorf("tool results %+v, want the code %q", results, codeText)
	}
	if !strings.Contains(cur.Content, "--- USER MESSAGE BEGIN ---\nExplain.\n<thinking_mode>") {
		t.Errorf("current message %q", cur.Content)
	}
	wantHistory := []string{
		`{"userInputMessage":{"content":"Read main.go","modelId":"claude-test","origin":"AI_EDITOR"}}`,
		`{"assistantResponseMessage":{"content":"<thinking>I / will read it.</thinking>Reading.","toolUses":[{"toolUseId":"toolu_1","name":"Read","input":{"path":"main.go","n":[1,2]}}]}}`,
	}
	if h := req.ConversationState.History; len(h) != 2 || string(h[0]) != wantHistory[0] || string(h[1]) != wantHistory[1] {
		t.Errorf("history:\n%s\nwant:\n%s", h, strings.Join(wantHistory, "\n"))
	}
	// The code's bytes upstream: the escaper's escapes, nothing else.
	wantCode := `func main() {\n\tfmt.Println(\"héllo \\\"wörld\\\"\")\t// <b>&amp; <i> 日本 \u2028 a/b \u001b[0m\n}`
	if !strings.Contains(string(sent), `"content":[{"text":"`+wantCode+`"}]`) {
		t.Errorf("upstream body does not hold the code as %s:\n%s", wantCode, sent)
	}
}
