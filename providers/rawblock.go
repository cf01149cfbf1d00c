package providers

import (
	"encoding/json"
	"errors"
	"math/bits"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
)

// The converters that write an upstream body straight from the client's
// bytes (openai, gemini, amazonq) read the same few members of a message
// and of a content block, in whatever order the client wrote them. They
// read them with one reader: a block becomes a RawBlock of slices of the
// client's bytes, nothing decoded or copied, and what each converter writes
// of it stays the converter's. The reader follows the request walk's rules
// (jsonbytes.PlainName, no repeated member, no null, the expected kind of
// value) and stops with ErrLeftToTyped at anything else, so that a
// converter leaves such a request to its typed path, which decodes it as
// encoding/json does and words the error.

// ErrLeftToTyped stops a read: the request holds what the byte-level
// readers do not read as encoding/json would, and is left to the typed
// converter.
var ErrLeftToTyped = errors.New("providers: left to the typed converter")

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

// RawTextType is the type of the one text block a string Content stands
// for.
var RawTextType = RawString{Raw: []byte("text"), Canonical: true}

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
	// ContentRaw is the block's content value as sent, nil when absent;
	// Raw the whole block as sent (EachBlock).
	ContentRaw, Raw []byte
	// The block's own content is a RawContent's Subs[subLo:subHi].
	subLo, subHi int
}

// RawContent is a Content as read: its blocks, and the blocks of their own
// content (a tool_result's) one after another in Subs. The content of a
// nested block is checked, not kept.
type RawContent struct {
	Blocks, Subs []RawBlock
}

// Reset empties c, keeping its room.
func (c *RawContent) Reset() { c.Blocks, c.Subs = c.Blocks[:0], c.Subs[:0] }

// Read reads the Content at at into c, emptied first: a string is one
// text block, an array its blocks.
func (c *RawContent) Read(data []byte, at int) (int, error) {
	c.Reset()
	return readRawContent(data, at, func() *RawBlock {
		c.Blocks = append(c.Blocks, RawBlock{})
		return &c.Blocks[len(c.Blocks)-1]
	}, func(b *RawBlock, at int) (int, error) {
		// b stays where it is: Blocks grows only after b is read.
		b.subLo = len(c.Subs)
		end, err := readRawContent(data, at, func() *RawBlock {
			c.Subs = append(c.Subs, RawBlock{})
			return &c.Subs[len(c.Subs)-1]
		}, nil)
		b.subHi = len(c.Subs)
		return end, err
	})
}

// Content returns the blocks of the content of b, one of c.Blocks.
func (c *RawContent) Content(b *RawBlock) []RawBlock { return c.Subs[b.subLo:b.subHi] }

// The members of a block the readers read, as bits for the repeated-member
// rule; the string members first, in the order of rawStrings.
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

// Member names the readers read exactly (jsonbytes.PlainName).
var (
	rawMessageFields = map[string]int{"role": 1, "content": 2}
	rawSourceFields  = map[string]int{"type": 1, "media_type": 2, "data": 3, "url": 4}
	rawBlockFields   = map[string]int{
		"type": rbType, "text": rbText, "thinking": rbThinking, "signature": rbSignature,
		"data": rbData, "source": rbSource, "id": rbID, "name": rbName, "input": rbInput,
		"tool_use_id": rbToolUseID, "content": rbContent, "is_error": rbIsError,
	}
)

// rawBlockField is the bit of a block's member name (0 for a member the
// readers skip), the common names found without hashing; ok is false for a
// name encoding/json might match differently.
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
		return 0, ErrLeftToTyped
	}
	end, escaped, canonical := jsonbytes.ScanString(data, i)
	if end < 0 {
		return 0, ErrLeftToTyped
	}
	*s = RawString{Raw: data[i+1 : end-1], Escaped: escaped, Canonical: canonical}
	return end, nil
}

// skipRaw steps over the value at i.
func skipRaw(data []byte, i int) (int, error) {
	end := jsonbytes.ValidValue(data, i, 0)
	if end < 0 {
		return 0, ErrLeftToTyped
	}
	return end, nil
}

