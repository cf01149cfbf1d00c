package amazonq

import (
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// conversationLabel is the key domain of conversation ids.
const conversationLabel = "amazonq conversationId"

// conversationIDOf returns the conversationId for a request: the same for
// every turn of one conversation, so Amazon Q sees one conversation rather
// than a new one per request.
//
// The id is a keyed hash (the gateway's signing key) of the client's
// identity (x.ClientID, set with client_keys) and of what marks the
// conversation:
//
//   - the session id in metadata.user_id, if any: Claude Code sends either a
//     JSON string with a session_id member or the older
//     "user_<hash>_account_<uuid>_session_<uuid>" form;
//   - otherwise the user id (if any), the system prompt and the text of the
//     first user message, which stay the same as a conversation grows.
//
// Clients choose none of it: two clients with the same prompt or the same
// session id get different ids when their keys differ, and without the
// signing key no one can compute another's id.
//
// The system prompt's text and the first user message's text come from
// texts, asked for only without a session id.
func conversationIDOf(x *providers.Exchange, texts func() (system, first string)) string {
	userID := metadataUserID(x.Request)
	if sid := SessionID(userID); sid != "" {
		if isUUID(sid) {
			sid = strings.ToLower(sid)
		}
		return uuidOf(x.Settings.Signer.KeyedID(conversationLabel, x.ClientID, "session", sid))
	}
	system, first := texts()
	return uuidOf(x.Settings.Signer.KeyedID(conversationLabel, x.ClientID, "conversation", userID, system, first))
}

// metadataUserID is the request's metadata.user_id, or "".
func metadataUserID(req *wire.Request) string {
	if req.Metadata != nil {
		return req.Metadata.UserID
	}
	return ""
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

// uuidOf makes a version-8 (custom) UUID from the first 16 bytes of sum.
func uuidOf(sum [32]byte) string {
	b := sum[:16]
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
