package jsonbytes

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestAppendUnescaped(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{`plain`, "plain"},
		{`a\nb\tc\rd\be\ff\/g\\h\"i`, "a\nb\tc\rd\be\ff/g\\h\"i"},
		{`\u00e9\u65E5`, "é日"},
		{`\ud83d\ude00`, "😀"},
		{`\ud800`, "\uFFFD"},                       // lone high half
		{`\udc00`, "\uFFFD"},                       // lone low half
		{`x\ud800y`, "x\uFFFDy"},                   // between text
		{`\ud800\n`, "\uFFFD\n"},                   // the next escape decodes on its own
		{`\ud800\u0041`, "\uFFFDA"},                // a non-surrogate after a high half
		{`\ud800\ud800\udc00`, "\uFFFD\U00010000"}, // a high half, then a pair
		{`\udc00\ud800`, "\uFFFD\uFFFD"},           // halves in the wrong order
		{`\u0000`, "\x00"},
	} {
		got, err := AppendUnescaped([]byte("pre|"), []byte(tc.raw))
		if err != nil || string(got) != "pre|"+tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.raw, got, err, tc.want)
		}
		var viaJSON string
		if err := json.Unmarshal([]byte(`"`+tc.raw+`"`), &viaJSON); err != nil || viaJSON != tc.want {
			t.Errorf("%s: encoding/json says %q, %v; the table says %q", tc.raw, viaJSON, err, tc.want)
		}
	}
	for _, raw := range []string{`\`, `a\`, `\x`, `\u12`, `\u12g4`, `\ud800\u12`, `\U0041`, `\'`} {
		got, err := AppendUnescaped([]byte("pre|"), []byte(raw))
		if err != ErrBadEscape || string(got) != "pre|" {
			t.Errorf("%s: got %q, %v; want ErrBadEscape and dst unchanged", raw, got, err)
		}
	}
}

func TestUnescapeReusesBuffer(t *testing.T) {
	raw := []byte("no escapes")
	if got, err := Unescape(raw, nil); err != nil || &got[0] != &raw[0] {
		t.Errorf("a string without escapes must come back as itself")
	}
	buf := make([]byte, 0, 64)
	got, err := Unescape([]byte(`a\nb`), buf)
	if err != nil || string(got) != "a\nb" || &got[:1][0] != &buf[:1][0] {
		t.Errorf("got %q, %v: want a\\nb in buf", got, err)
	}
}

// FuzzAppendUnescaped is a differential test against encoding/json: every
// string body encoding/json accepts decodes to the same value (invalid UTF-8
// compared as the emitter writes it, each bad byte U+FFFD), and a body it
// rejects for its escapes is rejected too.
func FuzzAppendUnescaped(f *testing.F) {
	for _, s := range []string{`a\nb`, `\ud800`, `\ud83d\ude00`, `\udc00\ud800x`, `\u00e9`, `\x`, `\u12`, "\xff\\n", `\\\"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := AppendUnescaped(nil, raw)
		quoted := append(append([]byte{'"'}, raw...), '"')
		var want string
		jerr := json.Unmarshal(quoted, &want)
		if jerr != nil {
			if err == nil && hasBadEscape(raw) {
				t.Fatalf("%q: decoded to %q, but its escapes are not JSON (%v)", raw, got, jerr)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: %v, but encoding/json decodes it to %q", raw, err, want)
		}
		if v := validUTF8Of(got); string(v) != want {
			t.Fatalf("%q: got %q, encoding/json %q", raw, v, want)
		}
		if !utf8.ValidString(want) {
			t.Fatalf("encoding/json returned invalid UTF-8")
		}
	})
}

// hasBadEscape reports whether raw holds a backslash sequence JSON does not
// define (what encoding/json rejects besides raw control bytes and quotes).
func hasBadEscape(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if i+1 >= len(raw) {
			return true
		}
		switch raw[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i++
		case 'u':
			if Hex4(raw[i:]) < 0 {
				return true
			}
			i += 5
		default:
			return true
		}
	}
	return false
}

// validUTF8Of returns p with each byte of invalid UTF-8 replaced by U+FFFD,
// as encoding/json decodes it.
func validUTF8Of(p []byte) []byte {
	var out []byte
	for len(p) > 0 {
		r, n := utf8.DecodeRune(p)
		out = utf8.AppendRune(out, r)
		p = p[n:]
	}
	return out
}
