package emit

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"hash"
	"strings"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// Origin says where a thinking block the gateway signed came from, so that on
// the way back in the gateway knows what the upstream will accept.
type Origin byte

const (
	// OriginTags: split out of the model's text (<thinking> tags) or from a
	// plain reasoning field; goes back to a tag-based upstream as tags.
	OriginTags Origin = 't'
	// OriginGemini: a Gemini thought; the foreign signature is its thoughtSignature.
	OriginGemini Origin = 'g'
	// OriginAmazonQ: an Amazon Q reasoningContentEvent; foreign is its signature.
	OriginAmazonQ Origin = 'q'
	// OriginOpenRouter: an OpenRouter reasoning detail (a thinking block from
	// reasoning.text or reasoning.summary, a redacted_thinking block from
	// reasoning.encrypted); foreign is the detail's JSON without its text,
	// which goes back to OpenRouter as it came.
	OriginOpenRouter Origin = 'o'
	// OriginResponses: a reasoning item of the OpenAI Responses API; foreign
	// is the item's id and encrypted_content (see package responses), which
	// go back only to a Responses upstream.
	OriginResponses Origin = 'r'
	// OriginBedrock: a reasoningContent block of Amazon Bedrock's Converse
	// API; foreign is its reasoningText signature (for a redacted_thinking
	// block, its redactedContent), which goes back only to Bedrock.
	OriginBedrock Origin = 'b'
)

// Signer signs the thinking blocks the gateway creates. Clients such as
// Claude Code drop thinking blocks without a signature, and real upstreams
// reject signatures they did not issue, so the gateway issues its own and
// recognises them when the history comes back.
//
// Envelope: "tg1" origin "." base64url(foreign) "." base64url(mac[:18]), with
// mac = HMAC-SHA256(key, thinking || uint64(len(thinking)) || origin || foreign).
//
// Each kind of token the gateway MACs has its own domain: thinking
// signatures use the key itself (so envelopes issued before domains existed
// keep verifying), other kinds a key derived from it (ToolIDs), so that a
// token issued as one kind never verifies as another.
type Signer struct {
	key []byte
	// previous are keys that still verify but no longer sign (a rotation).
	previous []*Signer
	// toolIDs signs the state carried inside tool_use ids.
	toolIDs *Signer
}

// NewSigner returns a Signer that signs with key and verifies with key or
// any of previous.
func NewSigner(key []byte, previous ...[]byte) *Signer {
	s := &Signer{key: append([]byte(nil), key...)}
	s.toolIDs = &Signer{key: deriveKey(key, "tool_use id")}
	for _, k := range previous {
		p := NewSigner(k)
		s.previous = append(s.previous, p)
		s.toolIDs.previous = append(s.toolIDs.previous, p.toolIDs)
	}
	return s
}

// ToolIDs returns the signer for what a provider carries inside the tool_use
// ids it issues (Gemini's thoughtSignature of a call). Its MACs are under a
// key of their own, so a tool_use id's MAC cannot be presented as a thinking
// block's signature, nor the other way round. Nil for a nil Signer.
func (s *Signer) ToolIDs() *Signer {
	if s == nil {
		return nil
	}
	return s.toolIDs
}

// KeyedID returns HMAC-SHA256, under a key derived from the signer's for
// label, of parts (each length-prefixed, so no two lists of parts collide).
// It makes identifiers from client input that a client can neither choose
// nor predict without the key. A nil Signer hashes without a key.
func (s *Signer) KeyedID(label string, parts ...string) [sha256.Size]byte {
	var h hash.Hash
	if s == nil {
		h = sha256.New()
		h.Write([]byte(label))
	} else {
		h = hmac.New(sha256.New, deriveKey(s.key, label))
	}
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// deriveKey is the key of one token domain: HMAC-SHA256(key, label).
func deriveKey(key []byte, label string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte("thinkgate domain: " + label))
	return h.Sum(nil)
}

// blockMAC accumulates the MAC of one thinking block as it streams. It is
// not safe for concurrent use; each stream owns one.
type blockMAC struct {
	s   *Signer
	h   hash.Hash
	n   uint64
	sum []byte
	// tail holds len(thinking) and origin; a field, since a local array
	// passed to hash.Hash.Write would escape and allocate per block.
	tail [9]byte
}

// newBlockMAC returns an accumulator for this signer.
func (s *Signer) newBlockMAC() *blockMAC {
	return &blockMAC{s: s, h: hmac.New(sha256.New, s.key)}
}

// Reset starts a new block.
func (m *blockMAC) Reset() { m.h.Reset(); m.n = 0 }

// Write adds thinking text.
func (m *blockMAC) Write(p []byte) { m.h.Write(p); m.n += uint64(len(p)) }

// appendSignature appends the envelope for the block written so far.
func (m *blockMAC) appendSignature(dst []byte, origin Origin, foreign []byte) []byte {
	binary.BigEndian.PutUint64(m.tail[:8], m.n)
	m.tail[8] = byte(origin)
	m.h.Write(m.tail[:])
	m.h.Write(foreign)
	m.sum = m.h.Sum(m.sum[:0])
	dst = append(dst, wire.SignaturePrefix...)
	dst = append(dst, byte(origin), '.')
	dst = base64.RawURLEncoding.AppendEncode(dst, foreign)
	dst = append(dst, '.')
	return base64.RawURLEncoding.AppendEncode(dst, m.sum[:18])
}

// Sign returns the envelope for a complete block.
func (s *Signer) Sign(origin Origin, foreign, thinking string) string {
	m := s.newBlockMAC()
	m.Write([]byte(thinking))
	return string(m.appendSignature(nil, origin, []byte(foreign)))
}

// Open checks a signature against the block's thinking text. ok is false for
// anything the gateway did not sign with this key or a previous one
// (Anthropic's own signatures among them).
func (s *Signer) Open(sig, thinking string) (origin Origin, foreign string, ok bool) {
	if s == nil {
		return 0, "", false
	}
	if origin, foreign, ok = s.openWithKey(sig, thinking); ok {
		return origin, foreign, ok
	}
	for _, p := range s.previous {
		if origin, foreign, ok = p.openWithKey(sig, thinking); ok {
			return origin, foreign, ok
		}
	}
	return 0, "", false
}

func (s *Signer) openWithKey(sig, thinking string) (origin Origin, foreign string, ok bool) {
	if !wire.IsGatewaySignature(sig) {
		return 0, "", false
	}
	rest := sig[len(wire.SignaturePrefix)+1:]
	dot := strings.IndexByte(rest, '.')
	if len(rest) < 1 || dot != 0 {
		return 0, "", false
	}
	rest = rest[1:]
	dot = strings.LastIndexByte(rest, '.')
	if dot < 0 {
		return 0, "", false
	}
	f, err := base64.RawURLEncoding.DecodeString(rest[:dot])
	if err != nil {
		return 0, "", false
	}
	origin = Origin(sig[len(wire.SignaturePrefix)])
	want := s.Sign(origin, string(f), thinking)
	if !hmac.Equal([]byte(want), []byte(sig)) {
		return 0, "", false
	}
	return origin, string(f), true
}
