package providers

import (
	"bytes"
	"errors"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
)

// A converter that writes the upstream body from the client's bytes reads
// the history with a HistoryReader: one block at a time into one RawBlock,
// nothing kept of a block once it is written, so that what a request costs
// beyond its body does not grow with its number of blocks. It reads a body
// the request parse accepted (valid JSON whose values have the kinds
// Request's fields take) exactly as encoding/json decodes it into Request:
// member names matched without regard to case or escapes, a repeated
// member's last value, a null that leaves a string as it was and empties
// a content or a source, a source object merged into the one before it,
// and the top-level messages given twice merged element by element.

// errHistoryShape is what a reader meets in a body the request parse
// would not have accepted.
var errHistoryShape = errors.New("providers: request history is not what the request parse accepted")

// HistoryReader reads the history of one request body.
type HistoryReader struct {
	body []byte
	name []byte // a member name with escapes, decoded
	// messages are the top-level messages arrays, in the body's order,
	// from the last that is null on (encoding/json merges them).
	messages []int
	system   int
}

// HistoryMessage is what a converter reads of a message: its role, and
// where its content is (-1: absent or null).
type HistoryMessage struct {
	Role    RawString
	Content int
}

// NewHistoryReader finds the top-level messages and system of body.
func NewHistoryReader(body []byte) (*HistoryReader, error) {
	h := &HistoryReader{body: body, system: -1}
	i := jsonbytes.SkipSpace(body, 0)
	_, err := jsonbytes.ScanObjectAt(body, i, func(key []byte, at int) (int, error) {
		_, _, end, err := jsonbytes.SkipValue(body, at)
		if err != nil {
			return -1, err
		}
		null := body[at] == 'n'
		switch {
		case h.nameIs(key, "messages"):
			if null {
				h.messages = h.messages[:0]
			} else {
				h.messages = append(h.messages, at)
			}
		case h.nameIs(key, "system"):
			h.system = at
			if null {
				h.system = -1
			}
		}
		return end, nil
	})
	if err != nil {
		return nil, errHistoryShape
	}
	return h, nil
}

// Body is the body read.
func (h *HistoryReader) Body() []byte { return h.body }

// System is the index of the system content in the body, -1 if none.
func (h *HistoryReader) System() int { return h.system }

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

// EachMessage calls fn with each message, in order. A message whose
// Content is -1 has no content (encoding/json leaves it absent).
func (h *HistoryReader) EachMessage(fn func(i int, m *HistoryMessage) error) error {
	switch len(h.messages) {
	case 0:
		return nil
	case 1:
		var m HistoryMessage
		n := 0
		_, err := jsonbytes.ScanArrayAt(h.body, h.messages[0], func(at int) (int, error) {
			m = HistoryMessage{Content: -1}
			end, err := h.readMessage(at, &m)
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
	// The messages given more than once: encoding/json decodes each array
	// into the elements the one before left, so that an element's role
	// and content are the last its place was given.
	var merged []HistoryMessage
	for _, at := range h.messages {
		n := 0
		if _, err := jsonbytes.ScanArrayAt(h.body, at, func(at int) (int, error) {
			if n == len(merged) {
				merged = append(merged, HistoryMessage{Content: -1})
			}
			end, err := h.readMessage(at, &merged[n])
			n++
			return end, err
		}); err != nil {
			return errHistoryShape
		}
		merged = merged[:n]
	}
	for i := range merged {
		if err := fn(i, &merged[i]); err != nil {
			return err
		}
	}
	return nil
}

// readMessage reads the message object at at into m, as encoding/json
// decodes one into the Message m holds.
func (h *HistoryReader) readMessage(at int, m *HistoryMessage) (int, error) {
	data := h.body
	if data[at] == 'n' {
		return at + len("null"), nil
	}
	return jsonbytes.ScanObjectAt(data, at, func(key []byte, at int) (int, error) {
		switch {
		case h.nameIs(key, "role"):
			if data[at] == 'n' {
				return at + len("null"), nil
			}
			return readRawString(data, at, &m.Role)
		case h.nameIs(key, "content"):
			m.Content = at
			if data[at] == 'n' {
				m.Content = -1
			}
		}
		_, _, end, err := jsonbytes.SkipValue(data, at)
		return end, err
	})
}

// HistoryBlock is one content block as read: the RawBlock, and where the
// block's own content (a tool_result's) is in the body (-1: none).
type HistoryBlock struct {
	RawBlock
	Content int
	// Null is a block given as null, which encoding/json decodes as a
	// block of no type.
	Null bool
	// Start and End delimit the block's bytes in the body.
	Start, End int
}

// EachBlock calls fn with each block of the content at at (a string is
// one text block; -1 is none), read into b.
func (h *HistoryReader) EachBlock(at int, b *HistoryBlock, fn func(j int, b *HistoryBlock) error) error {
	if at < 0 {
		return nil
	}
	data := h.body
	switch data[at] {
	case '"':
		*b = HistoryBlock{Content: -1, Start: at}
		b.Type = RawTextType
		end, err := readRawString(data, at, &b.Text)
		if err != nil {
			return errHistoryShape
		}
		b.End = end
		return fn(0, b)
	case '[':
	default:
		return errHistoryShape
	}
	j := 0
	_, err := jsonbytes.ScanArrayAt(data, at, func(at int) (int, error) {
		end, err := h.ReadBlock(at, b)
		if err != nil {
			return -1, err
		}
		if err := fn(j, b); err != nil {
			return -1, err
		}
		j++
		return end, nil
	})
	if errors.Is(err, ErrLeftToTyped) {
		return errHistoryShape
	}
	return err
}

// ReadBlock reads the block at at into b as encoding/json decodes it into
// a zero Block.
func (h *HistoryReader) ReadBlock(at int, b *HistoryBlock) (int, error) {
	data := h.body
	*b = HistoryBlock{Content: -1, Start: at}
	if data[at] == 'n' {
		b.Null, b.End = true, at+len("null")
		return b.End, nil
	}
	end, err := jsonbytes.ScanObjectAt(data, at, func(key []byte, at int) (int, error) {
		f := h.blockField(key)
		if f == 0 {
			_, _, end, err := jsonbytes.SkipValue(data, at)
			return end, err
		}
		null := data[at] == 'n'
		switch f {
		case rbInput:
			_, _, end, err := jsonbytes.SkipValue(data, at)
			if err != nil {
				return -1, err
			}
			b.Input = data[at:end]
			return end, nil
		case rbContent:
			b.Content = at
			if null {
				b.Content = -1
			}
			_, _, end, err := jsonbytes.SkipValue(data, at)
			return end, err
		case rbSource:
			if null {
				b.Source = RawSource{}
				return at + len("null"), nil
			}
			return h.readSource(at, &b.Source)
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
	b.End = end
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

// readSource reads the source at at into s as encoding/json decodes it
// into the Source s holds: a string makes a new source, an object's
// members are merged into it.
func (h *HistoryReader) readSource(at int, s *RawSource) (int, error) {
	data := h.body
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