// ReadRawMessage reads the message object at at into m; the message's
// content, when it has one, is read by content, called with its index,
// which returns the index past it.
func ReadRawMessage(data []byte, at int, m *RawMessage, content func(at int) (int, error)) (int, error) {
	if at >= len(data) || data[at] != '{' {
		return 0, ErrLeftToTyped
	}
	*m = RawMessage{}
	return jsonbytes.ScanObjectAt(data, at, func(name []byte, at int) (int, error) {
		if !jsonbytes.PlainName(name, rawMessageFields) {
			return 0, ErrLeftToTyped
		}
		switch rawMessageFields[string(name)] {
		case 1:
			if m.HasRole {
				return 0, ErrLeftToTyped
			}
			m.HasRole = true
			return readRawString(data, at, &m.Role)
		case 2:
			if m.HasContent || data[at] == 'n' {
				return 0, ErrLeftToTyped
			}
			m.HasContent = true
			return content(at)
		}
		return skipRaw(data, at)
	})
}

// RawMessage is what the converters read of a message besides its
// content.
type RawMessage struct {
	Role                RawString
	HasRole, HasContent bool
}

// readRawContent reads the Content at at: a string is one text block, an
// array its blocks. Each block is read into the zero block add returns;
// a block's own content is read by content (see ReadRawBlock).
func readRawContent(data []byte, at int, add func() *RawBlock, content func(b *RawBlock, at int) (int, error)) (int, error) {
	switch {
	case at >= len(data):
		return 0, ErrLeftToTyped
	case data[at] == '"':
		b := add()
		b.Type = RawTextType
		return readRawString(data, at, &b.Text)
	case data[at] != '[':
		return 0, ErrLeftToTyped
	}
	return jsonbytes.ScanArrayAt(data, at, func(at int) (int, error) {
		return ReadRawBlock(data, at, add(), content)
	})
}

// ReadRawBlock reads the block object at at into b, a zero RawBlock. The
// block's content member is read by content, called with b and the
// content's index, which returns the index past it; a nil content checks
// it and steps over it.
func ReadRawBlock(data []byte, at int, b *RawBlock, content func(b *RawBlock, at int) (int, error)) (int, error) {
	if at >= len(data) || data[at] != '{' {
		return 0, ErrLeftToTyped
	}
	seen := 0
	strs := rawStrings(b)
	return jsonbytes.ScanObjectAt(data, at, func(name []byte, at int) (int, error) {
		f, ok := rawBlockField(name)
		switch {
		case !ok:
			return 0, ErrLeftToTyped
		case f == 0:
			return skipRaw(data, at)
		case seen&f != 0 || data[at] == 'n':
			return 0, ErrLeftToTyped
		}
		seen |= f
		switch f {
		case rbInput:
			end, err := skipRaw(data, at)
			if err != nil {
				return 0, err
			}
			b.Input = data[at:end]
			return end, nil
		case rbIsError:
			switch {
			case jsonbytes.HasAt(data, at, "true"):
				b.IsError = true
				return at + len("true"), nil
			case jsonbytes.HasAt(data, at, "false"):
				return at + len("false"), nil
			}
			return 0, ErrLeftToTyped
		case rbSource:
			return readRawSource(data, at, &b.Source)
		case rbContent:
			if data[at] != '"' && data[at] != '[' {
				return 0, ErrLeftToTyped
			}
			if content == nil {
				return skipRaw(data, at)
			}
			return content(b, at)
		}
		return readRawString(data, at, strs[bits.TrailingZeros(uint(f))])
	})
}

