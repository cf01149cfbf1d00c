package providers

import (
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// The event emitter writes its small JSON objects by appending to one buffer:
// encoding/json would allocate and reflect per delta, and deltas are the hot path.

const hexDigits = "0123456789abcdef"

// safeASCII reports the ASCII bytes that need no escaping inside a JSON string.
var safeASCII = func() (t [utf8.RuneSelf]bool) {
	for i := 0x20; i < utf8.RuneSelf; i++ {
		t[i] = true
	}
	t['"'] = false
	t['\\'] = false
	// HTML-sensitive characters are escaped the way encoding/json escapes them,
	// so our output and a re-marshalled one never differ.
	t['<'] = false
	t['>'] = false
	t['&'] = false
	return t
}()

// AppendJSONString appends s to dst as a quoted JSON string. Invalid UTF-8 is
// replaced by U+FFFD, as encoding/json does.
func AppendJSONString[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	dst = appendJSONStringBody(dst, s)
	return append(dst, '"')
}

// appendJSONStringBody appends s escaped for a JSON string, without quotes.
func appendJSONStringBody[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst, _ = appendJSONStringBodyReport(dst, s)
	return dst
}

// appendJSONStringBodyReport is appendJSONStringBody that also reports
// whether s held invalid UTF-8, which it writes as U+FFFD.
//
// This is the gateway's hottest loop: every byte of text and thinking goes
// through it. It looks at eight bytes at a time and stops only at a byte that
// may need escaping (control, quote, backslash, <, >, &) or is not ASCII.
func appendJSONStringBodyReport[S ~string | ~[]byte](dst []byte, s S) (_ []byte, replaced bool) {
	start, i := 0, 0
	for i < len(s) {
		for i+8 <= len(s) {
			_ = s[i+7] // one bounds check for the eight loads
			w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			// Written out (not a call) so that it stays in registers. Or-ing
			// in one bit maps '"' and '&' to '&', '<' and '>' to '>'.
			q, a, bs := w|0x04*lsbs^'&'*lsbs, w|0x02*lsbs^'>'*lsbs, w^'\\'*lsbs
			m := (w-0x20*lsbs)&^w | // control characters
				(q-lsbs)&^q | (a-lsbs)&^a | (bs-lsbs)&^bs |
				w // not ASCII
			if m &= msbs; m != 0 {
				// The lowest flagged byte is always a true one.
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		if b := s[i]; b < utf8.RuneSelf {
			if safeASCII[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b': // as encoding/json writes them since Go 1.22
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
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

// Word-at-a-time byte tests: (v-lsbs)&^v&msbs flags the zero bytes of v,
// exactly at the lowest one (a borrow only carries upwards).
const (
	lsbs = 0x0101010101010101
	msbs = 0x8080808080808080
)

// runeLen returns the length of the UTF-8 sequence at s[i], which is not
// ASCII, and whether it is valid (the rules of utf8.DecodeRune: no overlong
// forms, no surrogates, nothing beyond U+10FFFF).
func runeLen[S ~string | ~[]byte](s S, i int) (int, bool) {
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
