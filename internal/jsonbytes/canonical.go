package jsonbytes

import (
	"unicode/utf16"
	"unicode/utf8"
)

// A converter that decodes a client's string only to escape it again
// writes, for almost every string, the bytes it read: clients escape what
// the escaper escapes. AppendCanonical copies those bytes as they are and
// rewrites only the escapes the escaper writes otherwise, in the same pass
// that finds the string's end.

// AppendCanonical appends the text of the JSON string whose opening quote
// is at data[i] to dst, without quotes, escaped exactly as Encode (a
// json.Encoder with HTML escaping off) writes that text: runs and escapes
// the escaper writes the same are copied as they are; \/, a \u escape of a
// character the escaper writes plainly or in short form, and upper-case
// hex are rewritten; a raw U+2028 or U+2029 is escaped. It returns the
// index past the closing quote and whether the string held an escape (if
// not, its bytes are its text).
//
// ok is false for what is not a valid JSON string, and for text
// encoding/json would change as it decodes (invalid UTF-8, a \u escape of
// a lone surrogate, both replaced by U+FFFD): dst is then partly appended,
// and the caller decodes the string the slow way.
func AppendCanonical(dst, data []byte, i int) (_ []byte, end int, escaped, ok bool) {
	if i >= len(data) || data[i] != '"' {
		return dst, 0, false, false
	}
	j := i + 1
	for {
		k, high := nextSpecialHigh(data, j)
		if run := data[j:k]; !high || plainUTF8(run) {
			dst = append(dst, run...)
		} else if dst, ok = appendRunes(dst, run); !ok {
			return dst, 0, escaped, false
		}
		if k >= len(data) {
			return dst, 0, escaped, false
		}
		switch c := data[k]; {
		case c == '"':
			return dst, k + 1, escaped, true
		case c < 0x20 || k+1 >= len(data):
			return dst, 0, escaped, false
		}
		escaped = true
		switch e := data[k+1]; e {
		case '"', '\\', 'n', 'r', 't', 'b', 'f':
			dst = append(dst, '\\', e)
			j = k + 2
		case '/':
			dst = append(dst, '/')
			j = k + 2
		case 'u':
			r, n := hexRune(data[k:])
			if n == 0 {
				return dst, 0, escaped, false
			}
			switch {
			case r < 0x20 || r == '"' || r == '\\':
				dst = appendEscapedASCII(dst, byte(r))
			case r == '\u2028' || r == '\u2029':
				dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			default:
				dst = utf8.AppendRune(dst, r)
			}
			j = k + n
		default:
			return dst, 0, escaped, false
		}
	}
}

// appendRunes appends run, which holds bytes of 0x80 or more, with U+2028
// and U+2029 escaped; false if it is not valid UTF-8.
func appendRunes(dst, run []byte) ([]byte, bool) {
	start := 0
	for i := 0; i < len(run); {
		if run[i] < utf8.RuneSelf {
			i++
			continue
		}
		size, ok := runeLen(run, i)
		if !ok {
			return dst, false
		}
		if size == 3 && run[i] == 0xE2 && run[i+1] == 0x80 && run[i+2]&^1 == 0xA8 {
			dst = append(dst, run[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[run[i+2]&0xF])
			start = i + size
		}
		i += size
	}
	return append(dst, run[start:]...), true
}

// hexRune decodes the \u escape, or surrogate pair of them, p starts with:
// the rune and the escape's length, 0 for a malformed escape or a lone
// surrogate.
func hexRune(p []byte) (rune, int) {
	r := Hex4(p)
	switch {
	case r < 0:
		return 0, 0
	case !utf16.IsSurrogate(r):
		return r, 6
	case r >= 0xDC00 || len(p) < 12:
		return 0, 0
	}
	r2 := Hex4(p[6:])
	if r2 < 0xDC00 || r2 > 0xDFFF {
		return 0, 0
	}
	return utf16.DecodeRune(r, r2), 12
}

// AppendStringNoHTML appends s quoted as Encode writes a string: as a
// json.Encoder with HTML escaping off does.
func AppendStringNoHTML(dst []byte, s string) []byte {
	return appendJSONStringNoHTML(dst, s)
}

// AppendCompact appends the valid JSON value v with the whitespace
// outside its strings removed, as encoding/json writes a json.RawMessage
// (with HTML escaping off: nothing else changes).
func AppendCompact(dst, v []byte) []byte {
	start := 0
	for i := 0; i < len(v); {
		switch c := v[i]; c {
		case '"':
			// Past the string: its end is its first quote not escaped.
			i++
			for {
				i = IndexStringSpecial(v, i)
				if i >= len(v) || v[i] == '"' {
					break
				}
				if v[i] == '\\' {
					i += 2
				} else {
					i++ // a control byte: not valid JSON, copied as it is
				}
			}
			i++
		case ' ', '\t', '\n', '\r':
			dst = append(dst, v[start:i]...)
			i++
			for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == '\n' || v[i] == '\r') {
				i++
			}
			start = i
		default:
			i++
		}
	}
	return append(dst, v[start:]...)
}
