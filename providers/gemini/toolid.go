package gemini

import (
	"encoding/base64"
	"encoding/binary"
	"strings"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
)

// Gemini 3 rejects a replayed functionCall part that lacks the
// thoughtSignature it came with, and an Anthropic tool_use block has no
// field to carry one. Clients keep tool_use ids verbatim (they must, to pair
// tool_result blocks with them) even when they drop thinking blocks, as
// Claude Code does, so the gateway carries the signature, and Gemini's own
// call id if it sent one, inside the tool_use id it generates:
//
//	toolu_<24 base62> [ _g <mac: 24 base64url> <payload: base64url> ]
//
// payload = flags(1) | uvarint(len(sig)) | sig | callID, where flags bit 0
// says sig holds the decoded bytes of a standard-base64 signature (re-encoded
// on the way back; this keeps ids short). mac is the gateway's HMAC (in the
// Signer's tool-id domain, origin Gemini) over the payload, bound to the
// random prefix, so only ids the gateway issued are ever unpacked, and an
// id's MAC never passes for a thinking block's signature. Every
// character is in [A-Za-z0-9_-], the tool_use id alphabet. An id without
// the suffix is a plain random id, as for calls with nothing to carry.

const (
	toolIDPrefix = "toolu_"
	toolIDRandom = len(toolIDPrefix) + 24 // "toolu_" + 24 random characters
	toolIDMarker = "_g"
	toolIDMACLen = 24 // base64url of the 18-byte MAC
	flagBase64   = 1
)

// encodeToolID returns a new tool_use id carrying sig and callID.
func encodeToolID(s *emit.Signer, sig, callID []byte) string {
	s = s.ToolIDs()
	base := providers.NewID(toolIDPrefix)
	if s == nil || (len(sig) == 0 && len(callID) == 0) {
		return base
	}
	var flags byte
	raw := sig
	if dec, err := base64.StdEncoding.DecodeString(string(sig)); err == nil && len(dec) > 0 &&
		base64.StdEncoding.EncodeToString(dec) == string(sig) {
		raw, flags = dec, flagBase64
	}
	payload := make([]byte, 0, 1+binary.MaxVarintLen64+len(raw)+len(callID))
	payload = append(payload, flags)
	payload = binary.AppendUvarint(payload, uint64(len(raw)))
	payload = append(payload, raw...)
	payload = append(payload, callID...)
	env := s.Sign(emit.OriginGemini, string(payload), base)
	mac := env[strings.LastIndexByte(env, '.')+1:]
	return base + toolIDMarker + mac + base64.RawURLEncoding.EncodeToString(payload)
}

// decodeToolID returns what a gateway-issued tool_use id carries. ok is false
// for any other id (the client's, Anthropic's, another key's, a tampered one).
func decodeToolID(s *emit.Signer, id string) (sig, callID string, ok bool) {
	s = s.ToolIDs()
	if s == nil || len(id) < toolIDRandom+len(toolIDMarker)+toolIDMACLen ||
		!strings.HasPrefix(id, toolIDPrefix) || id[toolIDRandom:toolIDRandom+len(toolIDMarker)] != toolIDMarker {
		return "", "", false
	}
	base := id[:toolIDRandom]
	rest := id[toolIDRandom+len(toolIDMarker):]
	mac, payload64 := rest[:toolIDMACLen], rest[toolIDMACLen:]
	origin, payload, ok := s.Open("tg1"+string(emit.OriginGemini)+"."+payload64+"."+mac, base)
	if !ok || origin != emit.OriginGemini || len(payload) < 2 {
		return "", "", false
	}
	flags := payload[0]
	n, w := binary.Uvarint([]byte(payload[1:]))
	if w <= 0 || uint64(len(payload)-1-w) < n {
		return "", "", false
	}
	raw := payload[1+w : 1+w+int(n)]
	callID = payload[1+w+int(n):]
	if flags&flagBase64 != 0 {
		raw = base64.StdEncoding.EncodeToString([]byte(raw))
	}
	return raw, callID, true
}
