package thinkparse

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// tagAttrs holds raw (still entity-encoded) values of the attributes we use.
type tagAttrs struct {
	thought, ttype, conf []byte
	hasType, hasConf     bool
}

// parseAttrs extracts attributes from a complete opening or self-closing tag
// that the scanner has accepted. When an attribute occurs more than once the
// last occurrence wins.
func parseAttrs(tag []byte) (a tagAttrs) {
	i := 1 // skip '<'
	for i < len(tag) && isName(tag[i]) {
		i++
	}
	for i < len(tag) {
		for i < len(tag) && isSpace(tag[i]) {
			i++
		}
		if i >= len(tag) || !isName(tag[i]) {
			return // '>' or "/>"
		}
		ns := i
		for i < len(tag) && isName(tag[i]) {
			i++
		}
		name := tag[ns:i]
		for i < len(tag) && (isSpace(tag[i]) || tag[i] == '=') {
			i++
		}
		if i >= len(tag) {
			return
		}
		q := tag[i]
		i++
		j := bytes.IndexByte(tag[i:], q)
		if j < 0 {
			return
		}
		v := tag[i : i+j]
		i += j + 1
		switch string(name) {
		case "thought":
			a.thought = v
		case "thought_type":
			a.ttype, a.hasType = v, true
		case "confidence":
			a.conf, a.hasConf = v, true
		}
	}
	return
}

// parseConfidence parses a decimal number (optional sign, digits, '.',
// exponent) with strconv.ParseFloat after trimming ASCII whitespace.
// Anything else, including Inf, NaN, hex floats and out-of-range values,
// gives 0.5.
func parseConfidence(v []byte) float64 {
	for len(v) > 0 && isSpace(v[0]) {
		v = v[1:]
	}
	for len(v) > 0 && isSpace(v[len(v)-1]) {
		v = v[:len(v)-1]
	}
	// Pre-check the syntax so that garbage never reaches ParseFloat (whose
	// error path allocates); short values convert without allocating.
	if len(v) == 0 || len(v) > 32 {
		return 0.5
	}
	digits := false
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c == '.' || c == '+' || c == '-' || c == 'e' || c == 'E':
		default:
			return 0.5
		}
	}
	if !digits {
		return 0.5
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return 0.5
	}
	return f
}

// appendDecoded appends src to dst with the entities &quot; &amp; &lt; &gt;
// &apos; &#NN; and &#xNN; decoded. Anything else after '&' is kept literally.
func appendDecoded(dst, src []byte) []byte {
	for {
		i := bytes.IndexByte(src, '&')
		if i < 0 {
			return append(dst, src...)
		}
		dst = append(dst, src[:i]...)
		src = src[i:]
		w := src
		if len(w) > 12 {
			w = w[:12]
		}
		if semi := bytes.IndexByte(w, ';'); semi > 1 {
			if r, ok := entity(src[1:semi]); ok {
				dst = utf8.AppendRune(dst, r)
				src = src[semi+1:]
				continue
			}
		}
		dst = append(dst, '&')
		src = src[1:]
	}
}

// entity decodes the name between '&' and ';'.
func entity(e []byte) (rune, bool) {
	switch string(e) {
	case "quot":
		return '"', true
	case "amp":
		return '&', true
	case "lt":
		return '<', true
	case "gt":
		return '>', true
	case "apos":
		return '\'', true
	}
	if len(e) < 2 || e[0] != '#' {
		return 0, false
	}
	e = e[1:]
	base := rune(10)
	if e[0] == 'x' || e[0] == 'X' {
		base = 16
		e = e[1:]
	}
	if len(e) == 0 {
		return 0, false
	}
	var r rune
	for _, c := range e {
		var d rune
		switch {
		case c >= '0' && c <= '9':
			d = rune(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = rune(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = rune(c-'A') + 10
		default:
			return 0, false
		}
		r = r*base + d
		if r > utf8.MaxRune {
			return 0, false
		}
	}
	if r == 0 || (r >= 0xD800 && r <= 0xDFFF) {
		return 0, false
	}
	return r, true
}
