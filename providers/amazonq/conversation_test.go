package amazonq

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"testing"

	"github.com/thinkgate/thinkgate/providers/emit"
)

// keyedUUID computes a conversation id independently of conversation.go:
// HMAC-SHA256 under HMAC-SHA256(key, "thinkgate domain: amazonq
// conversationId") of the length-prefixed parts, first 16 bytes as a v8 UUID.
func keyedUUID(key string, parts ...string) string {
	d := hmac.New(sha256.New, []byte(key))
	d.Write([]byte("thinkgate domain: amazonq conversationId"))
	m := hmac.New(sha256.New, d.Sum(nil))
	for _, p := range parts {
		m.Write(binary.BigEndian.AppendUint64(nil, uint64(len(p))))
		m.Write([]byte(p))
	}
	var sum [32]byte
	copy(sum[:], m.Sum(nil))
	return uuidOf(sum)
}

// conversationID returns the id for body as sent by the client clientID
// through a gateway whose signing key is key.
func conversationID(t *testing.T, key, clientID, body string) string {
	t.Helper()
	s := testSettings()
	s.Signer = emit.NewSigner([]byte(key))
	x := exchange(t, s, body)
	x.ClientID = clientID
	return ConversationID(x)
}

// TestConversationID: the id is the same for every turn of one conversation
// and a keyed hash of the client's identity and the conversation's marks,
// so that neither a shared prompt nor a chosen session id reaches another
// client's conversation.
func TestConversationID(t *testing.T) {
	const key = "test-signing-key"
	cc := `{"model":"m","metadata":{"user_id":"` + claudeCodeUserID + `"},"messages":[]}`
	if got, want := conversationID(t, key, "", cc), keyedUUID(key, "", "session", "7c2a6a34-1b0e-4d7e-9c39-2f5e3b1d9a10"); got != want {
		t.Errorf("Claude Code session: %s, want %s", got, want)
	}
	// The older plain user_id form; an upper-case UUID is the same session.
	plain := `{"model":"m","metadata":{"user_id":"user_ab12_account_x_session_7C2A6A34-1B0E-4D7E-9C39-2F5E3B1D9A10"},"messages":[]}`
	if a, b := conversationID(t, key, "", plain), conversationID(t, key, "", cc); a != b {
		t.Errorf("plain user_id %s, JSON %s", a, b)
	}
	if got, want := conversationID(t, key, "client-a", `{"model":"m","metadata":{"user_id":"{\"session_id\":\"abc\"}"},"messages":[{"role":"user","content":"x"}]}`),
		keyedUUID(key, "client-a", "session", "abc"); got != want {
		t.Errorf("hashed session: %s, want %s", got, want)
	}

	// Without a session: every turn of one conversation gets one id.
	turn1 := conversationID(t, key, "c", `{"model":"m","system":"S","messages":[{"role":"user","content":"Hello"}]}`)
	turn3 := conversationID(t, key, "c", `{"model":"m","system":[{"type":"text","text":"S","cache_control":{"type":"ephemeral"}}],"messages":[
		{"role":"user","content":[{"type":"text","text":"Hello","cache_control":{"type":"ephemeral"}}]},
		{"role":"assistant","content":"Hi"},{"role":"user","content":"More"}]}`)
	if want := keyedUUID(key, "c", "conversation", "", "S", "Hello"); turn1 != want || turn3 != want || turn1[14] != '8' {
		t.Errorf("turn ids %s %s, want %s", turn1, turn3, want)
	}

	// Another conversation, another client, another gateway: another id.
	for name, id := range map[string]string{
		"another first message": conversationID(t, key, "c", `{"model":"m","system":"S","messages":[{"role":"user","content":"Hello!"}]}`),
		"another system prompt": conversationID(t, key, "c", `{"model":"m","system":"T","messages":[{"role":"user","content":"Hello"}]}`),
		"a user id":             conversationID(t, key, "c", `{"model":"m","system":"S","metadata":{"user_id":"someone"},"messages":[{"role":"user","content":"Hello"}]}`),
		"another client":        conversationID(t, key, "d", `{"model":"m","system":"S","messages":[{"role":"user","content":"Hello"}]}`),
		"another signing key":   conversationID(t, "other-key", "c", `{"model":"m","system":"S","messages":[{"role":"user","content":"Hello"}]}`),
	} {
		if id == turn1 {
			t.Errorf("%s: same id %s", name, id)
		}
	}
	// A session id a client names is not sent as is, and two clients
	// naming the same one get different conversations.
	a := conversationID(t, key, "client-a", cc)
	b := conversationID(t, key, "client-b", cc)
	if a == "7c2a6a34-1b0e-4d7e-9c39-2f5e3b1d9a10" || a == b {
		t.Errorf("session ids: client a %s, client b %s", a, b)
	}
}
