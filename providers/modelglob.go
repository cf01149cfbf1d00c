package providers

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// Model-name globs have path.Match's syntax — '*' any run of characters,
// '?' one character, '[a-z]' and '[^a-z]' a class, '\' quotes the next
// character — except that '*' and '?' also match '/': a model name is not a
// path, and routed names (openrouter,anthropic/claude-sonnet-4) carry
// slashes.

// errBadGlob is returned for a malformed model-name glob.
var errBadGlob = errors.New("syntax error in pattern")

// MatchModel reports whether name matches the glob pattern and returns what
// each '*' of the pattern matched, in order. Each '*' takes the shortest run
// that lets the rest of the pattern match, left to right, so
// "*/*" splits "a/b/c" into "a" and "b/c". The cost is bounded by
// len(pattern)×len(name): a star never backtracks past the next one.
func MatchModel(pattern, name string) (stars []string, ok bool) {
	// starP is the pattern position after the last '*' seen, starN the
	// name position its run ends at in the current attempt. When the next
	// '*' is reached, the run of the one before is final.
	starP, starN := -1, 0
	var starts, ends []int
	p, n := 0, 0
	for n < len(name) || p < len(pattern) {
		if p < len(pattern) {
			if pattern[p] == '*' {
				if starP >= 0 {
					ends = append(ends, starN)
				}
				starts = append(starts, n)
				p++
				starP, starN = p, n
				continue
			}
			if n < len(name) {
				width, matched, err := matchOne(pattern[p:], name[n:])
				if err != nil {
					return nil, false
				}
				if matched >= 0 {
					p += width
					n += matched
					continue
				}
			}
		}
		// Mismatch: the last '*' takes one more byte (as path.Match's does).
		if starP < 0 || starN >= len(name) {
			return nil, false
		}
		starN++
		p, n = starP, starN
	}
	if starP < 0 {
		return nil, true
	}
	ends = append(ends, starN)
	stars = make([]string, len(starts))
	for i := range starts {
		stars[i] = name[starts[i]:ends[i]]
	}
	return stars, true
}

// splitStars splits a well-formed pattern at its '*' wildcards and returns
// how many elements (characters, '?', classes) each star-free segment has.
func splitStars(pattern string) []int {
	segs := []int{0}
	for p := 0; p < len(pattern); {
		if pattern[p] == '*' {
			segs = append(segs, 0)
			p++
			continue
		}
		width, _, err := matchOne(pattern[p:], "x")
		if err != nil {
			break
		}
		segs[len(segs)-1]++
		p += width
	}
	return segs
}

// matchOne matches the pattern's first element (a character, '?', a class
// or a quoted character; not '*') against name's first character. It
// returns the element's width in the pattern and the matched character's
// width in name, or -1 if it does not match.
func matchOne(pattern, name string) (width, matched int, err error) {
	r, size := utf8.DecodeRuneInString(name)
	switch pattern[0] {
	case '?':
		return 1, size, nil
	case '\\':
		if len(pattern) < 2 {
			return 0, -1, errBadGlob
		}
		if pattern[1] == name[0] {
			return 2, 1, nil
		}
		return 2, -1, nil
	case '[':
		return matchClass(pattern, r, size)
	}
	// A literal matches byte by byte, as path.Match's do: a multi-byte
	// character is matched one byte at a time, and a stray byte of invalid
	// UTF-8 matches the same byte wherever it stands.
	if pattern[0] == name[0] {
		return 1, 1, nil
	}
	return 1, -1, nil
}

// matchClass matches a [class] against r.
func matchClass(pattern string, r rune, size int) (width, matched int, err error) {
	i := 1
	negated := i < len(pattern) && pattern[i] == '^'
	if negated {
		i++
	}
	in := false
	for first := true; ; first = false {
		if i >= len(pattern) {
			return 0, -1, errBadGlob
		}
		if pattern[i] == ']' && !first {
			i++
			break
		}
		lo, w, err := classChar(pattern[i:])
		if err != nil {
			return 0, -1, err
		}
		i += w
		hi := lo
		if i < len(pattern) && pattern[i] == '-' {
			hi, w, err = classChar(pattern[i+1:])
			if err != nil {
				return 0, -1, err
			}
			i += 1 + w
		}
		if lo <= r && r <= hi {
			in = true
		}
	}
	if in != negated {
		return i, size, nil
	}
	return i, -1, nil
}

func classChar(s string) (rune, int, error) {
	if s == "" || s[0] == '-' || s[0] == ']' {
		return 0, 0, errBadGlob
	}
	if s[0] == '\\' {
		if len(s) < 2 {
			return 0, 0, errBadGlob
		}
		r, size := utf8.DecodeRuneInString(s[1:])
		return r, 1 + size, nil
	}
	r, size := utf8.DecodeRuneInString(s)
	return r, size, nil
}

// CheckModelGlob reports a malformed pattern.
func CheckModelGlob(pattern string) error {
	for p := 0; p < len(pattern); {
		if pattern[p] == '*' {
			p++
			continue
		}
		width, _, err := matchOne(pattern[p:], "x")
		if err != nil {
			return err
		}
		p += width
	}
	return nil
}

// Stars counts the '*' wildcards of a well-formed pattern.
func Stars(pattern string) int { return len(splitStars(pattern)) - 1 }

// Expand writes the target of a model rule: each '*' of target is replaced
// by what the pattern's '*' of the same rank matched.
func (r ModelRule) Expand(stars []string) string {
	if !strings.Contains(r.To, "*") {
		return r.To
	}
	var b strings.Builder
	k := 0
	for _, c := range []byte(r.To) {
		if c == '*' && k < len(stars) {
			b.WriteString(stars[k])
			k++
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
