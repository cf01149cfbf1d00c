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
	// First the string's end, checking that each escape is the escaper's;
	// then one copy of the whole string. Code and logs have an escape
	// every few bytes: copying run by run would cost a call per run. The
	// UTF-8 is checked once, in one vector pass.
	j, anyHigh := i+1, false
	for {
		k, high := canonicalRunEnd(data, j)
		anyHigh = anyHigh || high
		if k >= len(data) {
			return dst, 0, escaped, false
		}
		switch c := data[k]; {
		case c == '"':
			text := data[i+1 : k]
			if anyHigh && !plainUTF8(text) {
				return appendCanonicalRunes(dst, data, i)
			}
			return append(dst, text...), k + 1, escaped, true
		case c < 0x20 || k+1 >= len(data):
			return dst, 0, escaped, false
		}
		escaped = true
		e := data[k+1]
		if shortEscape[e] {
			j = k + 2
			continue
		}
		if e == 'u' && escaperWritesU(data[k:]) {
			j = k + 6
			continue
		}
		return appendCanonicalRunes(dst, data, i)
	}
}

// canonicalRunEnd returns the index of the first quote, backslash or
// control byte in data from j on (or len(data)), and whether a byte of
// 0x80 or more may come before it. A short run, as between the escapes of
// code, is stepped through rather than handed to the vector search.
func canonicalRunEnd(data []byte, j int) (int, bool) {
	var seen byte
	k := j
	for ; k < len(data) && k-j < 16; k++ {
		c := data[k]
		if c == '"' || c == '\\' || c < 0x20 {
			return k, seen >= 0x80
		}
		seen |= c
	}
	if k == len(data) {
		return k, seen >= 0x80
	}
	if useAVX2 && len(data)-k >= 32 {
		n, high := indexSpecialAVX2(data[k:], '"', '"', '"')
		return k + n, high || seen >= 0x80
	}
	return stringSpecialSWAR(data, k), true
}

// shortEscape are the escapes the escaper writes as a backslash and one
// character.
var shortEscape = [256]bool{'"': true, '\\': true, 'n': true, 'r': true, 't': true, 'b': true, 'f': true}

// escaperWritesU reports a \u escape at the start of p that the escaper writes
// as it is: a control character without a short form, or U+2028 or
// U+2029, in lower-case hex.
func escaperWritesU(p []byte) bool {
	if len(p) < 6 {
		return false
	}
	h := p[2:6]
	switch {
	case h[0] == '0' && h[1] == '0' && (h[2] == '0' || h[2] == '1'):
		var v byte
		switch c := h[3]; {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		default:
			return false
		}
		v |= (h[2] - '0') << 4
		return v != '\b' && v != '\t' && v != '\n' && v != '\f' && v != '\r'
	case h[0] == '2' && h[1] == '0' && h[2] == '2':
		return h[3] == '8' || h[3] == '9'
	}
	return false
}

// appendCanonicalRunes is AppendCanonical for text with invalid UTF-8, or
// with U+2028 or U+2029 written raw: each run is checked on its own.
func appendCanonicalRunes(dst, data []byte, i int) (_ []byte, end int, escaped, ok bool) {
	j := i + 1
	for {
		k, high := canonicalRunEnd(data, j)
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
		var n int
		if dst, n = appendEscape(dst, data, k); n == 0 {
			return dst, 0, escaped, false
		}
		j = k + n
	}
}

// appendEscape appends the escape at data[k] as the escaper writes its
// character and returns its length, 0 for a malformed one or a lone
// surrogate.
func appendEscape(dst, data []byte, k int) ([]byte, int) {
	switch e := data[k+1]; e {
	case '"', '\\', 'n', 'r', 't', 'b', 'f':
		return append(dst, '\\', e), 2
	case '/':
		return append(dst, '/'), 2
	case 'u':
		r, n := hexRune(data[k:])
		switch {
		case n == 0:
		case r < 0x20 || r == '"' || r == '\\':
			dst = appendEscapedASCII(dst, byte(r))
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			dst = utf8.AppendRune(dst, r)
		}
		return dst, n
	}
	return dst, 0
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
