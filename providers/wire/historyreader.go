package wire

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
)

// A converter that writes the upstream body from the client's bytes
// (every converting provider, and the thinkgate matcher's estimate) reads
// the history with the one HistoryReader: one block at a time into one
// HistoryBlock, a block's strings slices of the client's bytes, nothing
// decoded or copied and nothing kept of a block once it is written, so
// that what a request costs beyond its body does not grow with its number
// of blocks. It reads a body the request parse accepted (valid JSON whose
// values have the kinds Request's fields take) exactly as encoding/json
// decodes it into Request: member names matched without regard to case or
// escapes, a repeated member's last value, a null that leaves a string as
// it was and empties a content or a source, a source object merged into
// the one before it, and the top-level messages given twice merged element
// by element.

// errHistoryShape is what the reader meets in a body the request parse
// would not have accepted.
var errHistoryShape = errors.New("providers: request history is not what the request parse accepted")

// RawString is one of the client's strings as the body holds it.
type RawString struct {
	Raw       []byte // between the quotes
	Escaped   bool   // Raw holds escapes; else Raw is the text
	Canonical bool   // the escaper writes the text as Raw (jsonbytes.ScanString)
}

// Plain reports whether Raw is the string's text: no escapes, valid
// UTF-8.
func (s *RawString) Plain() bool {
	return !s.Escaped && (s.Canonical || jsonbytes.ValidUTF8(s.Raw))
}

// Text returns the string's text as encoding/json decodes it: Raw itself
// when Plain, else the text decoded into buf, invalid UTF-8 replaced by
// U+FFFD (nil for an escape JSON does not define).
func (s *RawString) Text(buf []byte) []byte {
	if s.Plain() {
		return s.Raw
	}
	t, err := jsonbytes.AppendDecoded(buf[:0], s.Raw)
	if err != nil {
		return nil
	}
	return t
}

// TextInto returns the string's text: Raw when Plain, else the text
// decoded into *buf (nil for an escape JSON does not define), which then
// keeps that buffer for the next call. *buf never becomes a slice of the
// body, so a later decode into it cannot write over the request.
func (s *RawString) TextInto(buf *[]byte) []byte {
	if s.Plain() {
		return s.Raw
	}
	t := s.Text((*buf)[:0])
	if t != nil {
		*buf = t
	}
	return t
}

// Is reports whether the string's text is lit.
func (s *RawString) Is(lit string) bool {
	if !s.Escaped {
		return string(s.Raw) == lit // invalid UTF-8 is no literal's text
	}
	return string(s.Text(nil)) == lit
}

// TextLen is the length of the string's text.
func (s *RawString) TextLen() int {
	if s.Plain() {
		return len(s.Raw)
	}
	return len(s.Text(nil))
}

// TextString is the string's text as a Go string.
func (s *RawString) TextString() string { return string(s.Text(nil)) }

// rawTextType is the type of the one text block a string content stands
// for.
var rawTextType = RawString{Raw: []byte("text"), Canonical: true}

// RawSource is a block's source. A plain string source (a search
// result's) is IsString, the string in URL.
type RawSource struct {
	Present, IsString          bool
	Type, MediaType, Data, URL RawString
}

// RawBlock is what the converters read of a content block.
type RawBlock struct {
	Type, Text, Thinking, Signature, Data, ID, Name, ToolUseID RawString
	Input                                                      []byte // the raw value, nil if absent
	IsError                                                    bool
	Source                                                     RawSource
	// ContentRaw is the block's own content value as sent (a
	// tool_result's), nil when absent or null; Raw the whole block as
	// sent.
	ContentRaw, Raw []byte
}

// The members of a block the reader reads, as bits; the string members
// first, in the order of rawStrings.
const (
	rbType = 1 << iota
	rbText
	rbThinking
	rbSignature
	rbData
	rbID
	rbName
	rbToolUseID
	rbSource
	rbInput
	rbContent
	rbIsError
)

