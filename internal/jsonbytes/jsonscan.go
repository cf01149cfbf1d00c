package jsonbytes

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/buger/jsonparser"
)

// ScanObject calls fn for each member of the JSON object data, in order, the
// way jsonparser.ObjectEach does (same callback; string values come without
// their quotes and still escaped). It exists for the streaming hot path:
// most of an OpenAI or Gemini chunk is wrapper (ids, model names, nested
// objects) around a few bytes of text, and jsonparser walks every byte of
// every string one at a time, where this finds the end of a string with
// StringEnd's search. Like jsonparser it checks structure, not every detail
// of JSON's grammar, with one exception: a string holding a raw control
// character is malformed, as JSON has it (jsonparser lets one through), by
// the rule StringEnd applies.
func ScanObject(data []byte, fn func(key, value []byte, typ jsonparser.ValueType, offset int) error) error {
	i := SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return errScanNotObject
	}
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return scanError(data, i)
		}
		end := scanStringEnd(data, i+1)
		if end < 0 {
			return scanError(data, len(data))
		}
		key := data[i+1 : end]
		i = SkipSpace(data, end+1)
		if i >= len(data) || data[i] != ':' {
			return scanError(data, i)
		}
		i = SkipSpace(data, i+1)
		typ, vend := scanValue(data, i)
		if vend < 0 {
			if typ == jsonparser.Unknown {
				return scanError(data, i)
			}
			return scanError(data, len(data))
		}
		value := data[i:vend]
		if typ == jsonparser.String {
			value = data[i+1 : vend-1]
		}
		if err := fn(key, value, typ, vend); err != nil {
			return err
		}
		i = SkipSpace(data, vend)
		if i >= len(data) {
			return scanError(data, i)
		}
		switch data[i] {
		case ',':
			i = SkipSpace(data, i+1)
		case '}':
			return nil
		default:
			return scanError(data, i)
		}
	}
}

var errScanNotObject = errors.New("not a JSON object")

// scanError reports where the JSON went wrong (allocating only on failure).
func scanError(data []byte, at int) error {
	if at >= len(data) {
		return errors.New("malformed JSON: unexpected end")
	}
	return fmt.Errorf("malformed JSON at byte %d (%q)", at, data[at])
}

func SkipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t') {
		i++
	}
	return i
}

// scanStringEnd returns the index of the quote that closes the string whose
// content starts at from, or -1 for a string that does not end or is
// malformed: stringEnd's rule.
func scanStringEnd(data []byte, from int) int {
	end, _ := stringEnd(data, from)
	return end
}

// scanValue returns the type of the value at i and the index just past it
// (-1 if malformed).
func scanValue(data []byte, i int) (jsonparser.ValueType, int) {
	if i >= len(data) {
		return jsonparser.NotExist, -1
	}
	switch c := data[i]; {
	case c == '"':
		end := scanStringEnd(data, i+1)
		if end < 0 {
			return jsonparser.String, -1
		}
		return jsonparser.String, end + 1
	case c == '{' || c == '[':
		typ := jsonparser.Object
		if c == '[' {
			typ = jsonparser.Array
		}
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end := scanStringEnd(data, j+1)
				if end < 0 {
					return typ, -1
				}
				j = end
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return typ, j + 1
				}
			}
		}
		return typ, -1
	case c == 't':
		if bytes.HasPrefix(data[i:], []byte("true")) {
			return jsonparser.Boolean, i + 4
		}
	case c == 'f':
		if bytes.HasPrefix(data[i:], []byte("false")) {
			return jsonparser.Boolean, i + 5
		}
	case c == 'n':
		if bytes.HasPrefix(data[i:], []byte("null")) {
			return jsonparser.Null, i + 4
		}
	case c == '-' || (c >= '0' && c <= '9'):
		j := i + 1
		for j < len(data) && (data[j] >= '0' && data[j] <= '9' || data[j] == '.' || data[j] == 'e' || data[j] == 'E' || data[j] == '+' || data[j] == '-') {
			j++
		}
		return jsonparser.Number, j
	}
	return jsonparser.Unknown, -1
}

