package jsonbytes

import (
	"strings"
	"testing"
)

// FuzzAppendStringBodyVector: the escaper writes the same bytes, and
// reports the same replacements, with the vector scanners as without them,
// at every offset of the input against a 32-byte chunk.
func FuzzAppendStringBodyVector(f *testing.F) {
	f.Add("plain text with café, 你好 and 🎯 then \"quotes\" <b>&</b>\n")
	f.Add(strings.Repeat("日本語 text é ", 10) + "\xe6\x97")
	f.Add(strings.Repeat("a", 31) + "\xed\xa0\x80" + strings.Repeat("b", 40) + "\u2028")
	f.Add(strings.Repeat("é", 40) + "\xc3")
	f.Fuzz(func(t *testing.T, s string) {
		if !useAVX2 {
			t.Skip("no vector scanner on this machine")
		}
		for pad := 0; pad < 33; pad += 11 {
			in := []byte(strings.Repeat("x", pad) + s + strings.Repeat("y", pad))
			vec, vecReplaced := AppendStringBody(nil, in)
			useAVX2 = false
			port, portReplaced := AppendStringBody(nil, in)
			useAVX2 = true
			if string(vec) != string(port) || vecReplaced != portReplaced {
				t.Fatalf("%q:\nvector   %s (replaced %v)\nportable %s (replaced %v)", in, vec, vecReplaced, port, portReplaced)
			}
			if got, want := ValidUTF8(in), validUTF8Portable(in); got != want {
				t.Fatalf("ValidUTF8(%q) = %v, portable %v", in, got, want)
			}
		}
	})
}

func validUTF8Portable(p []byte) bool {
	saved := useAVX2
	useAVX2 = false
	defer func() { useAVX2 = saved }()
	return ValidUTF8(p)
}
