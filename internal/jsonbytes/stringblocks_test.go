package jsonbytes

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// escapedBitsByByte is escapedBits one byte at a time: a backslash that is
// not escaped escapes the byte after it.
func escapedBitsByByte(backslash uint64, carry *uint64) uint64 {
	var escaped uint64
	next := *carry == 1
	for i := range 64 {
		if next {
			escaped |= 1 << i
			next = false
		} else if backslash&(1<<i) != 0 {
			next = true
		}
	}
	*carry = 0
	if next {
		*carry = 1
	}
	return escaped
}

func TestEscapedBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	masks := []uint64{0, ^uint64(0), 1, 1 << 63, 3 << 62, 0x5555555555555555, 0xAAAAAAAAAAAAAAAA, 0b1110, 0b110, 0b1100}
	for range 20000 {
		// Runs of backslashes of every length: sparse, dense and mixed.
		m := rng.Uint64() & rng.Uint64()
		if rng.IntN(2) == 0 {
			m |= rng.Uint64()
		}
		masks = append(masks, m)
	}
	var carry, carryRef uint64
	for _, m := range masks {
		for _, in := range []uint64{carry, 0, 1} {
			c, cRef := in, in
			got, want := escapedBits(m, &c), escapedBitsByByte(m, &cRef)
			if got != want || c != cRef {
				t.Fatalf("escapedBits(%064b, carry %d) = %064b carry %d, want %064b carry %d", m, in, got, c, want, cRef)
			}
		}
		// And chained, block after block.
		got, want := escapedBits(m, &carry), escapedBitsByByte(m, &carryRef)
		if got != want || carry != carryRef {
			t.Fatalf("chained: %064b: got %064b carry %d, want %064b carry %d", m, got, carry, want, carryRef)
		}
	}
}

// stringBlocksCases are strings whose escapes fall on and across the
// 64-byte blocks' edges.
func stringBlocksCases() []string {
	cases := []string{
		strings.Repeat(`a\"b\\c\nd\te\/f\u00e9g`, 20) + `"`,
		strings.Repeat(`\\`, 100) + `"`,
		strings.Repeat(`\\`, 100) + `\"` + `"`,
		strings.Repeat("é日本\\n", 40) + `"`,
		strings.Repeat("x", 200) + "\x01\"",
		strings.Repeat(`\n`, 60) + "\\\x01\"",
		strings.Repeat("y", 100) + `\q"`,
		strings.Repeat("y", 100) + `\u12"` + strings.Repeat("z", 80),
		strings.Repeat("y", 100) + `\u00E9 \u2028 \u0008 \ud83d\ude00 \u001f"`,
		strings.Repeat("y", 100) + "\xe2\x80\xa8" + `"`,
		strings.Repeat("y", 100) + "\xff" + `"`,
		strings.Repeat("y", 150),
		strings.Repeat("y", 150) + `\`,
	}
	rng := rand.New(rand.NewPCG(3, 4))
	text := []string{`\\`, `\"`, `\n`, `\/`, `\u00e9`, `\u0041`, `\u2029`, `\u00E9`, "a", "b", " ", "é", "\u2028"}
	breakers := []string{"\\", `"`, "\x1f", "\xc3", `\q`, `\u12`}
	for range 3000 {
		var b strings.Builder
		for n := 40 + rng.IntN(300); b.Len() < n; {
			b.WriteString(text[rng.IntN(len(text))])
		}
		s := b.String()
		// Half of them broken once, anywhere.
		if rng.IntN(2) == 0 {
			k := rng.IntN(len(s))
			s = s[:k] + breakers[rng.IntN(len(breakers))] + s[k:]
		}
		cases = append(cases, s+`"`)
	}
	return cases
}

// The block walk gives every string scanner the answers of the byte loops,
// at every offset of a string against the blocks.
func TestStringBlocksMatchByteLoops(t *testing.T) {
	if !useAVX2 {
		t.Skip("no vector scanner on this machine")
	}
	for _, s := range stringBlocksCases() {
		checkStringScanners(t, s)
	}
}

func FuzzStringBlocks(f *testing.F) {
	for _, s := range stringBlocksCases()[:13] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !useAVX2 {
			t.Skip("no vector scanner on this machine")
		}
		checkStringScanners(t, s)
	})
}

func checkStringScanners(t *testing.T, s string) {
	t.Helper()
	for pad := 0; pad < 64; pad += 7 {
		in := []byte(`"` + strings.Repeat("p", pad) + s)
		type answers struct {
			valid, end, scanEnd  int
			escaped, scanEscaped bool
			canonical            bool
		}
		run := func() (a answers) {
			a.valid = ValidString(in, 0)
			a.end, a.escaped = stringEnd(in, 1)
			a.scanEnd, a.scanEscaped, a.canonical = ScanString(in, 0)
			// What a malformed string held is nobody's concern.
			if a.end < 0 {
				a.escaped = false
			}
			if a.scanEnd < 0 {
				a.scanEscaped = false
			}
			return a
		}
		vec := run()
		useAVX2 = false
		port := run()
		useAVX2 = true
		if vec != port {
			t.Fatalf("%q:\nblocks     %+v\nbyte loops %+v", in, vec, port)
		}
	}
}
