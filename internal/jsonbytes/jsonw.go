package jsonbytes

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf8"
	"unsafe"

	asmutf8 "github.com/segmentio/asm/utf8"
)

// The event emitter writes its small JSON objects by appending to one buffer:
// encoding/json would allocate and reflect per delta, and deltas are the hot path.

const hexDigits = "0123456789abcdef"

// appendEscapedASCII appends the JSON escape of an ASCII byte that must be
// escaped in a string: a quote, a backslash or a control character, written
// as encoding/json writes them (\b and \f too, since Go 1.22).
func appendEscapedASCII(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}

// escapeSet is what one escaper writes as it is: JSON's rules, with or
// without encoding/json's HTML escaping.
type escapeSet struct {
	safe [utf8.RuneSelf]bool // the ASCII bytes that need no escaping
	stop [3]byte             // the vector search's stops beyond JSON's
	word wordStops           // the word test's
}

// wordStops are the two byte tests of escapeStops beside the control
// character and backslash ones: the bytes of w|or^xor that are zero stop.
// Or-ing in one bit maps '"' and '&' to '&', '<' and '>' to '>'; without
// HTML escaping both test for '"'.
type wordStops struct{ qOr, qXor, aOr, aXor uint64 }

var (
	// htmlEscapes escapes '<', '>' and '&' the way encoding/json's Marshal
	// does, so our output and a re-marshalled one never differ.
	htmlEscapes = newEscapeSet("<>&")
	// plainEscapes is json.Encoder's with HTML escaping off: the markup
	// of a request's text goes as it is.
	plainEscapes = newEscapeSet("")
)

func newEscapeSet(html string) *escapeSet {
	e := &escapeSet{stop: [3]byte{'"', '"', '"'}, word: wordStops{0, '"' * lsbs, 0, '"' * lsbs}}
	if html != "" {
		e.word = wordStops{0x04 * lsbs, '&' * lsbs, 0x02 * lsbs, '>' * lsbs}
	}
	for i := 0x20; i < utf8.RuneSelf; i++ {
		e.safe[i] = true
	}
	e.safe['"'], e.safe['\\'] = false, false
	for i := range len(html) {
		e.safe[html[i]] = false
		e.stop[i] = html[i]
	}
	return e
}

// AppendString appends s to dst as a quoted JSON string. Invalid UTF-8 is
// replaced by U+FFFD, as encoding/json does.
func AppendString[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	dst, _ = AppendStringBody(dst, bytesOf(s))
	return append(dst, '"')
}

// bytesOf returns s's bytes without a copy for the plain string and []byte
// types (the escaper only reads them).
func bytesOf[S ~string | ~[]byte](s S) []byte {
	switch v := any(s).(type) {
	case []byte:
		return v
	case string:
		return unsafe.Slice(unsafe.StringData(v), len(v))
	}
	return []byte(s) // a named type: a copy, never on the hot path
}

// AppendStringBody appends s escaped for a JSON string, without
// quotes, and reports whether s held invalid UTF-8, which it writes as
// U+FFFD.
//
// This is the gateway's hottest loop: every byte of text and thinking goes
// through it. With AVX2 it finds the next byte that needs escaping 32 bytes
// at a time (scan_amd64.s: eight bytes at a time, this was the largest cost
// of a translated stream) and checks the UTF-8 of the run before it in one
// vector pass (ValidUTF8); a run whose UTF-8 is invalid, or that holds
// U+2028 or U+2029, goes through the rune-by-rune loop instead. Without
// AVX2 the word test below does all of it, eight bytes at a time.
func AppendStringBody(dst, s []byte) (_ []byte, replaced bool) {
	return appendEscaped(dst, s, htmlEscapes)
}

