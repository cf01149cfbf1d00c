package amazonq

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/thinkgate/thinkgate/providers"
)

// ConversationID returns the conversationId for a request: the same for
// every turn of one conversation, so Amazon Q sees one conversation rather
// than a new one per request.
//
//   - If metadata.user_id carries a session id it is used: Claude Code sends
//     either a JSON string with a session_id member or the older
//     "user_<hash>_account_<uuid>_session_<uuid>" form. A UUID is used as it
//     is; any other session id is hashed into UUID form.
//   - Otherwise the id is a UUID-shaped hash of the user id (if any), the
//     system prompt and the text of the first user message, which stay the
//     same as a conversation grows.
func ConversationID(req *providers.Request) string {
	userID := ""
	if req.Metadata != nil {
		userID = req.Metadata.UserID
	}
	if sid := SessionID(userID); sid != "" {
		if isUUID(sid) {
			return strings.ToLower(sid)
		}
		return hashUUID("session", sid)
	}
	first := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			first = m.Content.Text()
			break
		}
	}
	return hashUUID("conversation", userID, joinText(req.System), first)
}

// SessionID extracts a session id from a metadata.user_id, or "".
func SessionID(userID string) string {
	s := strings.TrimSpace(userID)
	if s == "" {
		return ""
	}
	if s[0] == '{' {
		var v struct {
			SessionID  string `json:"session_id"`
			SessionID2 string `json:"sessionId"`
		}
		if json.Unmarshal([]byte(s), &v) == nil {
			if v.SessionID != "" {
				return v.SessionID
			}
			return v.SessionID2
		}
		return ""
	}
	if i := strings.LastIndex(s, "_session_"); i >= 0 {
		return s[i+len("_session_"):]
	}
	return ""
}

// hashUUID makes a version-8 (custom) UUID from a SHA-256 of the parts.
func hashUUID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	var sum [sha256.Size]byte
	b := h.Sum(sum[:0])[:16]
	b[6] = b[6]&0x0f | 0x80
	b[8] = b[8]&0x3f | 0x80
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:], b[10:16])
	return string(out[:])
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
