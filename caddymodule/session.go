package caddymodule

import (
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/thinkgate/thinkgate/providers/amazonq"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// sessionLabel is the key domain of session keys (emit.Signer.KeyedID).
const sessionLabel = "client session"

// sessionHeader is the header Claude Code names its session in, besides
// metadata.user_id.
const sessionHeader = "X-Claude-Code-Session-Id"

// sessionKeyOf is the keyed id of the client session a request belongs to,
// the one identity both the upstream key pool (key_selection session) and
// prompt_cache_key use. The session is, in order: the session_id in
// metadata.user_id (Claude Code's JSON string, or its older
// "…_session_<id>" form), the x-claude-code-session-id header, else the
// client itself (client, a thinkgate_clients name or the hash of a
// client_keys key). Session ids are scoped by the client, so that two
// clients naming the same session get different keys. "" when there is
// neither a session nor a client.
//
// The id is an HMAC under a key derived from the gateway's signing key
// (signing_key, or the one kept in Caddy's storage): stable across
// restarts and shared by every gateway on the same storage, so a session
// keeps its key whichever gateway serves it, and no session id or client
// key leaves the gateway in clear.
func sessionKeyOf(signer *emit.Signer, req *wire.Request, hdr http.Header, client string) string {
	sid := ""
	if req.Metadata != nil {
		sid = amazonq.SessionID(req.Metadata.UserID)
	}
	if sid == "" {
		sid = strings.TrimSpace(hdr.Get(sessionHeader))
	}
	var sum [32]byte
	switch {
	case sid != "":
		sum = signer.KeyedID(sessionLabel, client, "session", strings.ToLower(sid))
	case client != "":
		sum = signer.KeyedID(sessionLabel, client, "client")
	default:
		return ""
	}
	return hex.EncodeToString(sum[:16])
}