// readRawSource reads a block's source at i into s: a string, or an object
// whose members the readers read are strings. As in encoding/json, a
// repeated member's last value counts and a null leaves the field as it
// was.
func readRawSource(data []byte, i int, s *RawSource) (int, error) {
	s.Present = true
	switch data[i] {
	case '"':
		s.IsString = true
		return readRawString(data, i, &s.URL)
	case '{':
	default:
		return 0, ErrLeftToTyped
	}
	return jsonbytes.ScanObjectAt(data, i, func(name []byte, at int) (int, error) {
		if !jsonbytes.PlainName(name, rawSourceFields) {
			return 0, ErrLeftToTyped
		}
		f := rawSourceFields[string(name)]
		if f == 0 {
			return skipRaw(data, at)
		}
		if data[at] == 'n' {
			if !jsonbytes.HasAt(data, at, "null") {
				return 0, ErrLeftToTyped
			}
			return at + len("null"), nil
		}
		var field *RawString
		switch f {
		case 1:
			field = &s.Type
		case 2:
			field = &s.MediaType
		case 3:
			field = &s.Data
		default:
			field = &s.URL
		}
		return readRawString(data, at, field)
	})
}

// The readers above stop at what encoding/json reads by rules of its own
// (a member name escaped or in another case, a repeated member, a null).
// EachBlock and ReadMessage read every content ParseRequest accepts: such a
// block is decoded alone by encoding/json, as ParseRequest decodes it, and
// written again as a plain block the reader reads, so that a converter
// built on them has one path whatever the client wrote. Both read one
// block at a time into the caller's RawBlock: nothing is kept per block,
// so a history of a million tiny blocks costs what one block costs.

// EachBlock reads the Content value at at in data — a string is one text
// block, an array its blocks, null none — and calls fn with each block in
// order, read into b (reused for the next block: fn keeps nothing of it
// but the slices of data it holds). A block's own content is left raw in
// b.ContentRaw, for a nested EachBlock with another RawBlock. It returns
// the index past the value.
func EachBlock(data []byte, at int, b *RawBlock, fn func(j int, b *RawBlock) error) (int, error) {
	switch {
	case at >= len(data):
		return 0, errNotContent
	case data[at] == '"':
		*b = RawBlock{Type: RawTextType}
		end, err := readRawString(data, at, &b.Text)
		if err != nil {
			return 0, errNotContent
		}
		b.Raw = data[at:end:end]
		return end, fn(0, b)
	case jsonbytes.HasAt(data, at, "null"):
		return at + len("null"), nil
	case data[at] != '[':
		return 0, errNotContent
	}
	j := 0
	return jsonbytes.ScanArrayAt(data, at, func(at int) (int, error) {
		*b = RawBlock{}
		end, err := ReadRawBlock(data, at, b, func(b *RawBlock, at int) (int, error) {
			end, err := skipRaw(data, at)
			b.ContentRaw = data[at:end:end]
			return end, err
		})
		if errors.Is(err, ErrLeftToTyped) {
			end, err = readOddBlock(data, at, b)
		}
		if err != nil {
			return 0, err
		}
		b.Raw = data[at:end:end]
		err = fn(j, b)
		j++
		return end, err
	})
}

// errNotContent is a content value of a kind ParseRequest rejects: not
// reached for a request it accepted.
var errNotContent = InvalidRequest("invalid request: content must be a string or an array of content blocks")

// readOddBlock reads the block at at that ReadRawBlock leaves alone:
// encoding/json decodes it, and the reader reads the plain block that
// holds what it decoded.
func readOddBlock(data []byte, at int, b *RawBlock) (int, error) {
	end, err := skipRaw(data, at)
	if err != nil {
		return 0, err
	}
	var blk Block
	if err := json.Unmarshal(data[at:end], &blk); err != nil {
		return 0, InvalidRequest("invalid request: " + jsonErrorText(err))
	}
	plain, err := plainBlock(&blk)
	if err != nil {
		return 0, err
	}
	*b = RawBlock{}
	if _, err := ReadRawBlock(plain, 0, b, func(b *RawBlock, at int) (int, error) {
		end, err := skipRaw(plain, at)
		b.ContentRaw = plain[at:end:end]
		return end, err
	}); err != nil {
		return 0, InvalidRequest("invalid request: a content block the gateway cannot read")
	}
	return end, nil
}

