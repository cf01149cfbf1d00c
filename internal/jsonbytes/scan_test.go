package jsonbytes

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// indexSpecialRef is indexSpecialAVX2 one byte at a time.
func indexSpecialRef(p []byte, c1, c2, c3 byte) (int, bool) {
	high := false
	for i, c := range p {
		if c < 0x20 || c == '"' || c == '\\' || c == c1 || c == c2 || c == c3 {
			return i, high
		}
		high = high || c >= 0x80
	}
	return len(p), high
}

// TestIndexSpecialAVX2 puts each kind of byte the scanner looks for, and a
// byte >= 0x80 before it or not, at every position of every length up to
// 200 (whole chunks, a short tail, an overlapping tail).
func TestIndexSpecialAVX2(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this machine")
	}
	specials := []byte{0, '\n', 0x1f, '"', '\\', '<', '>', '&'}
	for n := 32; n <= 200; n++ {
		base := bytes.Repeat([]byte("a"), n)
		check := func(p []byte) {
			t.Helper()
			gi, gh := indexSpecialAVX2(p, '<', '>', '&')
			wi, wh := indexSpecialRef(p, '<', '>', '&')
			if gi != wi || gh != wh {
				t.Fatalf("%q: got (%d, %v), want (%d, %v)", p, gi, gh, wi, wh)
			}
		}
		check(base)
		for pos := 0; pos < n; pos++ {
			for _, c := range specials {
				p := append([]byte(nil), base...)
				p[pos] = c
				check(p)
				for hi := 0; hi < n; hi += 7 {
					q := append([]byte(nil), p...)
					if hi != pos {
						q[hi] = 0xC3
					}
					check(q)
				}
			}
			p := append([]byte(nil), base...)
			p[pos] = 0xFF
			check(p)
		}
	}
	// The class bytes come from the arguments.
	p := bytes.Repeat([]byte("x"), 40)
	p[35] = 'x' + 1
	if i, _ := indexSpecialAVX2(p, '"', '"', 'x'+1); i != 35 {
		t.Fatalf("got %d, want 35", i)
	}
}

// TestValidUTF8 checks ValidUTF8 against utf8.Valid with every kind of
// sequence, valid or not, at every position of ASCII text from 64 to 130
// bytes (in a chunk, across chunks, cut by a chunk's end, in the tail).
func TestValidUTF8(t *testing.T) {
	seqs := []string{
		"é", "日", "🎯", "\u2028", "\U0010FFFF", "\uFFFD", "\u0800", "\U00010000", "\ud7ff", "\ue000",
		"\xff", "\x80", "\xbf", "\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xe0\x9f\xbf", "\xed\xa0\x80", "\xed\xbf\xbf",
		"\xf0\x80\x80\xaf", "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xf8\x88\x80\x80\x80",
		"\xe6\x97", "\xf0\x9f\x8e", "\xc3", "é\x80", "日\x80", "🎯\x80", "\xc3\xa9\xa9",
	}
	forEachScanner(t, func(scanner string) {
		for _, q := range seqs {
			for n := 0; n <= 130; n++ {
				for pos := 0; pos <= n; pos++ {
					base := strings.Repeat("a", n)
					// q alone; followed by a valid rune; with a sequence cut
					// by the end of the input.
					for _, p := range []string{base[:pos] + q + base[pos:], base[:pos] + q + "日" + base[pos:], base[:pos] + q + base[pos:] + "\xe6\x97"} {
						if got, want := ValidUTF8([]byte(p)), utf8.Valid([]byte(p)); got != want {
							t.Fatalf("%s: ValidUTF8(%q) = %v, want %v", scanner, p, got, want)
						}
					}
				}
			}
		}
	})
}

func FuzzValidUTF8(f *testing.F) {
	f.Add(strings.Repeat("日本語 text é ", 10))
	f.Add(strings.Repeat("a", 63) + "\xe6\x97\xa5" + strings.Repeat("b", 40))
	f.Fuzz(func(t *testing.T, s string) {
		p := []byte(strings.Repeat("x", 40) + s)
		forEachScanner(t, func(scanner string) {
			if got, want := ValidUTF8(p), utf8.Valid(p); got != want {
				t.Fatalf("%s: ValidUTF8(%q) = %v, want %v", scanner, p, got, want)
			}
		})
	})
}

// TestShapeScanAVX2 checks the head compare at every length from 32 to 100
// with a wrong byte at each position, and the string scan after it with
// each byte it looks for at every position of the next 70 bytes.
func TestShapeScanAVX2(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this machine")
	}
	ref := func(p, head []byte) int {
		if !bytes.HasPrefix(p, head) {
			return -1
		}
		i, _ := indexSpecialRef(p[len(head):], '"', '"', '"')
		return len(head) + i
	}
	check := func(p, head []byte) {
		t.Helper()
		if got, want := shapeScanAVX2(p, head), ref(p, head); got != want {
			t.Fatalf("head %q, p %q: got %d, want %d", head, p, got, want)
		}
	}
	for h := 32; h <= 100; h++ {
		head := make([]byte, h)
		for i := range head {
			head[i] = "event: data {\"type\":\"x\",\"text\":"[i%31]
		}
		for _, body := range []int{32, 33, 63, 64, 70} {
			p := append(append([]byte(nil), head...), bytes.Repeat([]byte("é a"), body)[:body]...)
			check(p, head)
			for pos := 0; pos < h; pos++ {
				q := append([]byte(nil), p...)
				q[pos] ^= 0x40
				check(q, head)
			}
			for pos := h; pos < len(p); pos++ {
				for _, c := range []byte{'"', '\\', 0, '\n', 0x1f, '<', 0x7f} {
					q := append([]byte(nil), p...)
					q[pos] = c
					check(q, head)
				}
			}
		}
	}
}
