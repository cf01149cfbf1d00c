package jsonbytes

import (
	"unicode/utf16"
	"unicode/utf8"
)

// A converter that moves a client's text into another JSON body would
// decode each string and escape it again; clients escape what the escaper
// escapes, so almost every string comes out exactly as it went in.
// ScanString tells those strings in the walk that finds their end, so that
// their bytes can be copied; AppendCanonical copies the others a stretch
// at a time, rewriting only the escapes the escaper writes otherwise.

// ScanString steps over the JSON string whose opening quote is at data[i]
// and returns the index past its closing quote (-1 for what is not a valid
// JSON string), whether it holds an escape (if not, its bytes are its
// text), and whether its bytes between the quotes are exactly what
// AppendStringBodyNoHTML writes for the text encoding/json decodes from
// them: valid UTF-8 without U+2028 or U+2029, and only the escapes the
// escaper writes (\" \\ \n \r \t \b \f, and \u00xx in lower-case hex for
// the other control characters, \u2028 and \u2029). \/, a \u escape of
// any other character and upper-case hex are not.
//
// The end is the string-end rule's (stringEnd): the first quote not
// escaped; a control character ends nothing, it makes the string invalid.
// Code and logs have an escape every few bytes, so each run between
// escapes is stepped through for 16 bytes before the vector search, and
// the UTF-8 is checked once, for the whole string, only if a byte of 0x80
// or more was seen.
func ScanString(data []byte, i int) (end int, escaped, canonical bool) {
	if i >= len(data) || data[i] != '"' {
		return -1, false, false
	}
	canonical = true
	j, high := i+1, false
	for {
		if useBlocks(data, j, i+1) {
			at, end, f := stringBlocks(data, j, wantEscapes|wantCanonical)
			escaped, high = escaped || f.escaped, high || f.high
			canonical = canonical && !f.notCanonical
			if at < 0 {
				return -1, escaped, false
			}
			if end {
				return at + 1, escaped, canonical && (!high || plainUTF8(data[i+1:at]))
			}
			j = at
		}
		k, h := canonicalRunEnd(data, j)
		high = high || h
		if k >= len(data) {
			return -1, escaped, false
		}
		switch c := data[k]; {
		case c == '"':
			return k + 1, escaped, canonical && (!high || plainUTF8(data[i+1:k]))
		case c != '\\' || k+1 >= len(data): // a control character
			return -1, escaped, false
		}
		escaped = true
		switch data[k+1] {
		case '"', '\\', 'n', 'r', 't', 'b', 'f':
			j = k + 2
		case '/':
			canonical = false
			j = k + 2
		case 'u':
			if !canonicalU(data[k:]) {
				if Hex4(data[k:]) < 0 {
					return -1, escaped, false
				}
				canonical = false
			}
			j = k + 6
		default:
			return -1, escaped, false
		}
	}
}

// canonicalRunEnd returns the index of the first quote, backslash or
// control character in p from i on (or len(p)), and whether a byte of
// 0x80 or more may come before it. A short run, as between the escapes of
// code, is stepped through rather than handed to the vector search, whose
// answer includes whether the run is all ASCII.
func canonicalRunEnd(p []byte, i int) (int, bool) {
	var seen byte
	k := i
	for k < len(p) && k-i < 16 && !stringStops[p[k]] {
		seen |= p[k]
		k++
	}
	if k-i < 16 || k == len(p) {
		return k, seen >= utf8.RuneSelf
	}
	if useAVX2 && len(p)-k >= 32 {
		n, high := indexSpecialAVX2(p[k:], '"', '"', '"')
		return k + n, high || seen >= utf8.RuneSelf
	}
	return stringSpecialSWAR(p, k), true
}

// canonicalU reports whether the \u escape p starts with is one the
// escaper writes: in lower-case hex, a control character it has no short
// escape for, or U+2028 or U+2029.
func canonicalU(p []byte) bool {
	if len(p) < 6 {
		return false
	}
	if p[2] == '2' && p[3] == '0' && p[4] == '2' && (p[5] == '8' || p[5] == '9') {
		return true
	}
	if p[2] != '0' || p[3] != '0' || (p[4] != '0' && p[4] != '1') {
		return false
	}
	var low byte
	switch c := p[5]; {
	case '0' <= c && c <= '9':
		low = c - '0'
	case 'a' <= c && c <= 'f':
		low = c - 'a' + 10
	default:
		return false
	}
	switch low | (p[4]-'0')<<4 {
	case '\b', '\t', '\n', '\f', '\r':
		return false // written short
	}
	return true
}

// AppendCanonical appends the text of the JSON string whose opening quote
// is at data[i] to dst, without quotes, as AppendStringBodyNoHTML writes
// the text encoding/json decodes from it: the string's own bytes when
// ScanString finds them canonical, else AppendCanonicalBody's. It returns
// the index past the closing quote, whether the string held an escape,
// and whether encoding/json's decoding replaced anything by U+FFFD
// (invalid UTF-8, a \u escape of a lone surrogate). For what is not a
// valid JSON string end is -1 and dst is returned as it was.
func AppendCanonical(dst, data []byte, i int) (_ []byte, end int, escaped, replaced bool) {
	end, escaped, canonical := ScanString(data, i)
	switch {
	case end < 0:
		return dst, -1, escaped, false
	case canonical:
		return append(dst, data[i+1:end-1]...), end, escaped, false
	}
	dst, replaced = AppendCanonicalBody(dst, data[i+1:end-1])
	return dst, end, escaped, replaced
}