// rawStrings are the string members of b, in the order of their bits.
func rawStrings(b *RawBlock) [8]*RawString {
	return [...]*RawString{&b.Type, &b.Text, &b.Thinking, &b.Signature, &b.Data, &b.ID, &b.Name, &b.ToolUseID}
}

// rawBlockFields are the members of a block the reader reads, by name.
var rawBlockFields = map[string]int{
	"type": rbType, "text": rbText, "thinking": rbThinking, "signature": rbSignature,
	"data": rbData, "source": rbSource, "id": rbID, "name": rbName, "input": rbInput,
	"tool_use_id": rbToolUseID, "content": rbContent, "is_error": rbIsError,
}

// rawBlockField is the bit of a block's member name (0 for a member the
// reader skips), the common names found without hashing; ok is false for
// a name encoding/json might match differently.
func rawBlockField(name []byte) (f int, ok bool) {
	switch string(name) {
	case "type":
		return rbType, true
	case "text":
		return rbText, true
	case "tool_use_id":
		return rbToolUseID, true
	case "content":
		return rbContent, true
	case "thinking":
		return rbThinking, true
	case "signature":
		return rbSignature, true
	case "id":
		return rbID, true
	case "name":
		return rbName, true
	case "input":
		return rbInput, true
	}
	if !jsonbytes.PlainName(name, rawBlockFields) {
		return 0, false
	}
	return rawBlockFields[string(name)], true
}

// readRawString reads the string at i into s.
func readRawString(data []byte, i int, s *RawString) (int, error) {
	if i >= len(data) || data[i] != '"' {
		return 0, errHistoryShape
	}
	end, escaped, canonical := jsonbytes.ScanString(data, i)
	if end < 0 {
		return 0, errHistoryShape
	}
	*s = RawString{Raw: data[i+1 : end-1], Escaped: escaped, Canonical: canonical}
	return end, nil
}

// HistoryReader reads the history of one request body.
type HistoryReader struct {
	name []byte // a member name with escapes, decoded
	// messages is the top-level messages array after the last null (the
	// request parse refuses two arrays with no null between).
	messages []byte
	system   []byte
}

// HistoryMessage is what a converter reads of a message: its role, and
// its content's value (nil: absent or null).
type HistoryMessage struct {
	Role    RawString
	Content []byte
}

// HistoryBlock is one content block as read.
type HistoryBlock struct {
	RawBlock
	// Null is a block given as null, which encoding/json decodes as a
	// block of no type.
	Null bool
}

// NewHistoryReader finds the top-level messages and system of body.
func NewHistoryReader(body []byte) (*HistoryReader, error) {
	h := &HistoryReader{}
	i := jsonbytes.SkipSpace(body, 0)
	_, err := jsonbytes.ScanObjectAt(body, i, func(key []byte, at int) (int, error) {
		_, _, end, err := jsonbytes.SkipValue(body, at)
		if err != nil {
			return -1, err
		}
		v := body[at:end:end]
		null := body[at] == 'n'
		switch {
		case h.nameIs(key, "messages"):
			switch {
			case null:
				h.messages = nil
			case h.messages != nil:
				return -1, errHistoryShape
			default:
				h.messages = v
			}
		case h.nameIs(key, "system"):
			h.system = v
			if null {
				h.system = nil
			}
		}
		return end, nil
	})
	if err != nil {
		return nil, errHistoryShape
	}
	return h, nil
}

// System is the system prompt's value, nil if none.
func (h *HistoryReader) System() []byte { return h.system }

// nameIs reports whether encoding/json matches the member name raw (a
// string's bytes between its quotes) to the field named field.
func (h *HistoryReader) nameIs(raw []byte, field string) bool {
	if len(raw) == len(field) && string(raw) == field {
		return true
	}
	if bytes.IndexByte(raw, '\\') >= 0 {
		name, err := jsonbytes.AppendDecoded(h.name[:0], raw)
		if err != nil {
			return false
		}
		h.name, raw = name, name
	} else if !jsonbytes.ValidUTF8(raw) {
		name, _ := jsonbytes.AppendDecoded(h.name[:0], raw)
		h.name, raw = name, name
	}
	return bytes.EqualFold(raw, []byte(field))
}

