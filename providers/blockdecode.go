package providers

import (
	"bytes"
	"errors"
	"unicode/utf8"

	"github.com/buger/jsonparser"
)

// encoding/json validates its whole input on every Unmarshal call, and a
// type with its own UnmarshalJSON gets its bytes only after the decoder has
// scanned past them once more. Decoding a content array by nesting
// Unmarshal calls (Content, then each Block, then a tool_result's Content)
// therefore walked every byte of the history five or six times. The request
// has been validated as a whole before any of these run, so the decoders
// below read a content array and its blocks in one walk, producing exactly
// what encoding/json produces. Whatever they do not handle the same way for
// certain (a key that differs from a field name only in case, a repeated
// field, a null, a \u escape) falls back to encoding/json.

// typedDecode turns the walk off: the differential fuzz target compares
// both ways.
var typedDecode = false

// decodeBlocks decodes the valid JSON array b into blocks; ok is false when
// the caller must decode it with encoding/json instead.
func decodeBlocks(b []byte) (_ []Block, ok bool) {
	blocks := make([]Block, 0, 4)
	i := skipSpace(b, 1)
	if i < len(b) && b[i] == ']' {
		return blocks, true
	}
	for i < len(b) {
		typ, end := scanValue(b, i)
		if end < 0 || typ != jsonparser.Object {
			return nil, false
		}
		blocks = append(blocks, Block{})
		if !blocks[len(blocks)-1].decode(b[i:end]) {
			return nil, false
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return nil, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return blocks, true
		default:
			return nil, false
		}
	}
	return nil, false
}

// Bits of Block's fields, to find a repeated one.
const (
	fType = 1 << iota
	fText
	fThinking
	fSignature
	fData
	fSource
	fID
	fName
	fInput
	fToolUseID
	fContent
	fIsError
)

// blockFields are Block's JSON names.
var blockFields = map[string]int{
	"type": fType, "text": fText, "thinking": fThinking, "signature": fSignature,
	"data": fData, "source": fSource, "id": fID, "name": fName, "input": fInput,
	"tool_use_id": fToolUseID, "content": fContent, "is_error": fIsError,
}

// decode fills b (a zero Block) from the valid JSON object data; false
// means encoding/json must decode it.
func (b *Block) decode(data []byte) bool {
	seen := 0
	ok := true
	err := ScanObject(data, func(key, value []byte, typ jsonparser.ValueType, end int) error {
		f, known := blockFields[string(key)]
		if !known {
			// encoding/json matches names case-insensitively (with Unicode
			// folding) and unescaped: a name that might match a field is
			// its to decode.
			if !asciiOnly(key) || bytes.IndexByte(key, '\\') >= 0 || blockFields[string(bytes.ToLower(key))] != 0 {
				ok = false
				return errStopDecode
			}
			return nil
		}
		if seen&f != 0 || typ == jsonparser.Null {
			ok = false
			return errStopDecode
		}
		seen |= f
		whole := value // with a string's quotes
		if typ == jsonparser.String {
			whole = data[end-len(value)-2 : end]
		}
		switch f {
		case fInput:
			b.Input = whole
			return nil
		case fIsError:
			if typ != jsonparser.Boolean {
				ok = false
				return errStopDecode
			}
			b.IsError = value[0] == 't'
			return nil
		case fSource:
			b.Source = new(Source)
			if b.Source.UnmarshalJSON(whole) != nil {
				ok = false
				return errStopDecode
			}
			return nil
		case fContent:
			b.Content = new(Content)
			if b.Content.UnmarshalJSON(whole) != nil {
				ok = false
				return errStopDecode
			}
			return nil
		}
		if typ != jsonparser.String {
			ok = false
			return errStopDecode
		}
		s, good := decodeString(value)
		if !good {
			ok = false
			return errStopDecode
		}
		switch f {
		case fType:
			b.Type = s
		case fText:
			b.Text = s
		case fThinking:
			b.Thinking = s
		case fSignature:
			b.Signature = s
		case fData:
			b.Data = s
		case fID:
			b.ID = s
		case fName:
			b.Name = s
		case fToolUseID:
			b.ToolUseID = s
		}
		return nil
	})
	b.Raw = data
	return ok && err == nil
}

// errStopDecode ends a walk that must fall back to encoding/json.
var errStopDecode = errors.New("decode with encoding/json")

// decodeString returns the text of a JSON string's contents raw (without
// its quotes), as encoding/json decodes it; false for what only
// encoding/json should decode (a \u escape, invalid UTF-8).
func decodeString(raw []byte) (string, bool) {
	if !utf8.Valid(raw) {
		return "", false
	}
	k := bytes.IndexByte(raw, '\\')
	if k < 0 {
		return string(raw), true
	}
	out := make([]byte, 0, len(raw))
	out = append(out, raw[:k]...)
	for i := k; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(raw) {
			return "", false
		}
		switch raw[i] {
		case '"', '\\', '/':
			out = append(out, raw[i])
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		default:
			return "", false
		}
	}
	return string(out), true
}

func asciiOnly(s []byte) bool {
	for _, c := range s {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
