package wire

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
)

// The passthrough body is rebuilt from the request's raw fields. These
// writers produce exactly what encoding/json's Marshal produces for the
// same values (the bytes upstream do not change), but into one buffer sized
// up front: Marshal grows its own buffer by doubling and then copies it, and
// nesting a Marshal per field copies every field again.

// appendCompactHTML appends the valid JSON src as Marshal writes a
// json.RawMessage: whitespace between tokens removed, and <, >, &, U+2028
// and U+2029 escaped as \u003c, \u003e, \u0026, \u2028 and \u2029.
func appendCompactHTML(dst, src []byte) []byte {
	const hex = "0123456789abcdef"
	inString, escaped := false, false
	start := 0 // src[start:i] is still to be copied
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			case c == '<' || c == '>' || c == '&':
				dst = append(dst, src[start:i]...)
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
				start = i + 1
			case c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8:
				dst = append(dst, src[start:i]...)
				dst = append(dst, '\\', 'u', '2', '0', '2', hex[src[i+2]&0xf])
				i += 2
				start = i + 1
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case ' ', '\t', '\n', '\r':
			dst = append(dst, src[start:i]...)
			start = i + 1
		}
	}
	return append(dst, src[start:]...)
}

// AppendCompactHTML is appendCompactHTML, the way MarshalFields writes a
// raw value. Most values hold nothing to escape, and then only their
// whitespace goes, which jsonbytes.AppendCompact removes a string at a
// time instead of a byte at a time.
func AppendCompactHTML(dst, src []byte) []byte {
	if bytes.IndexByte(src, '<') >= 0 || bytes.IndexByte(src, '>') >= 0 || bytes.IndexByte(src, '&') >= 0 ||
		bytes.IndexByte(src, 0xE2) >= 0 && (bytes.Contains(src, []byte("\u2028")) || bytes.Contains(src, []byte("\u2029"))) {
		return appendCompactHTML(dst, src)
	}
	return jsonbytes.AppendCompact(dst, src)
}

// appendMarshal appends json.Marshal(v).
func appendMarshal(dst []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	return append(dst, b...), err
}

// appendMessages appends msgs as json.Marshal(msgs) writes them; blocks
// kept as sent are copied from their raw form.
func appendMessages(dst []byte, msgs []Message) ([]byte, error) {
	var err error
	dst = append(dst, '[')
	for i, m := range msgs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"role":`...)
		if dst, err = appendMarshal(dst, m.Role); err != nil {
			return nil, err
		}
		dst = append(dst, `,"content":`...)
		c := m.Content
		switch {
		case !c.Present:
			dst = append(dst, "null"...)
		case c.IsString && len(c.Blocks) == 1 && c.Blocks[0].Type == "text":
			if dst, err = appendMarshal(dst, c.Blocks[0].Text); err != nil {
				return nil, err
			}
		default:
			dst = append(dst, '[')
			for j, b := range c.Blocks {
				if j > 0 {
					dst = append(dst, ',')
				}
				if b.Raw != nil {
					dst = appendCompactHTML(dst, b.Raw)
					continue
				}
				type plain Block
				if dst, err = appendMarshal(dst, plain(b)); err != nil {
					return nil, err
				}
			}
			dst = append(dst, ']')
		}
		dst = append(dst, '}')
	}
	return append(dst, ']'), nil
}

// rawSize is the size of the blocks' raw forms in msgs, an estimate of
// their encoding.
func rawSize(msgs []Message) int {
	n := 2
	for _, m := range msgs {
		n += 32
		for _, b := range m.Content.Blocks {
			n += len(b.Raw) + len(b.Text) + 1
		}
	}
	return n
}

// SetMessages replaces the messages of the passthrough body with msgs,
// written as SetField("messages", msgs) would encode them. They are written
// by MarshalFields, straight into the body, so Fields["messages"] keeps the
// client's form until then.
func (r *Request) SetMessages(msgs []Message) {
	r.rewritten, r.hasRewritten = msgs, true
	r.encodedMessages = nil
}

// SetMessagesJSON replaces the messages of the passthrough body with
// encoded, an array already written as MarshalFields writes one (compact,
// HTML escaped): MarshalFields copies it as it is. Messages and
// Fields["messages"] keep the client's history.
func (r *Request) SetMessagesJSON(encoded []byte) {
	r.encodedMessages = encoded
	r.rewritten, r.hasRewritten = nil, false
}

// MarshalFields encodes the request from Fields, a passthrough body: the
// fields in name order, as json.Marshal(r.Fields) writes them.
func (r *Request) MarshalFields() ([]byte, error) {
	body, _, err := r.MarshalFieldsInto(nil, nil)
	return body, err
}

// MarshalFieldsInto is MarshalFields with the messages value written by
// messages, which appends it to dst as MarshalFields would write it; a
// field it deletes from Fields whose name sorts after "messages" (thinking,
// for one) is left out of the body. It returns the body and the messages
// value in it, a sub-slice for SetMessagesJSON: the body is written once,
// and a later MarshalFields (Vertex's) writes the same messages.
// The body is written into a buffer of newBody's (nil: make).
func (r *Request) MarshalFieldsInto(messages func(dst []byte) ([]byte, error), newBody func(int) []byte) (out, encodedMessages []byte, err error) {
	keys := make([]string, 0, len(r.Fields))
	n := 2
	for k, v := range r.Fields {
		keys = append(keys, k)
		n += len(k) + len(v) + 4
	}
	switch {
	case messages != nil:
	case r.encodedMessages != nil:
		n += len(r.encodedMessages) - len(r.Fields["messages"])
	case r.hasRewritten:
		n += rawSize(r.rewritten) - len(r.Fields["messages"])
	}
	sort.Strings(keys)
	if newBody == nil {
		newBody = func(n int) []byte { return make([]byte, 0, n) }
	}
	out = newBody(n + n/32) // room for a few escapes
	out = append(out, '{')
	for _, k := range keys {
		v, ok := r.Fields[k]
		if !ok {
			continue // deleted by messages
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		if out, err = appendMarshal(out, k); err != nil {
			return nil, nil, err
		}
		out = append(out, ':')
		switch {
		case k == "messages" && messages != nil:
			lo := len(out)
			if out, err = messages(out); err != nil {
				return nil, nil, err
			}
			encodedMessages = out[lo:len(out):len(out)]
		case k == "messages" && r.hasRewritten:
			if out, err = appendMessages(out, r.rewritten); err != nil {
				return nil, nil, err
			}
		case k == "messages" && r.encodedMessages != nil:
			out = append(out, r.encodedMessages...)
		case len(v) > 0:
			out = AppendCompactHTML(out, v)
		default:
			out = append(out, "null"...)
		}
	}
	return append(out, '}'), encodedMessages, nil
}
