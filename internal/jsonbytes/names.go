package jsonbytes

import (
	"strings"
	"unicode/utf8"
)

// PlainName reports whether encoding/json, decoding into a struct whose
// field names are fields' keys, matches the member name either exactly or
// not at all: the name is ASCII, without escapes, and not a key written in
// another case (encoding/json folds case). A byte-level reader that sees
// any other name leaves the value to encoding/json, which decides it.
func PlainName[V any](name []byte, fields map[string]V) bool {
	upper := false
	for _, c := range name {
		if c == '\\' || c >= utf8.RuneSelf {
			return false
		}
		upper = upper || 'A' <= c && c <= 'Z'
	}
	if _, ok := fields[string(name)]; ok || !upper {
		return true
	}
	// Lowered on the stack: a name in another case on every block of a
	// long history costs no allocation each.
	var buf [32]byte
	if len(name) > len(buf) {
		_, folds := fields[strings.ToLower(string(name))]
		return !folds
	}
	lower := buf[:len(name)]
	for i, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	_, folds := fields[string(lower)]
	return !folds
}
