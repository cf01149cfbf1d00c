package jsonbytes

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// A converter that moves a client's text into another JSON body would
// decode each string and escape it again; most strings come out exactly as
// they went in. CanonicalString tells, in one pass over the escapes and
// one over the UTF-8, when the client's bytes are already what the escaper
// would write, so that they can be copied instead.

// CanonicalString reports whether raw, the body of a JSON string (the
// bytes between its quotes, valid JSON), is exactly what AppendStringBodyNoHTML
// writes for the value encoding/json decodes from it: valid UTF-8 without
// U+2028 or U+2029, and only the escapes the escaper writes (\" \\ \n \r
// \t \b \f, and \u00xx in lower-case hex for the other control
// characters). \/, \u escapes of printable characters and upper-case hex
// are not.
func CanonicalString(raw []byte) bool {
	for i := IndexStringSpecial(raw, 0); i < len(raw); i = IndexStringSpecial(raw, i) {
		if raw[i] != '\\' || i+1 >= len(raw) {
			return false // a quote or control byte: not a string body
		}
		switch raw[i+1] {
		case '"', '\\', 'n', 'r', 't', 'b', 'f':
			i += 2
			continue
		case 'u':
			if !canonicalU(raw[i:]) {
				return false
			}
			i += 6
			continue
		}
		return false
	}
	return plainUTF8(raw) // escapes are ASCII: the whole body is checked at once
}

// canonicalU reports whether the \u escape p starts with is one the
// escaper writes: a control character it has no short escape for, in
// lower-case hex, or U+2028 or U+2029.
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
	c := p[5]
	var v byte
	switch {
	case '0' <= c && c <= '9':
		v = c - '0'
	case 'a' <= c && c <= 'f':
		v = c - 'a' + 10
	default:
		return false
	}
	v |= (p[4] - '0') << 4
	switch v {
	case '\b', '\t', '\n', '\f', '\r':
		return false // written short
	}
	return true
}

// AppendDecoded appends the value encoding/json decodes from raw, the body
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

// AppendReescaped appends, without quotes, what AppendStringBodyNoHTML writes
// for the value encoding/json decodes from raw, the body of a JSON string:
// raw itself when CanonicalString says so, else the value decoded into
// scratch (returned for reuse) and escaped again.
func AppendReescaped(dst, raw, scratch []byte) (_, _ []byte, err error) {
	if CanonicalString(raw) {
		return append(dst, raw...), scratch, nil
	}
	scratch, err = AppendDecoded(scratch[:0], raw)
	if err != nil {
		return dst, scratch, err
	}
	dst = AppendStringBodyNoHTML(dst, scratch)
	return dst, scratch, nil
}

// ScanString steps over the JSON string whose opening quote is at data[i]
// and returns the index past its closing quote, and CanonicalString of its
// body: one walk finds the end and checks the escapes, where a converter
// would otherwise walk a string once to find its end and once more to
// check it. end is -1 for a string that is not valid JSON.
func ScanString(data []byte, i int) (end int, canonical bool) {
	if i >= len(data) || data[i] != '"' {
		return -1, false
	}
	canonical = true
	for j := i + 1; ; {
		k := nextStringSpecial(data, j)
		if k >= len(data) {
			return -1, false
		}
		switch data[k] {
		case '"':
			return k + 1, canonical && plainUTF8(data[i+1:k])
		case '\\':
			if k+1 >= len(data) {
				return -1, false
			}
			switch data[k+1] {
			case '"', '\\', 'n', 'r', 't', 'b', 'f':
				j = k + 2
				continue
			case '/':
				canonical = false
				j = k + 2
				continue
			case 'u':
				if Hex4(data[k:]) < 0 {
					return -1, false
				}
				canonical = canonical && canonicalU(data[k:])
				j = k + 6
				continue
			}
		}
		return -1, false // a bad escape or a control character
	}
}

// nextStringSpecial is IndexStringSpecial for text whose escapes may come
// close together (source code: a \n, \t or \" every few words): the first
// sixteen bytes are tested a word at a time, which finds a near escape
// sooner than setting up the vector search or stepping byte by byte.
func nextStringSpecial(p []byte, i int) int {
	for n := 0; n < 2 && i+8 <= len(p); n++ {
		w := binary.LittleEndian.Uint64(p[i:])
		q, bs := w^'"'*lsbs, w^'\\'*lsbs
		if m := ((w-0x20*lsbs)&^w | (q-lsbs)&^q | (bs-lsbs)&^bs) & msbs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	return IndexStringSpecial(p, i)
}