// ScanArray calls fn with each element of the JSON array data (valid JSON)
// and its type, as jsonparser.ArrayEach does (a string without its quotes),
// finding the end of each string with a vectorised search.
func ScanArray(data []byte, fn func(value []byte, typ jsonparser.ValueType)) error {
	i := SkipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return scanError(data, i)
	}
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return nil
	}
	for {
		typ, end := scanValue(data, i)
		if end < 0 {
			return scanError(data, i)
		}
		if typ == jsonparser.String {
			fn(data[i+1:end-1], typ)
		} else {
			fn(data[i:end], typ)
		}
		i = SkipSpace(data, end)
		if i >= len(data) {
			return scanError(data, i)
		}
		switch data[i] {
		case ',':
			i = SkipSpace(data, i+1)
		case ']':
			return nil
		default:
			return scanError(data, i)
		}
	}
}

// Member is a member ScanMembers found: its value as jsonparser.Get
// returns it (a string without its quotes, still escaped), its type
// (jsonparser.NotExist if absent) and the index just past it.
type Member struct {
	Value []byte
	Type  jsonparser.ValueType
	End   int
}

// ScanMembers sets found[k] to the first member of the JSON object data
// (valid JSON) named names[k], matching names as jsonparser.Get does
// (unescaped), in one walk. found must be as long as names.
func ScanMembers(data []byte, names []string, found []Member) error {
	clear(found)
	left := len(names)
	var buf [32]byte
	err := ScanObject(data, func(key, value []byte, typ jsonparser.ValueType, end int) error {
		if bytes.IndexByte(key, '\\') >= 0 {
			k, err := jsonparser.Unescape(key, buf[:])
			if err != nil {
				// jsonparser.Get finds nothing past a name it cannot unescape.
				return errMembersFound
			}
			key = k
		}
		for k, name := range names {
			if found[k].Type == jsonparser.NotExist && string(key) == name {
				found[k] = Member{Value: value, Type: typ, End: end}
				if left--; left == 0 {
					return errMembersFound
				}
			}
		}
		return nil
	})
	if err == errMembersFound {
		err = nil
	}
	return err
}

var errMembersFound = errors.New("found")

// ScanObjectAt walks the object at i of data as ScanObject does, but hands
// fn each name and the index of its value: fn returns the index past the
// value, having descended into it or stepped over it with SkipValue. A
// caller that looks inside some values this way reads every byte once,
// where ScanObject and a second walk of a value read its bytes twice. It
// returns the index past the object.
func ScanObjectAt(data []byte, i int, fn func(key []byte, at int) (end int, err error)) (int, error) {
	i = SkipSpace(data, i)
	if i >= len(data) || data[i] != '{' {
		return -1, errScanNotObject
	}
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return -1, scanError(data, i)
		}
		end := scanStringEnd(data, i+1)
		if end < 0 {
			return -1, scanError(data, len(data))
		}
		key := data[i+1 : end]
		i = SkipSpace(data, end+1)
		if i >= len(data) || data[i] != ':' {
			return -1, scanError(data, i)
		}
		vend, err := fn(key, SkipSpace(data, i+1))
		if err != nil {
			return -1, err
		}
		if i = SkipSpace(data, vend); i >= len(data) {
			return -1, scanError(data, i)
		}
		switch data[i] {
		case ',':
			i = SkipSpace(data, i+1)
		case '}':
			return i + 1, nil
		default:
			return -1, scanError(data, i)
		}
	}
}

// ScanArrayAt walks the array at i of data as ScanArray does, handing fn the
// index of each element; fn returns the index past it (see ScanObjectAt).
// It returns the index past the array.
func ScanArrayAt(data []byte, i int, fn func(at int) (end int, err error)) (int, error) {
	i = SkipSpace(data, i)
	if i >= len(data) || data[i] != '[' {
		return -1, scanError(data, i)
	}
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return i + 1, nil
	}
	for {
		end, err := fn(i)
		if err != nil {
			return -1, err
		}
		if i = SkipSpace(data, end); i >= len(data) {
			return -1, scanError(data, i)
		}
		switch data[i] {
		case ',':
			i = SkipSpace(data, i+1)
		case ']':
			return i + 1, nil
		default:
			return -1, scanError(data, i)
		}
	}
}

// SkipValue returns the type of the value at i and the value as ScanObject
// hands it (a string without its quotes), with the index past it; an
// error for a malformed one.
func SkipValue(data []byte, i int) (value []byte, typ jsonparser.ValueType, end int, err error) {
	typ, end = scanValue(data, i)
	if end < 0 {
		if typ == jsonparser.Unknown {
			return nil, typ, -1, scanError(data, i)
		}
		return nil, typ, -1, scanError(data, len(data))
	}
	if typ == jsonparser.String {
		return data[i+1 : end-1], typ, end, nil
	}
	return data[i:end], typ, end, nil
}
