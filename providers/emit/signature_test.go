package emit

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers/wire"
)

var testKey = []byte("thinkgate-test-key-0123456789abc")

// envelope computes the documented signature envelope independently of
// signature.go: "tg1" origin "." b64url(foreign) "." b64url(mac[:18]),
// mac = HMAC-SHA256(key, thinking || uint64be(len(thinking)) || origin || foreign).
func envelope(key []byte, origin Origin, foreign, thinking string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(thinking))
	m.Write(binary.BigEndian.AppendUint64(nil, uint64(len(thinking))))
	m.Write([]byte{byte(origin)})
	m.Write([]byte(foreign))
	enc := base64.RawURLEncoding
	return "tg1" + string(origin) + "." + enc.EncodeToString([]byte(foreign)) + "." + enc.EncodeToString(m.Sum(nil)[:18])
}

var signCases = []struct {
	origin            Origin
	foreign, thinking string
}{
	{OriginTags, "", "Let me think."},
	{OriginTags, "", ""},
	{OriginGemini, "abc", "Plan: call the tool."},
	{OriginGemini, "CiQBcsjafR+k/9Zx==", "thought with a base64 signature"},
	{OriginAmazonQ, "", "no foreign signature"},
	{OriginAmazonQ, "sig\x00\xff.binary.", "日本語 and <tags>\n"},
	{OriginBedrock, "EqQBCkgIBxABGAIiQMt+vR3yS0==", "Bedrock reasoning with its signature"},
}

func TestSignOpenRoundTrip(t *testing.T) {
	s := NewSigner(testKey)
	for _, tc := range signCases {
		sig := s.Sign(tc.origin, tc.foreign, tc.thinking)
		if want := envelope(testKey, tc.origin, tc.foreign, tc.thinking); sig != want {
			t.Errorf("Sign(%c, %q, %q) = %q, want %q", tc.origin, tc.foreign, tc.thinking, sig, want)
		}
		if !wire.IsGatewaySignature(sig) {
			t.Errorf("IsGatewaySignature(%q) = false", sig)
		}
		origin, foreign, ok := s.Open(sig, tc.thinking)
		if !ok || origin != tc.origin || foreign != tc.foreign {
			t.Errorf("Open(%q) = %c, %q, %v; want %c, %q, true", sig, origin, foreign, ok, tc.origin, tc.foreign)
		}
	}
}

