package jsonbytes

import (
	"bytes"
	"errors"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrBadEscape reports a JSON string body with an escape JSON does not define.
var ErrBadEscape = errors.New("malformed JSON string escape")

// AppendUnescaped appends the value of a raw JSON string body (the bytes
// between its quotes) to dst. Escapes decode as encoding/json decodes them,
// a lone or mismatched UTF-16 surrogate included: it becomes U+FFFD rather
// than failing the string, since upstreams that cut text between the two
// halves of a pair are real. Bytes outside escapes are copied as they are
// (the emitter replaces invalid UTF-8 when it writes them). An escape JSON
// does not define is ErrBadEscape, with dst returned unchanged.
func AppendUnescaped(dst, raw []byte) ([]byte, error) {
	i := bytes.IndexByte(raw, '\\')
	if i < 0 {
		return append(dst, raw...), nil
	}
	n := len(dst)
	dst = slices.Grow(dst, len(raw)) // a value is never longer than its escaped form
	for {
		dst = append(dst, raw[:i]...)
		raw = raw[i:]
		if len(raw) < 2 {
			return dst[:n], ErrBadEscape
		}
		switch c := raw[1]; c {
		case '"', '\\', '/':
			dst = append(dst, c)
			raw = raw[2:]
		case 'b':
			dst, raw = append(dst, '\b'), raw[2:]
		case 'f':
			dst, raw = append(dst, '\f'), raw[2:]
		case 'n':
			dst, raw = append(dst, '\n'), raw[2:]
		case 'r':
			dst, raw = append(dst, '\r'), raw[2:]
		case 't':
			dst, raw = append(dst, '\t'), raw[2:]
		case 'u':
			r := Hex4(raw)
			if r < 0 {
				return dst[:n], ErrBadEscape
			}
			raw = raw[6:]
			if utf16.IsSurrogate(r) {
				// A pair only if a low half follows at once; otherwise
				// this half alone is U+FFFD and what follows decodes on
				// its own.
				if d := utf16.DecodeRune(r, Hex4(raw)); d != utf8.RuneError {
					r, raw = d, raw[6:]
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return dst[:n], ErrBadEscape
		}
		if i = bytes.IndexByte(raw, '\\'); i < 0 {
			return append(dst, raw...), nil
		}
	}
}

// Unescape returns the value of a raw JSON string body as AppendUnescaped
// decodes it: raw itself when it holds no escape, else buf's array reused.
func Unescape(raw, buf []byte) ([]byte, error) {
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw, nil
	}
	return AppendUnescaped(buf[:0], raw)
}

// Hex4 returns the code unit of a \uhhhh escape at the start of p, or -1.
func Hex4(p []byte) rune {
	if len(p) < 6 || p[0] != '\\' || p[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range p[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}
