package jsonbytes

import "math/bits"

// The history of an agent's request is mostly strings of code and logs,
// with an escape every few bytes. A walk that stops at each escape pays a
// mispredicted branch and a call per stop; a long string is instead taken
// 64 bytes at a time as bit masks (stringMasksAVX2), from which the
// escaped bytes, the closing quote and what is wrong or not canonical
// come out by arithmetic, however dense the escapes. Short strings (names,
// a block's type) stay with the byte loops, which end them sooner.

// blockMin is how much of a string the byte loops step through before the
// rest goes to the block walk; shorter strings never reach it.
const blockMin = 16

// What stringBlocks checks beyond the string's end.
const (
	wantEscapes   = 1 << iota // each escape is one of JSON's
	wantCanonical             // note '/', a \u escape the escaper does not write, bytes of 0x80 or more
)

// stringFacts are what stringBlocks saw in the blocks it walked.
type stringFacts struct {
	escaped      bool // a backslash
	high         bool // a byte of 0x80 or more
	notCanonical bool // an escape the escaper writes otherwise (with wantCanonical)
}

// useBlocks reports whether the string text from i, start bytes into it,
// goes to stringBlocks.
func useBlocks(p []byte, i, start int) bool {
	return useAVX2 && i-start >= blockMin && len(p)-i >= 64
}

// stringBlocks walks the text of a JSON string from i, which is not inside
// an escape, 64 bytes at a time while 64 remain. It returns the index of
// the closing quote with end set; or -1 for a malformed string (the
// string-end rule's: a control character before the end, raw or escaped;
// with wantEscapes also an escape JSON does not have); or, when fewer than
// 64 bytes remain, the index where a byte loop goes on (not inside an
// escape: a block that ends on an escaping backslash hands that backslash
// back).
func stringBlocks(p []byte, i int, checks int) (at int, end bool, f stringFacts) {
	var carry uint64 // 1: the block's first byte is escaped
	for ; len(p)-i >= 64; i += 64 {
		quote, backslash, control, high, short, slash, u := stringMasksAVX2((*[64]byte)(p[i : i+64]))
		escaped := escapedBits(backslash, &carry)
		quote &^= escaped
		// The bits before the closing quote, or all of them.
		before := quote&-quote - 1
		if control&before != 0 {
			return -1, false, f
		}
		escaped &= before
		f.escaped = f.escaped || backslash&before != 0
		f.high = f.high || high&before != 0
		if checks != 0 {
			if escaped&^(short|slash|u) != 0 {
				return -1, false, f
			}
			if checks&wantCanonical != 0 && escaped&slash != 0 {
				f.notCanonical = true
			}
			for us := escaped & u; us != 0; us &= us - 1 {
				k := i + bits.TrailingZeros64(us) - 1 // the backslash
				if checks&wantCanonical != 0 && canonicalU(p[k:]) {
					continue
				}
				if Hex4(p[k:]) < 0 {
					return -1, false, f
				}
				f.notCanonical = true
			}
		}
		if quote != 0 {
			return i + bits.TrailingZeros64(quote), true, f
		}
	}
	return i - int(carry), false, f
}

// escapedBits returns the mask of the bytes a backslash escapes in a block
// whose backslashes are backslash: the byte after each odd-length run of
// backslashes, counted from the run's start. carry is 1 when the block's
// first byte is escaped by the block before, and is set for the next.
func escapedBits(backslash uint64, carry *uint64) uint64 {
	const odd = 0xAAAAAAAAAAAAAAAA // the bits at odd positions
	// The backslashes that escape the byte after them unless escaped
	// themselves: a run's first, third, … one.
	escaping := backslash &^ *carry
	// Subtracting each run's start from the odd bits (with the bit past
	// each run set) leaves a code whose bits, xor the odd bits, are the
	// escaping backslashes and the bytes they escape.
	code := (((escaping << 1) | odd) - escaping) ^ odd
	escapedAll := code ^ (backslash | *carry)
	*carry = (code & backslash) >> 63
	return escapedAll
}
