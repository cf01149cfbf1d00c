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
	_, folds := fields[strings.ToLower(string(name))]
	return !folds
}