// The key is copied: changing the caller's slice later changes nothing.
func TestNewSignerCopiesKey(t *testing.T) {
	key := append([]byte(nil), testKey...)
	s := NewSigner(key)
	key[0] ^= 0xff
	if got, want := s.Sign(OriginTags, "", "x"), envelope(testKey, OriginTags, "", "x"); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestOpenRejects(t *testing.T) {
	s := NewSigner(testKey)
	other := NewSigner([]byte("another key"))
	const thinking = "Let me think."
	sig := s.Sign(OriginGemini, "abc", thinking)

	cases := []struct {
		name, sig, thinking string
		signer              *Signer
	}{
		{"tampered thinking: one byte", sig, "Let me think!", s},
		{"tampered thinking: appended", sig, thinking + " ", s},
		{"tampered thinking: truncated", sig, thinking[:len(thinking)-1], s},
		{"tampered thinking: empty", sig, "", s},
		{"wrong key", sig, thinking, other},
		{"nil signer", sig, thinking, nil},
		{"origin changed", "tg1t" + sig[4:], thinking, s},
		{"foreign changed", strings.Replace(sig, ".YWJj.", ".YWJk.", 1), thinking, s},
		{"foreign dropped", strings.Replace(sig, ".YWJj.", "..", 1), thinking, s},
		{"mac truncated", sig[:len(sig)-1], thinking, s},
		{"mac extended", sig + "A", thinking, s},
		{"mac missing", sig[:strings.LastIndexByte(sig, '.')], thinking, s},
		{"padded base64", strings.Replace(sig, ".YWJj.", ".YWJj=.", 1), thinking, s},
		{"bad base64", strings.Replace(sig, ".YWJj.", ".Y!Jj.", 1), thinking, s},
		{"empty", "", thinking, s},
		{"prefix only", "tg1", thinking, s},
		{"no dot", "tg1gYWJj", thinking, s},
		{"shape only", "tg1g.", thinking, s},
		{"empty parts", "tg1g..", thinking, s},
		{"anthropic signature", "EqQBCkgIBhABGAIiQHVuGjlXdSVfqgpyJ3JhTqX3TcdMQx3XBhXB2RRfVmpm1CJ5BVLbqKJkaA1sd2eMZt5lpH5yrOxFXWrPfgW4ZgsSDPa9rOnJmHc1yMa1sxoM", thinking, s},
		{"anthropic-looking with dots", "Eq.tg1t.x.y", thinking, s},
	}
	for _, tc := range cases {
		if origin, foreign, ok := tc.signer.Open(tc.sig, tc.thinking); ok || origin != 0 || foreign != "" {
			t.Errorf("%s: Open(%q, %q) = %c, %q, %v; want rejected", tc.name, tc.sig, tc.thinking, origin, foreign, ok)
		}
	}
}

// Changing any one character of a signature, to any character that can
// appear in one, makes it fail to open.
func TestOpenRejectsEverySingleCharChange(t *testing.T) {
	s := NewSigner(testKey)
	const thinking = "short thought"
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.gqt1"
	for _, origin := range []Origin{OriginTags, OriginGemini, OriginAmazonQ} {
		sig := s.Sign(origin, "xyz", thinking)
		for i := range len(sig) {
			for _, c := range []byte(alphabet) {
				if c == sig[i] {
					continue
				}
				bad := sig[:i] + string(c) + sig[i+1:]
				if _, _, ok := s.Open(bad, thinking); ok {
					t.Fatalf("Open accepted %q (from %q, position %d)", bad, sig, i)
				}
			}
		}
	}
}

func TestIsGatewaySignature(t *testing.T) {
	for sig, want := range map[string]bool{
		"tg1t.x":      true,
		"tg1g..mac":   true,
		"tg1q.Zm9v.m": true,
		"tg1t.":       true, // the shape only; Open rejects it
		"tg1t":        false,
		"tg1tt.x":     false,
		"TG1t.x":      false,
		"xtg1t.x":     false,
		"":            false,
		"EqQBCkgIBhABGAIiQHVuGjlXdSVfqgpyJ3JhTqX3TcdMQx3XBhXB2RRfVmpm1CJ5BVLbqKJkaA1sd2eMZt5lpH5yrOxFXWrPfgW4ZgsSDPa9rOnJmHc1yMa1sxoM": false,
		"ErUBCkYIBRgCKkDd+/s=": false,
	} {
		if got := wire.IsGatewaySignature(sig); got != want {
			t.Errorf("IsGatewaySignature(%q) = %v, want %v", sig, got, want)
		}
	}
}

// A block MAC fed the thinking text in pieces, then reset and reused, gives
// the one-shot signature.
func TestBlockMACStreamingEqualsSign(t *testing.T) {
	s := NewSigner(testKey)
	m := s.newBlockMAC()
	for _, tc := range signCases {
		want := s.Sign(tc.origin, tc.foreign, tc.thinking)
		for size := 1; size <= max(1, len(tc.thinking)); size++ {
			m.Reset()
			for _, c := range ssetest.Chunks([]byte(tc.thinking), size) {
				m.Write(c)
			}
			got := m.appendSignature([]byte("keep|"), tc.origin, []byte(tc.foreign))
			if string(got) != "keep|"+want {
				t.Fatalf("chunks of %d of %q: got %q, want keep|%q", size, tc.thinking, got, want)
			}
		}
	}
}
