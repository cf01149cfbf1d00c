package jsonbytes

import "unicode/utf8"

// Code and logs put an escape every few bytes: AppendCanonical, which
// copies run by run, then spends more per escape than per byte. Most such
// strings are already what the escaper writes, so AppendVerbatim checks
// that first, stepping through the short runs, and copies the string
// whole.

// AppendVerbatim is AppendCanonical (the same results for any data and
// i), faster on a string whose escapes come close together: it steps
// through the short runs between escapes, and appends the string's bytes
// as they are, a stretch at a time, up to an escape the escaper writes
// otherwise (rewritten as AppendCanonical rewrites it) or the end. Each
// stretch is checked for valid UTF-8 without U+2028 and U+2029 as a whole;
// a string with any other is handed to AppendCanonical.
func AppendVerbatim(dst, data []byte, i int) (_ []byte, end int, escaped, ok bool) {
	if i >= len(data) || data[i] != '"' {
		return dst, 0, false, false
	}
	n0 := len(dst)
	start := i + 1 // of the stretch not yet appended
	j := start
	for {
		if j = ShortRun(data, j); j >= len(data) {
			return dst, 0, escaped, false
		}
		if data[j] == '"' {
			break
		}
		if data[j] != '\\' || j+1 >= len(data) {
			return dst, 0, escaped, false // a control byte: not JSON
		}
		escaped = true
		switch e := data[j+1]; e {
		case '"', '\\', 'n', 'r', 't', 'b', 'f':
			j += 2
			continue
		case 'u':
			if verbatimU(data[j:]) {
				j += 6
				continue
			}
			r, n := hexRune(data[j:])
			if n == 0 {
				return dst, 0, escaped, false // encoding/json would change it
			}
			if !asciiOrPlain(data[start:j]) {
				return AppendCanonical(dst[:n0], data, i)
			}
			dst = append(dst, data[start:j]...)
			switch {
			case r < 0x20 || r == '"' || r == '\\':
				dst = appendEscapedASCII(dst, byte(r))
			case r == '\u2028' || r == '\u2029':
				dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			default:
				dst = utf8.AppendRune(dst, r)
			}
			j += n
		case '/':
			if !asciiOrPlain(data[start:j]) {
				return AppendCanonical(dst[:n0], data, i)
			}
			dst = append(append(dst, data[start:j]...), '/')
			j += 2
		default:
			return dst, 0, escaped, false // not JSON
		}
		start = j
	}
	if !asciiOrPlain(data[start:j]) {
		return AppendCanonical(dst[:n0], data, i)
	}
	return append(dst, data[start:j]...), j + 1, escaped, true
}

// verbatimU reports whether the \u escape p starts with is one the escaper
// writes: lower-case hex of a control character it has no short escape
// for, or of U+2028 or U+2029.
func verbatimU(p []byte) bool {
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

// asciiOrPlain is plainUTF8 for any p: ASCII needs no check.
func asciiOrPlain(p []byte) bool {
	for len(p) >= 8 {
		if (uint64(p[0])|uint64(p[1])|uint64(p[2])|uint64(p[3])|uint64(p[4])|uint64(p[5])|uint64(p[6])|uint64(p[7]))&0x80 != 0 {
			return plainUTF8(p)
		}
		p = p[8:]
	}
	for _, c := range p {
		if c >= 0x80 {
			return plainUTF8(p)
		}
	}
	return true
}
