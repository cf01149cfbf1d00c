package providers

import (
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
func appendJSONStringBodyReport[S ~string | ~[]byte](dst []byte, s S) (_ []byte, replaced bool) {
	start := 0
	for i := 0; i < len(s); {
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
		// A rune is at most 4 bytes: the conversion stays on the stack.
		r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		if r == utf8.RuneError && size == 1 {
			replaced = true
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 break JavaScript parsers that treat JSON as code.
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...), replaced
}

// AppendJSONInt appends n as a JSON number.
func AppendJSONInt(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }
