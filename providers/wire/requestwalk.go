package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
)

// encoding/json validates its whole input on every Unmarshal call, and a
// type with its own UnmarshalJSON gets its bytes only after the decoder has
// scanned past them once more: decoding a request's messages by nesting
// Unmarshal calls (Content, then each Block, then a tool_result's Content)
// walked every byte of the history five or six times. Instead, the body is
// decoded in one walk that also checks it is valid JSON, and produces
// exactly what encoding/json produces. Whatever the walk does not handle
// the same way for certain (a name that differs from a field's only in case
// or escapes, a repeated name, a null, a value of an unexpected type, a
// lone surrogate escape, invalid UTF-8) sends the whole request to
// encoding/json, which also words the error.

// walker decodes a JSON document, checking it as it goes: what it decodes
// is valid JSON, and what is not it leaves to encoding/json.
type walker struct {
	data []byte
	// depth is the number of containers open, bounded as encoding/json
	// bounds it.
	depth int
	// scratch collects the text of a string with escapes; the string is
	// made from it with one copy.
	scratch []byte
	// role holds a scanned message's role that has escapes, decoded;
	// names matches member names as encoding/json does (scanMessage).
	role  []byte
	names HistoryReader
	// oddMembers lets request read what encoding/json reads otherwise
	// than by a name's first exact match (scanRequest); key holds such a
	// name, decoded.
	oddMembers bool
	key        []byte
}

// str decodes the string whose opening quote is at i and returns its text
// and the index past its closing quote; ok is false for what only
// encoding/json should decode.
func (w *walker) str(i int) (_ string, end int, ok bool) {
	text, end, ok := w.strBytes(i)
	if !ok {
		return "", 0, false
	}
	return string(text), end, true
}

// strBytes is str without the Go string: text is a sub-slice of the body
// when the string has no escapes, else of scratch (valid until the next
// call).
func (w *walker) strBytes(i int) (text []byte, end int, ok bool) {
	data := w.data
	if i >= len(data) || data[i] != '"' {
		return nil, 0, false
	}
	j := jsonbytes.ShortRun(data, i+1)
	if j < len(data) && data[j] == '"' {
		raw := data[i+1 : j]
		if !jsonbytes.ValidUTF8(raw) {
			return nil, 0, false
		}
		return raw, j + 1, true
	}
	out := append(w.scratch[:0], data[i+1:j]...)
	for j < len(data) {
		c := data[j]
		switch {
		case c == '"':
			w.scratch = out
			if !jsonbytes.ValidUTF8(out) {
				return nil, 0, false
			}
			return out, j + 1, true
		case c == '\\':
			if j+1 >= len(data) {
				return nil, 0, false
			}
			switch e := data[j+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
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
			case 'u':
				// Terminal output (\u001b) and ASCII-only encoders
				// escape this way. A surrogate that is not half of a
				// pair becomes U+FFFD in encoding/json: left to it.
				r, n := decodeU(data[j:])
				if n == 0 {
					return nil, 0, false
				}
				out = utf8.AppendRune(out, r)
				j += n - 2
			default:
				return nil, 0, false
			}
			j += 2
		case c < 0x20:
			return nil, 0, false
		default:
			out = append(out, c)
			j++
		}
		k := jsonbytes.ShortRun(data, j)
		out = append(out, data[j:k]...)
		j = k
	}
	return nil, 0, false
}

// decodedBytes is strBytes for any JSON string: invalid UTF-8 and a lone
// surrogate escape become U+FFFD, as encoding/json decodes them; text is a
// sub-slice of scratch (valid until the next call).
func (w *walker) decodedBytes(i int) (text []byte, end int, ok bool) {
	if i >= len(w.data) || w.data[i] != '"' {
		return nil, 0, false
	}
	if end = jsonbytes.ValidString(w.data, i); end < 0 {
		return nil, 0, false
	}
	text, err := jsonbytes.AppendDecoded(w.scratch[:0], w.data[i+1:end-1])
	w.scratch = text
	return text, end, err == nil
}

// decodeU decodes the \uhhhh escape (or surrogate pair of them) p starts
// with and returns the rune and the escape's length; 0 for a malformed
// escape or a surrogate that is not half of a pair.
func decodeU(p []byte) (rune, int) {
	r := jsonbytes.Hex4(p)
	switch {
	case r < 0:
		return 0, 0
	case !utf16.IsSurrogate(r):
		return r, 6
	case r >= 0xDC00 || len(p) < 12 || p[6] != '\\' || p[7] != 'u':
		return 0, 0
	}
	r2 := jsonbytes.Hex4(p[6:])
	if r2 < 0xDC00 || r2 > 0xDFFF {
		return 0, 0
	}
	return utf16.DecodeRune(r, r2), 12
}

// object walks the object at i, calling member with each name and the
// index of its value; member returns the index past the value. It returns
// the index past the object.
func (w *walker) object(i int, member func(name []byte, i int) (end int, ok bool)) (end int, ok bool) {
	data := w.data
	if i >= len(data) || data[i] != '{' || w.depth >= jsonbytes.MaxDepth {
		return 0, false
	}
	w.depth++
	defer func() { w.depth-- }()
	i = jsonbytes.SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, true
	}
	for i < len(data) && data[i] == '"' {
		kend := jsonbytes.ValidString(data, i)
		if kend < 0 {
			return 0, false
		}
		name := data[i+1 : kend-1]
		i = jsonbytes.SkipSpace(data, kend)
		if i >= len(data) || data[i] != ':' {
			return 0, false
		}
		if i = jsonbytes.SkipSpace(data, i+1); i >= len(data) {
			return 0, false
		}
		if i, ok = member(name, i); !ok {
			return 0, false
		}
		var closed bool
		if i, closed, ok = afterValue(data, i, '}'); !ok || closed {
			return i, ok
		}
	}
	return 0, false
}

// afterValue steps over what follows a member or element at i: a comma
// (i then at the next one) or the closing bracket (closed, i past it).
func afterValue(data []byte, i int, closing byte) (next int, closed, ok bool) {
	i = jsonbytes.SkipSpace(data, i)
	switch {
	case i >= len(data):
		return 0, false, false
	case data[i] == ',':
		return jsonbytes.SkipSpace(data, i+1), false, true
	case data[i] == closing:
		return i + 1, true, true
	}
	return 0, false, false
}

// array walks the array at i, calling elem with the index of each element;
// elem returns the index past it. It returns the index past the array.
func (w *walker) array(i int, elem func(i int) (end int, ok bool)) (end int, ok bool) {
	data := w.data
	if i >= len(data) || data[i] != '[' || w.depth >= jsonbytes.MaxDepth {
		return 0, false
	}
	w.depth++
	defer func() { w.depth-- }()
	i = jsonbytes.SkipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return i + 1, true
	}
	for i < len(data) {
		if i, ok = elem(i); !ok {
			return 0, false
		}
		var closed bool
		if i, closed, ok = afterValue(data, i, ']'); !ok || closed {
			return i, ok
		}
	}
	return 0, false
}

// skip checks the value at i and returns the index past it.
func (w *walker) skip(i int) (int, bool) {
	end := jsonbytes.ValidValue(w.data, i, w.depth)
	return end, end >= 0
}