// EachMessage calls fn with each message, in order.
func (h *HistoryReader) EachMessage(fn func(i int, m *HistoryMessage) error) error {
	if h.messages == nil {
		return nil
	}
	var m HistoryMessage
	data := h.messages
	n := 0
	_, err := jsonbytes.ScanArrayAt(data, 0, func(at int) (int, error) {
		m = HistoryMessage{}
		end, err := h.readMessage(data, at, &m)
		if err != nil {
			return -1, err
		}
		if err := fn(n, &m); err != nil {
			return -1, err
		}
		n++
		return end, nil
	})
	return err
}

// readMessage reads the message object at at in data into m, as
// encoding/json decodes one into the Message m holds.
func (h *HistoryReader) readMessage(data []byte, at int, m *HistoryMessage) (int, error) {
	if data[at] == 'n' {
		return at + len("null"), nil
	}
	return jsonbytes.ScanObjectAt(data, at, func(key []byte, at int) (int, error) {
		role := h.nameIs(key, "role")
		if role && data[at] == 'n' {
			return at + len("null"), nil
		}
		if role {
			return readRawString(data, at, &m.Role)
		}
		_, _, end, err := jsonbytes.SkipValue(data, at)
		if err == nil && h.nameIs(key, "content") {
			m.Content = data[at:end:end]
			if data[at] == 'n' {
				m.Content = nil
			}
		}
		return end, err
	})
}

// EachBlock calls fn with each block of the content value content (a
// string is one text block, an array its blocks, nil none), read into b:
// b is reused for the next block, so fn keeps nothing of it but the
// slices of the body it holds. A block's own content is in b.ContentRaw,
// for a nested EachBlock with another HistoryBlock.
func (h *HistoryReader) EachBlock(content []byte, b *HistoryBlock, fn func(j int, b *HistoryBlock) error) error {
	if len(content) == 0 {
		return nil
	}
	switch content[0] {
	case '"':
		*b = HistoryBlock{}
		b.Type = rawTextType
		end, err := readRawString(content, 0, &b.Text)
		if err != nil {
			return errHistoryShape
		}
		b.Raw = content[:end:end]
		return fn(0, b)
	case '[':
	case 'n':
		return nil
	default:
		return errHistoryShape
	}
	j := 0
	_, err := jsonbytes.ScanArrayAt(content, 0, func(at int) (int, error) {
		end, err := h.readBlock(content, at, b)
		if err != nil {
			return -1, err
		}
		if err := fn(j, b); err != nil {
			return -1, err
		}
		j++
		return end, nil
	})
	return err
}

// readBlock reads the block at at in data into b as encoding/json decodes
// it into a zero Block.
func (h *HistoryReader) readBlock(data []byte, at int, b *HistoryBlock) (int, error) {
	*b = HistoryBlock{}
	if data[at] == 'n' {
		b.Null = true
		b.Raw = data[at : at+len("null") : at+len("null")]
		return at + len("null"), nil
	}
	end, err := jsonbytes.ScanObjectAt(data, at, func(key []byte, at int) (int, error) {
		f := h.blockField(key)
		if f == 0 {
			_, _, end, err := jsonbytes.SkipValue(data, at)
			return end, err
		}
		null := data[at] == 'n'
		switch f {
		case rbInput, rbContent:
			_, _, end, err := jsonbytes.SkipValue(data, at)
			if err != nil {
				return -1, err
			}
			if f == rbInput {
				b.Input = data[at:end:end]
			} else if b.ContentRaw = data[at:end:end]; null {
				b.ContentRaw = nil
			}
			return end, nil
		case rbSource:
			if null {
				b.Source = RawSource{}
				return at + len("null"), nil
			}
			return h.readSource(data, at, &b.Source)
		}
		if null {
			return at + len("null"), nil
		}
		if f == rbIsError {
			switch {
			case jsonbytes.HasAt(data, at, "true"):
				b.IsError = true
				return at + len("true"), nil
			case jsonbytes.HasAt(data, at, "false"):
				b.IsError = false
				return at + len("false"), nil
			}
			return -1, errHistoryShape
		}
		strs := rawStrings(&b.RawBlock)
		for k, s := range strs {
			if f == 1<<k {
				return readRawString(data, at, s)
			}
		}
		return -1, errHistoryShape
	})
	if err != nil {
		return -1, errHistoryShape
	}
	b.Raw = data[at:end:end]
	return end, nil
}