// appendEscaped is the one escaper: AppendStringBody with the escapes of
// set.
func appendEscaped(dst, s []byte, set *escapeSet) (_ []byte, replaced bool) {
	start, i := 0, 0
	word := set.word
	slowTo := 0 // s[:slowTo] goes through the rune-by-rune loop
	for i < len(s) {
		if i+8 <= len(s) {
			m := escapeStops(binary.LittleEndian.Uint64(s[i:]), word)
			if m == 0 {
				i += 8
			} else {
				i += bits.TrailingZeros64(m) >> 3
			}
			// A run of text ahead (eight clean bytes, or a non-ASCII
			// rune): the vector scan finds its end, and its runes are
			// checked in one pass. Quotes, line ends and markup close
			// together are found by the word test above, sooner than by
			// setting up the vector scan.
			if (m == 0 || s[i] >= utf8.RuneSelf) && useAVX2 && i >= slowTo && len(s)-i >= 32 {
				if n, high := indexSpecialAVX2(s[i:], set.stop[0], set.stop[1], set.stop[2]); high && !plainUTF8(s[i:i+n]) {
					slowTo = i + n
				} else {
					i += n
				}
			}
			if m == 0 {
				continue
			}
		}
		if i >= len(s) {
			break
		}
		if b := s[i]; b < utf8.RuneSelf {
			if set.safe[b] {
				i++
				continue
			}
			dst = appendEscapedASCII(append(dst, s[start:i]...), b)
			i++
			start = i
			continue
		}
		size, ok := runeLen(s, i)
		if !ok {
			replaced = true
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		// U+2028 and U+2029 break JavaScript parsers that treat JSON as code.
		if size == 3 && s[i] == 0xE2 && s[i+1] == 0x80 && s[i+2]&^1 == 0xA8 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[s[i+2]&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...), replaced
}

// escapeStops flags (0x80) the bytes of w that may need escaping or are not
// ASCII. Flags above the lowest may be false; the lowest is always true.
func escapeStops(w uint64, stops wordStops) uint64 {
	q, a, bs := w|stops.qOr^stops.qXor, w|stops.aOr^stops.aXor, w^'\\'*lsbs
	return ((w-0x20*lsbs)&^w | // control characters
		(q-lsbs)&^q | (a-lsbs)&^a | (bs-lsbs)&^bs |
		w) & msbs // not ASCII
}

// ValidUTF8 is utf8.Valid, with AVX2 from 32 bytes on: text with a non-ASCII
// word now and then costs utf8.Valid a mispredicted branch at each rune.
// The vector check is segmentio/asm's (the Keiser–Lemire lookup tables),
// which, like utf8.Valid, counts a sequence cut by the end of p as invalid.
func ValidUTF8(p []byte) bool {
	if !useAVX2 || len(p) < 32 {
		return utf8.Valid(p)
	}
	return asmutf8.Valid(p)
}

// plainUTF8 reports whether p, which holds bytes of 0x80 or more, is valid
// UTF-8 without U+2028 or U+2029, so that the escaper may copy it whole.
func plainUTF8(p []byte) bool {
	if !ValidUTF8(p) {
		return false
	}
	for {
		i := bytes.IndexByte(p, 0xE2)
		if i < 0 {
			return true
		}
		if p[i+1] == 0x80 && p[i+2]&^1 == 0xA8 { // valid: two more bytes follow
			return false
		}
		p = p[i+3:]
	}
}

// Word-at-a-time byte tests: (v-lsbs)&^v&msbs flags the zero bytes of v,
// exactly at the lowest one (a borrow only carries upwards).
const (
	lsbs = 0x0101010101010101
	msbs = 0x8080808080808080
)

// runeLen returns the length of the UTF-8 sequence at s[i], which is not
// ASCII, and whether it is valid (the rules of utf8.DecodeRune: no overlong
// forms, no surrogates, nothing beyond U+10FFFF).
func runeLen(s []byte, i int) (int, bool) {
	b0, n := s[i], len(s)-i
	cont := func(k int, lo, hi byte) bool { return k < n && s[i+k] >= lo && s[i+k] <= hi }
	switch {
	case b0 < 0xC2:
		return 1, false
	case b0 < 0xE0:
		return 2, cont(1, 0x80, 0xBF)
	case b0 < 0xF0:
		lo, hi := byte(0x80), byte(0xBF)
		if b0 == 0xE0 {
			lo = 0xA0
		} else if b0 == 0xED {
			hi = 0x9F
		}
		return 3, cont(1, lo, hi) && cont(2, 0x80, 0xBF)
	case b0 < 0xF5:
		lo, hi := byte(0x80), byte(0xBF)
		if b0 == 0xF0 {
			lo = 0x90
		} else if b0 == 0xF4 {
			hi = 0x8F
		}
		return 4, cont(1, lo, hi) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF)
	}
	return 1, false
}

// AppendJSONInt appends n as a JSON number.
func AppendJSONInt(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }
