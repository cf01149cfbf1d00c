package gemini

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/providers/emit"
)

func TestToolIDRoundTrip(t *testing.T) {
	s := emit.NewSigner([]byte(testKey))
	long := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\x01\xfe signature bytes ", 120)))
	cases := []struct{ sig, callID string }{
		{"CvYBAb4+9vu1ZqoZ", ""},
		{"CvYBAb4+9vu1ZqoZ", "call_0001"},
		{"", "fc-12345"},
		{"not base64 at all!", ""},     // kept verbatim
		{"YWJj", ""},                   // unpadded-looking but valid
		{"YWI=", "x"},                  // padded
		{long, ""},                     // a large signature stays compact
		{SkipSignature, "id with üñí"}, // anything goes through
	}
	for _, c := range cases {
		id := encodeToolID(s, []byte(c.sig), []byte(c.callID))
		if !validToolID.MatchString(id) || !strings.HasPrefix(id, "toolu_") {
			t.Errorf("id %q outside the tool_use id alphabet", id)
		}
		sig, callID, ok := decodeToolID(s, id)
		if !ok || sig != c.sig || callID != c.callID {
			t.Errorf("round trip of (%q, %q): got (%q, %q, %v)", c.sig, c.callID, sig, callID, ok)
		}
		if c.sig == long && len(id) > len(long)+80 {
			t.Errorf("id for a %d-char signature is %d chars", len(long), len(id))
		}
	}
}

func TestToolIDPlain(t *testing.T) {
	s := emit.NewSigner([]byte(testKey))
	id := encodeToolID(s, nil, nil)
	if len(id) != toolIDRandom || !validToolID.MatchString(id) {
		t.Errorf("plain id %q", id)
	}
	if _, _, ok := decodeToolID(s, id); ok {
		t.Error("plain id decoded")
	}
	if id := encodeToolID(nil, []byte("U0lH"), nil); len(id) != toolIDRandom {
		t.Errorf("without a signer: %q", id)
	}
}

// TestToolIDRejects: ids the gateway did not issue, or issued under another
// key, or altered, carry nothing.
func TestToolIDRejects(t *testing.T) {
	s := emit.NewSigner([]byte(testKey))
	good := encodeToolID(s, []byte("U0lHTkFUVVJF"), []byte("c1"))
	other := encodeToolID(emit.NewSigner([]byte("another key")), []byte("U0lHTkFUVVJF"), []byte("c1"))
	flip := func(id string, i int) string {
		b := []byte(id)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	for name, id := range map[string]string{
		"anthropic id":   "toolu_01A09q90qw90lq917835lq9",
		"openai id":      "call_abc123",
		"other key":      other,
		"random altered": flip(good, 10),
		"mac altered":    flip(good, toolIDRandom+3),
		"payload cut":    good[:len(good)-2],
		"payload grown":  good + "AA",
		"marker only":    good[:toolIDRandom+2],
		"empty":          "",
	} {
		if sig, callID, ok := decodeToolID(s, id); ok {
			t.Errorf("%s: decoded (%q, %q)", name, sig, callID)
		}
	}
	if _, _, ok := decodeToolID(nil, good); ok {
		t.Error("decoded without a signer")
	}
	if _, _, ok := decodeToolID(s, good); !ok {
		t.Error("good id refused")
	}
}

func BenchmarkToolID(b *testing.B) {
	s := emit.NewSigner([]byte(testKey))
	sig := []byte(base64.StdEncoding.EncodeToString(make([]byte, 300)))
	for b.Loop() {
		id := encodeToolID(s, sig, nil)
		if _, _, ok := decodeToolID(s, id); !ok {
			b.Fatal("round trip failed")
		}
	}
}

// TestToolIDAfterRotation: a tool_use id issued under a key that is now in
// previous_signing_keys still carries its thoughtSignature back.
func TestToolIDAfterRotation(t *testing.T) {
	old := emit.NewSigner([]byte("old key"))
	id := encodeToolID(old, []byte("U0lHTkFUVVJF"), []byte("c1"))
	rotated := emit.NewSigner([]byte(testKey), []byte("old key"))
	if sig, callID, ok := decodeToolID(rotated, id); !ok || sig != "U0lHTkFUVVJF" || callID != "c1" {
		t.Fatalf("after rotation: got (%q, %q, %v)", sig, callID, ok)
	}
	if _, _, ok := decodeToolID(emit.NewSigner([]byte(testKey)), id); ok {
		t.Fatal("decoded without the previous key")
	}
}