// AppendCanonicalBody is AppendCanonical for body, the bytes between the
// quotes of a string ScanString accepted. The bytes up to an escape the
// escaper writes otherwise are copied as they are when their UTF-8 is
// (checked as one stretch), and that escape is rewritten: \/ as /, a \u
// escape (or surrogate pair) as the escaper writes its character, a lone
// surrogate as U+FFFD, as encoding/json decodes it.
func AppendCanonicalBody(dst, body []byte) (_ []byte, replaced bool) {
	start := 0 // of the stretch not yet appended
	for j := 0; ; {
		if j = ShortRun(body, j); j+1 >= len(body) {
			break // a valid body's only special bytes are backslashes
		}
		n := 2
		switch e := body[j+1]; {
		case shortEscape[e]:
			j += 2
			continue
		case e == 'u' && canonicalU(body[j:]):
			j += 6
			continue
		}
		var r bool
		dst, r = appendCanonicalText(dst, body[start:j])
		replaced = replaced || r
		if body[j+1] == '/' {
			dst = append(dst, '/')
		} else {
			var ch rune
			ch, n = Hex4(body[j:]), 6
			if ch < 0 {
				return append(dst, body[j:]...), replaced // not a string body: the rest as it is
			}
			if utf16.IsSurrogate(ch) {
				// A pair only if a low half follows at once; otherwise this
				// half alone is U+FFFD and what follows decodes on its own.
				if d := utf16.DecodeRune(ch, Hex4(body[j+6:])); d != utf8.RuneError {
					ch, n = d, 12
				} else {
					ch, replaced = utf8.RuneError, true
				}
			}
			dst = appendCanonicalRune(dst, ch)
		}
		j += n
		start = j
	}
	dst, r := appendCanonicalText(dst, body[start:])
	return dst, replaced || r
}

// shortEscape are the escapes the escaper writes as a backslash and one
// character.
var shortEscape = [256]bool{'"': true, '\\': true, 'n': true, 'r': true, 't': true, 'b': true, 'f': true}

// appendCanonicalRune appends r as the escaper writes it.
func appendCanonicalRune(dst []byte, r rune) []byte {
	switch {
	case r < 0x20 || r == '"' || r == '\\':
		return appendEscapedASCII(dst, byte(r))
	case r == '\u2028' || r == '\u2029':
		return append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
	}
	return utf8.AppendRune(dst, r)
}

// appendCanonicalText appends p, a stretch of a string body whose escapes
// the escaper writes as they are, with U+2028 and U+2029 escaped and each
// byte of invalid UTF-8 replaced by U+FFFD, as encoding/json decodes it
// (replaced reports one).
func appendCanonicalText(dst, p []byte) (_ []byte, replaced bool) {
	if plainUTF8(p) {
		return append(dst, p...), false
	}
	start := 0
	for i := 0; i < len(p); {
		if p[i] < utf8.RuneSelf {
			i++
			continue
		}
		size, ok := runeLen(p, i)
		switch {
		case !ok:
			dst = append(append(dst, p[start:i]...), "\uFFFD"...)
			replaced = true
			i++
			start = i
			continue
		case size == 3 && p[i] == 0xE2 && p[i+1] == 0x80 && p[i+2]&^1 == 0xA8:
			dst = append(dst, p[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[p[i+2]&0xF])
			start = i + size
		}
		i += size
	}
	return append(dst, p[start:]...), replaced
}

// AppendDecoded appends the text encoding/json decodes from raw, the body
// of a JSON string: AppendUnescaped's, with each byte of invalid UTF-8
// outside escapes replaced by U+FFFD, as encoding/json replaces it. The
// result is valid UTF-8.
func AppendDecoded(dst, raw []byte) ([]byte, error) {
	n := len(dst)
	dst, err := AppendUnescaped(dst, raw)
	if err != nil {
		return dst, err
	}
	if v := dst[n:]; !ValidUTF8(v) {
		fixed := make([]byte, 0, len(v)+len(v)/2)
		for i := 0; i < len(v); {
			r, size := utf8.DecodeRune(v[i:])
			fixed = utf8.AppendRune(fixed, r)
			i += size
		}
		dst = append(dst[:n], fixed...)
	}
	return dst, nil
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

// AppendCompactStringBody appends, as AppendStringBodyNoHTML escapes it,
// the text AppendCompact makes of the valid JSON value v (a tool call's
// arguments), without holding that text: each stretch of v between the
// white space outside its strings is escaped as it is, which escapes the
// same runes, since the stretches end at ASCII white space.
func AppendCompactStringBody(dst, v []byte) []byte {
	start := 0
	for i := 0; i < len(v); {
		switch c := v[i]; c {
		case '"':
			i++
			for {
				i = IndexStringSpecial(v, i)
				if i >= len(v) || v[i] == '"' {
					break
				}
				if v[i] == '\\' {
					i += 2
				} else {
					i++
				}
			}
			i++
		case ' ', '\t', '\n', '\r':
			dst = AppendStringBodyNoHTML(dst, v[start:i])
			i++
			for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == '\n' || v[i] == '\r') {
				i++
			}
			start = i
		default:
			i++
		}
	}
	return AppendStringBodyNoHTML(dst, v[start:])
}
