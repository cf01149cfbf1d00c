package amazonq_test

import (
	"encoding/json"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestConversationIDPerClient: with client_keys, the conversationId Amazon
// Q gets is keyed by the gateway and the client's key. Two clients sending
// the same session id, or the same prompt, land in different conversations;
// one client keeps one id across the turns of its conversation; and a
// session id a client names is never sent as is.
func TestConversationIDPerClient(t *testing.T) {
	up := upstream(t, join(text(t, "Hi."), metadata(t, 5, 2)), 64)
	gw := testgw.Start(t, testgw.SlotAmazonQ, site(t, "\tclient_keys key-a key-b", up))
	const session = "5b6c7d8e-9fa0-4b1c-8d2e-3f4a5b6c7d8e"
	withSession := `{"model":"claude-test","max_tokens":64,"metadata":{"user_id":"{\"session_id\":\"` + session + `\"}"},"messages":[{"role":"user","content":"Hello"}]}`
	laterTurn := `{"model":"claude-test","max_tokens":64,"metadata":{"user_id":"{\"session_id\":\"` + session + `\"}"},"messages":[{"role":"user","content":"Hello"},{"role":"assistant","content":"Hi."},{"role":"user","content":"More"}]}`
	noSession := `{"model":"claude-test","max_tokens":64,"system":"You are a bot.","messages":[{"role":"user","content":"Hello"}]}`
	sent := func(key, body string) string {
		t.Helper()
		if res, got := gw.PostRead("/v1/messages", body, "X-Api-Key", key); res.StatusCode != 200 {
			t.Fatalf("%d %s", res.StatusCode, got)
		}
		var req struct {
			ConversationState struct {
				ConversationID string `json:"conversationId"`
			} `json:"conversationState"`
		}
		if err := json.Unmarshal(up.Last(t).Body, &req); err != nil || req.ConversationState.ConversationID == "" {
			t.Fatalf("upstream body %s: %v", up.Last(t).Body, err)
		}
		return req.ConversationState.ConversationID
	}
	a, b := sent("key-a", withSession), sent("key-b", withSession)
	if a == b || a == session || b == session {
		t.Errorf("same session id: client a %s, client b %s (session %s)", a, b, session)
	}
	if a2 := sent("key-a", laterTurn); a2 != a {
		t.Errorf("client a's later turn: %s, first turn %s", a2, a)
	}
	if pa, pb := sent("key-a", noSession), sent("key-b", noSession); pa == pb || pa == a {
		t.Errorf("same prompt: client a %s, client b %s", pa, pb)
	}
}