// plainBlock writes blk as a block object with plain member names, each
// once, no null: what ReadRawBlock reads as blk.
func plainBlock(blk *Block) ([]byte, error) {
	out := []byte{'{'}
	member := func(name string) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, name...)
		out = append(out, '"', ':')
	}
	for _, f := range []struct{ name, v string }{
		{"type", blk.Type}, {"text", blk.Text}, {"thinking", blk.Thinking}, {"signature", blk.Signature},
		{"data", blk.Data}, {"id", blk.ID}, {"name", blk.Name}, {"tool_use_id", blk.ToolUseID},
	} {
		if f.v != "" {
			member(f.name)
			out = jsonbytes.AppendString(out, f.v)
		}
	}
	if blk.Input != nil && string(blk.Input) != "null" { // a null input is none
		member("input")
		out = append(out, blk.Input...)
	}
	if blk.IsError {
		member("is_error")
		out = append(out, "true"...)
	}
	if s := blk.Source; s != nil {
		member("source")
		if s.Type == "string" && s.MediaType == "" && s.Data == "" {
			out = jsonbytes.AppendString(out, s.URL)
		} else {
			src, err := json.Marshal(s)
			if err != nil {
				return nil, err
			}
			out = append(out, src...)
		}
	}
	if blk.Content != nil {
		c, err := json.Marshal(blk.Content)
		if err != nil {
			return nil, err
		}
		member("content")
		out = append(out, c...)
	}
	return append(out, '}'), nil
}

// ReadMessage reads the message object at at in data: its role (zero
// when absent) and its content's raw value (nil when absent or null), as
// encoding/json decodes a Message: a member name matched exactly or else
// as encoding/json folds it, the last of a repeated member, a null
// changing nothing but the content. It returns the index past the object.
func ReadMessage(data []byte, at int) (role RawString, content []byte, end int, err error) {
	if at >= len(data) || data[at] != '{' {
		return role, nil, 0, errNotMessage
	}
	end, err = jsonbytes.ScanObjectAt(data, at, func(name []byte, at int) (int, error) {
		f := 0
		if jsonbytes.PlainName(name, rawMessageFields) {
			f = rawMessageFields[string(name)]
		} else {
			f = foldedMessageField(name)
		}
		switch f {
		case 1:
			if jsonbytes.HasAt(data, at, "null") {
				return at + len("null"), nil
			}
			end, err := readRawString(data, at, &role)
			if err != nil {
				return 0, errNotMessage
			}
			return end, nil
		case 2:
			end, err := skipRaw(data, at)
			if err != nil {
				return 0, err
			}
			content = data[at:end:end]
			if string(content) == "null" {
				content = nil
			}
			return end, nil
		}
		return skipRaw(data, at)
	})
	return role, content, end, err
}

// errNotMessage is a message ParseRequest rejects: not reached for a
// request it accepted.
var errNotMessage = InvalidRequest("invalid request: a message must be an object with a string role")

// foldedMessageField is the Message field (1 role, 2 content, 0 none) a
// member named name (its raw bytes, escapes and all) sets when
// encoding/json decodes it: it matches the name itself.
func foldedMessageField(name []byte) int {
	var probe struct {
		Role    *struct{} `json:"role"`
		Content *struct{} `json:"content"`
	}
	doc := make([]byte, 0, len(name)+8)
	doc = append(doc, '{', '"')
	doc = append(append(doc, name...), `":{}}`...)
	if json.Unmarshal(doc, &probe) != nil {
		return 0
	}
	switch {
	case probe.Role != nil:
		return 1
	case probe.Content != nil:
		return 2
	}
	return 0
}

// RequestValue returns the raw value encoding/json decodes into the
// request's field name (messages, system) from the client's body: the
// last top-level member whose name matches it exactly or folded; nil when
// none does or its value is null. A request the walk read (FieldOrder
// set: every name plain and once) has it in Fields.
func RequestValue(body []byte, r *Request, name string) []byte {
	var v []byte
	if r.order != nil || r.scan != nil {
		v = r.Fields[name]
	} else {
		v = memberValue(body, name)
	}
	if string(v) == "null" {
		return nil
	}
	return v
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
// system and tools, that a top-level member named key (raw) sets when encoding/json
// decodes it ("" for neither).
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