// content decodes a Content (a string or an array of blocks) at i.
func (w *walker) content(i int) (c Content, end int, ok bool) {
	data := w.data
	if i >= len(data) {
		return c, 0, false
	}
	switch data[i] {
	case '"':
		s, end, ok := w.str(i)
		return Content{Blocks: []Block{{Type: "text", Text: s}}, IsString: true, Present: true}, end, ok
	case '[':
		c = Content{Blocks: make([]Block, 0, 4), Present: true}
		end, ok = w.array(i, func(i int) (int, bool) {
			c.Blocks = append(c.Blocks, Block{})
			return w.block(i, &c.Blocks[len(c.Blocks)-1])
		})
		return c, end, ok
	}
	return c, 0, false
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

// field reads the name of a member at i of an object whose fields are
// bits: the field's bit, after the checks every such reader makes; 0 with
// end past the value for a member the type does not have; !ok for what
// the walk leaves to encoding/json (a name it might match otherwise, a
// repeated member, a null). seen collects the bits read so far.
func (w *walker) field(name []byte, i int, fields map[string]int, seen *int) (f, end int, ok bool) {
	if !jsonbytes.PlainName(name, fields) {
		return 0, 0, false
	}
	if f = fields[string(name)]; f == 0 {
		end, ok = w.skip(i)
		return 0, end, ok
	}
	if *seen&f != 0 || w.data[i] == 'n' {
		return 0, 0, false
	}
	*seen |= f
	return f, i, true
}

// block decodes the block object at i into b, a zero Block.
func (w *walker) block(i int, b *Block) (end int, ok bool) {
	data := w.data
	seen := 0
	end, ok = w.object(i, func(name []byte, i int) (int, bool) {
		f, end, ok := w.field(name, i, blockFields, &seen)
		if f == 0 {
			return end, ok
		}
		switch f {
		case fInput:
			end, ok := w.skip(i)
			if !ok {
				return 0, false
			}
			b.Input = data[i:end:end]
			return end, true
		case fIsError:
			switch {
			case jsonbytes.HasAt(data, i, "true"):
				b.IsError = true
				return i + 4, true
			case jsonbytes.HasAt(data, i, "false"):
				return i + 5, true
			}
			return 0, false
		case fSource:
			end, ok := w.skip(i)
			if !ok {
				return 0, false
			}
			b.Source = new(Source)
			return end, b.Source.UnmarshalJSON(data[i:end]) == nil
		case fContent:
			c, end, ok := w.content(i)
			b.Content = &c
			return end, ok
		}
		s, end, ok := w.str(i)
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
		return end, ok
	})
	if ok {
		b.Raw = data[i:end:end]
	}
	return end, ok
}

// toolFields are Tool's JSON names.
var toolFields = map[string]int{"type": fType, "name": fName, "description": fText, "input_schema": fInput}

// tool decodes the tool definition at i into t, a zero Tool. With
// w.oddMembers a member in another case, with escapes, repeated or null is
// read as encoding/json reads it (the last value; a null leaves a string
// as it was and makes input_schema the raw null, as json.RawMessage takes
// it).
func (w *walker) tool(i int, t *Tool) (end int, ok bool) {
	data := w.data
	seen := 0
	end, ok = w.object(i, func(name []byte, i int) (int, bool) {
		var f int
		if w.oddMembers {
			f = w.toolField(name)
			if f == 0 {
				return w.skip(i)
			}
			if f != fInput && jsonbytes.HasAt(data, i, "null") {
				return i + len("null"), true
			}
		} else {
			var end int
			var ok bool
			if f, end, ok = w.field(name, i, toolFields, &seen); f == 0 {
				return end, ok
			}
		}
		if f == fInput {
			end, ok := w.skip(i)
			if !ok {
				return 0, false
			}
			t.InputSchema = data[i:end:end]
			return end, true
		}
		s, end, ok := w.str(i)
		if !ok && w.oddMembers {
			var b []byte
			b, end, ok = w.decodedBytes(i)
			s = string(b)
		}
		switch f {
		case fType:
			t.Type = s
		case fName:
			t.Name = s
		case fText:
			t.Description = s
		}
		return end, ok
	})
	if ok {
		t.Raw = data[i:end:end]
	}
	return end, ok
}

// toolField is the bit of the Tool field encoding/json matches the member
// name raw to (0: none).
func (w *walker) toolField(raw []byte) int {
	if f := toolFields[string(raw)]; f != 0 {
		return f
	}
	if jsonbytes.PlainName(raw, toolFields) {
		return 0
	}
	for name, f := range toolFields {
		if w.names.nameIs(raw, name) {
			return f
		}
	}
	return 0
}

// MaxTools bounds the tool definitions of a request: a request with more
// is refused (errTooManyTools) before they are decoded, so that a body of
// tiny tools costs no more memory than the tools' bytes. Clients send tens.
const MaxTools = 4096

// errTooManyTools is the 400 for a request past MaxTools.
var errTooManyTools = InvalidRequest(fmt.Sprintf("tools: more than %d tools; the gateway takes at most %d tool definitions per request", MaxTools, MaxTools))

// MaxMessages bounds the messages of a request, as Anthropic's API bounds
// them (100,000): a request with more is refused (errTooManyMessages)
// before they are decoded. An upstream format may spend more bytes on a
// message than the client did (a Responses message item is 72 bytes
// around a one-letter text the client sent in 29), so the bound also
// bounds what the upstream body adds to the client's.
const MaxMessages = 100_000

var errTooManyMessages = InvalidRequest(fmt.Sprintf("messages: more than %d messages; a request holds at most %d", MaxMessages, MaxMessages))

// errMessagesTwice refuses a request that gives messages as two arrays
// with no null between them (messagesTwice).
var errMessagesTwice = InvalidRequest("messages: given more than once; a request gives it once")

// messagesTwice reports a request body (valid JSON) that gives messages
// as two arrays with no null between them, under any names encoding/json
// takes for the field. encoding/json would decode the second into the
// elements the first left, member by member: a history no client means,
// and one a byte-level reader (ScanRequest, HistoryReader) could only
// follow by holding the first array's messages.
func messagesTwice(body []byte) bool {
	given, twice := false, false
	_, _ = jsonbytes.ScanObjectAt(body, jsonbytes.SkipSpace(body, 0), func(key []byte, at int) (int, error) {
		end, err := skipRaw(body, at)
		if err != nil {
			return 0, err
		}
		if string(key) == "messages" || requestFieldOf(key) == "messages" {
			switch body[at] {
			case 'n':
				given = false
			case '[':
				twice, given = twice || given, true
			}
		}
		return end, nil
	})
	return twice
}

// tooMany returns the error for a request body (valid JSON) whose tools
// or messages array, as encoding/json would decode it, holds more than
// its bound; nil otherwise.
func tooMany(body []byte) error {
	count := func(name string) int {
		v := memberValue(body, name)
		if len(v) == 0 || v[0] != '[' {
			return 0
		}
		n := 0
		_, _ = jsonbytes.ScanArrayAt(v, 0, func(at int) (int, error) {
			n++
			return skipRaw(v, at)
		})
		return n
	}
	switch {
	case count("tools") > MaxTools:
		return errTooManyTools
	case count("messages") > MaxMessages:
		return errTooManyMessages
	}
	return nil
}

// tools decodes the tools array at i.
func (w *walker) tools(i int) (tools []Tool, end int, ok bool) {
	end, ok = w.array(i, func(i int) (int, bool) {
		if len(tools) == MaxTools {
			return 0, false // ParseRequest refuses it (tooMany)
		}
		tools = append(tools, Tool{})
		return w.tool(i, &tools[len(tools)-1])
	})
	if ok && tools == nil {
		tools = []Tool{} // encoding/json's empty array
	}
	return tools, end, ok
}

// messageFields are Message's JSON names.
var messageFields = map[string]bool{"role": true, "content": true}

// message decodes the message object at i into m, a zero Message.
func (w *walker) message(i int, m *Message) (end int, ok bool) {
	var seenRole, seenContent bool
	return w.object(i, func(name []byte, i int) (end int, ok bool) {
		if !jsonbytes.PlainName(name, messageFields) {
			return 0, false
		}
		switch string(name) {
		case "role":
			if seenRole {
				return 0, false
			}
			seenRole = true
			m.Role, end, ok = w.str(i)
			return end, ok
		case "content":
			if seenContent || w.data[i] == 'n' {
				return 0, false
			}
			seenContent = true
			m.Content, end, ok = w.content(i)
			return end, ok
		}
		return w.skip(i)
	})
}

// requestFieldNames are Request's JSON names; requestFields maps each to
// itself, so that a name is found as a constant string.
var requestFieldNames = [...]string{
	"model", "messages", "system", "max_tokens", "stream", "temperature", "top_p", "top_k",
	"stop_sequences", "metadata", "tools", "tool_choice", "thinking",
}

var requestFields = func() map[string]string {
	m := make(map[string]string, len(requestFieldNames))
	for _, f := range requestFieldNames {
		m[f] = f
	}
	return m
}()

// walkRequest decodes body into the request encoding/json makes of it; ok
// is false for a request it leaves to encoding/json (invalid JSON among
// them).
func walkRequest(body []byte) (_ *Request, ok bool) {
	w := &walker{data: body}
	r := &Request{Fields: make(map[string]json.RawMessage, 16)}
	ok = w.request(r, func(i int) (int, bool) {
		r.Messages = make([]Message, 0, 16)
		return w.array(i, func(i int) (int, bool) {
			if len(r.Messages) == MaxMessages {
				return 0, false // ParseRequest refuses it (tooMany)
			}
			r.Messages = append(r.Messages, Message{})
			return w.message(i, &r.Messages[len(r.Messages)-1])
		})
	}, func(i int) (end int, ok bool) {
		r.System, end, ok = w.content(i)
		return end, ok
	})
	return r, ok
}

// request reads the request object that is all of w.data into r, as
// walkRequest and scanRequest both do: every member is kept raw in
// r.Fields, in order, and decoded as ParseRequest decodes it, except
// messages and system, which the caller's functions read (each returns the
// index past the value, and is given a null too when w.oddMembers). ok is
// false for a body either leaves to encoding/json: without w.oddMembers,
// also one with a name encoding/json might match otherwise, a repeated
// name or a null, which with it are read by encoding/json's rules (a name
// matched without regard to case or escapes, the last of a repeated
// member, a null that leaves a string, number or boolean as it was and
// empties the rest) and leave FieldOrder nil.
func (w *walker) request(r *Request, messages, system func(i int) (end int, ok bool)) (ok bool) {
	body := w.data
	odd := false
	end, ok := w.object(jsonbytes.SkipSpace(body, 0), func(name []byte, i int) (end int, ok bool) {
		null := jsonbytes.HasAt(body, i, "null")
		plain := jsonbytes.PlainName(name, requestFields)
		var key string
		field := requestFields[string(name)]
		if plain {
			key = field
			if field == "" {
				key = string(name)
			}
		} else if w.oddMembers {
			field, key = w.requestField(name)
		}
		_, dup := r.Fields[key]
		if !plain || dup || null {
			if !w.oddMembers {
				return 0, false
			}
			odd = true
		}
		switch field {
		case "messages":
			end, ok = messages(i)
		case "system":
			end, ok = system(i)
		case "tools":
			if null {
				r.Tools, end, ok = nil, i+len("null"), true
			} else {
				r.Tools, end, ok = w.tools(i)
			}
		case "model":
			switch {
			case null:
				end, ok = i+len("null"), true
			case w.oddMembers:
				// What the walk leaves to encoding/json in a model name
				// is decoded as it decodes it, not left to a full parse.
				var s []byte
				if s, end, ok = w.strBytes(i); !ok {
					s, end, ok = w.decodedBytes(i)
				}
				r.Model = string(s)
			default:
				r.Model, end, ok = w.str(i)
			}
		case "stream":
			switch {
			case jsonbytes.HasAt(body, i, "true"):
				r.Stream, end, ok = true, i+4, true
			case jsonbytes.HasAt(body, i, "false"):
				r.Stream, end, ok = false, i+5, true
			case null:
				end, ok = i+len("null"), true
			}
		default:
			if end, ok = w.skip(i); ok {
				ok = r.decodeSmallField(field, body[i:end])
			}
		}
		if !ok {
			return 0, false
		}
		r.Fields[key] = body[i:end:end]
		if !odd {
			r.order = append(r.order, key)
		}
		return end, true
	})
	if odd {
		r.order = nil // as encoding/json leaves it: the caller walks the body
	}
	return ok && jsonbytes.SkipSpace(body, end) == len(body)
}

// requestField is the Request field ("" for none) encoding/json matches
// the member name raw to, and the name as encoding/json decodes it (the
// key of Fields).
func (w *walker) requestField(raw []byte) (field, key string) {
	if bytes.IndexByte(raw, '\\') >= 0 || !jsonbytes.ValidUTF8(raw) {
		w.key, _ = jsonbytes.AppendDecoded(w.key[:0], raw)
		key = string(w.key)
	} else {
		key = string(raw)
	}
	if f := requestFields[key]; f != "" {
		return f, key // exact: encoding/json prefers it
	}
	for _, f := range requestFieldNames {
		if w.names.nameIs(raw, f) {
			return f, key
		}
	}
	return "", key
}

// decodeSmallField decodes one of the request's small members with
// encoding/json; false leaves the request to encoding/json as a whole.
func (r *Request) decodeSmallField(name string, value []byte) bool {
	var v any
	switch name {
	case "thinking":
		return r.Thinking.UnmarshalJSON(value) == nil
	case "max_tokens":
		v = &r.MaxTokens
	case "temperature":
		v = &r.Temperature
	case "top_p":
		v = &r.TopP
	case "top_k":
		v = &r.TopK
	case "stop_sequences":
		v = &r.StopSequences
	case "metadata":
		v = &r.Metadata
	case "tools":
		v = &r.Tools
	case "tool_choice":
		v = &r.ToolChoice
	default:
		return true // not a field of Request: kept in Fields only
	}
	return json.Unmarshal(value, v) == nil
}
