package jsonbytes

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// StringEnd returns the index of the quote that ends the JSON string whose
// contents start at p[0], and whether the string holds an escape (without
// one, the string is its own value). end is -1 if p holds no end or if a
// control character comes first: JSON forbids one in a string, and in an
// SSE data line it could be the line's end. After sixteen bytes it looks
// at 32 at a time with AVX2, eight without.
func StringEnd(p []byte) (end int, escaped bool) {
	return stringEnd(p, 0)
}

// StringEndAfter is StringEnd for the string whose contents start right
// after head in p, the index counted from p's start; -1 if p does not start
// with head. With AVX2 the head compare and the string's first scan are one
// pass: a shaped SSE event is such a head and string, a hundred of them to
// an upstream read.
func StringEndAfter(p, head []byte) (end int, escaped bool) {
	h := len(head)
	if len(p) < h {
		return -1, false
	}
	if useAVX2 && h >= 32 && len(p)-h >= 32 {
		i := shapeScanAVX2(p, head)
		if i < 0 {
			return -1, false
		}
		end, escaped = stringEnd(p[h:], i-h) // i: the string's first special byte
	} else {
		if !bytes.Equal(p[:h], head) {
			return -1, false
		}
		end, escaped = StringEnd(p[h:])
	}
	if end < 0 {
		return -1, escaped
	}
	return h + end, escaped
}

// stringEnd returns the index of the quote that ends the JSON string in p
// whose contents, or the rest of them, start at i. It is the one rule every
// scanner here applies to the end of a string: the first quote not escaped
// by a backslash; a raw control character (below 0x20), in the string or
// right after a backslash, makes the string malformed (-1), as does its
// end missing. Each run up to the next quote, backslash or control byte is
// stepped through for 16 bytes (ShortRun's loop, written out here: the
// scanners call this for every name and short value of a chunk), then
// handed to the vector search; past blockMin bytes, a string goes to the
// block walk (stringBlocks).
func stringEnd(p []byte, i int) (end int, escaped bool) {
	start := i
	for {
		if useBlocks(p, i, start) {
			at, found, f := stringBlocks(p, i, 0)
			escaped = escaped || f.escaped
			if at < 0 || found {
				return at, escaped
			}
			i = at
		}
		k := i
		for k < len(p) && k-i < 16 && !stringStops[p[k]] {
			k++
		}
		if k-i == 16 {
			k = IndexStringSpecial(p, k)
		}
		if k >= len(p) {
			return -1, escaped
		}
		switch c := p[k]; {
		case c == '"':
			return k, escaped
		case c == '\\':
			if k+1 >= len(p) || p[k+1] < 0x20 {
				return -1, escaped
			}
			escaped = true
			i = k + 2
		default: // a control character
			return -1, escaped
		}
	}
}

// stringStops marks the bytes that end or interrupt a run of a JSON
// string's text: a quote, a backslash, a control character. One load a
// byte is cheaper than the three compares.
var stringStops = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// IndexStringSpecial returns the index of the first quote, backslash or
// control character in p from i on, or len(p).
func IndexStringSpecial(p []byte, i int) int {
	if useAVX2 && len(p)-i >= 32 {
		n, _ := indexSpecialAVX2(p[i:], '"', '"', '"')
		return i + n
	}
	return stringSpecialSWAR(p, i)
}

// stringSpecialSWAR returns the index of the first quote, backslash or
// control character in p from i on, or len(p), eight bytes at a time.
func stringSpecialSWAR(p []byte, i int) int {
	for i+8 <= len(p) {
		w := binary.LittleEndian.Uint64(p[i:])
		q, bs := w^'"'*lsbs, w^'\\'*lsbs
		if m := ((w-0x20*lsbs)&^w | (q-lsbs)&^q | (bs-lsbs)&^bs) & msbs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for ; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == '"' || c == '\\' {
			break
		}
	}
	return i
}

// ShortRun is IndexStringSpecial for text whose escapes come close together
// (code, logs): a short run is cheaper to step through than to hand to the
// vector search.
func ShortRun(data []byte, i int) int {
	k := i
	for k < len(data) && k-i < 16 && !stringStops[data[k]] {
		k++
	}
	if k-i == 16 {
		k = IndexStringSpecial(data, k)
	}
	return k
}