// blockField is the bit of the Block field encoding/json matches the
// member name raw to (0: none).
func (h *HistoryReader) blockField(raw []byte) int {
	if f, ok := rawBlockField(raw); ok {
		return f
	}
	for name, f := range rawBlockFields {
		if h.nameIs(raw, name) {
			return f
		}
	}
	return 0
}

// readSource reads the source at at in data into s as encoding/json
// decodes it into the Source s holds: a string makes a new source, an
// object's members are merged into it.
func (h *HistoryReader) readSource(data []byte, at int, s *RawSource) (int, error) {
	if data[at] == '"' {
		*s = RawSource{Present: true, IsString: true}
		return readRawString(data, at, &s.URL)
	}
	if !s.Present {
		*s = RawSource{Present: true}
	}
	return jsonbytes.ScanObjectAt(data, at, func(key []byte, at int) (int, error) {
		var field *RawString
		switch {
		case h.nameIs(key, "type"):
			field = &s.Type
		case h.nameIs(key, "media_type"):
			field = &s.MediaType
		case h.nameIs(key, "data"):
			field = &s.Data
		case h.nameIs(key, "url"):
			field = &s.URL
		default:
			_, _, end, err := jsonbytes.SkipValue(data, at)
			return end, err
		}
		if data[at] == 'n' {
			return at + len("null"), nil
		}
		if field == &s.Type {
			s.IsString = false
		}
		return readRawString(data, at, field)
	})
}

// skipRaw steps over the value at i.
func skipRaw(data []byte, i int) (int, error) {
	end := jsonbytes.ValidValue(data, i, 0)
	if end < 0 {
		return 0, errHistoryShape
	}
	return end, nil
}

// memberValue is the raw value of the last top-level member of the
// request body (valid JSON) that encoding/json decodes into the Request
// field name (messages, system or tools); nil when there is none.
func memberValue(body []byte, name string) []byte {
	var v []byte
	_, _ = jsonbytes.ScanObjectAt(body, jsonbytes.SkipSpace(body, 0), func(key []byte, at int) (int, error) {
		end, err := skipRaw(body, at)
		if err != nil {
			return 0, err
		}
		if string(key) == name || requestFieldOf(key) == name {
			v = body[at:end:end]
		}
		return end, nil
	})
	return v
}

// requestFieldOf is the JSON name of the Request field, of messages,
// system and tools, that a top-level member named key (raw) sets when
// encoding/json decodes it ("" for neither).
func requestFieldOf(key []byte) string {
	var probe struct {
		Messages *struct{} `json:"messages"`
		System   *struct{} `json:"system"`
		Tools    *struct{} `json:"tools"`
	}
	doc := make([]byte, 0, len(key)+8)
	doc = append(doc, '{', '"')
	doc = append(append(doc, key...), `":{}}`...)
	if json.Unmarshal(doc, &probe) != nil {
		return ""
	}
	switch {
	case probe.Messages != nil:
		return "messages"
	case probe.System != nil:
		return "system"
	case probe.Tools != nil:
		return "tools"
	}
	return ""
}
