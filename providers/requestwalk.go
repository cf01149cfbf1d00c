package providers

import (
	"bytes"
	"encoding/json"

	"github.com/buger/jsonparser"
)

// walkRequest decodes the body, which validJSON accepted, into the request
// encoding/json would make of it, with the messages walked (decodeBlocks)
// and the small fields decoded one by one; ok is false for anything it
// leaves to ParseRequest's encoding/json path (a name that differs from a
// field's only in case or escapes, a repeated name, a null, a value of the
// wrong type: that path also words the error).
func walkRequest(body []byte) (_ *Request, ok bool) {
	r := &Request{Fields: make(map[string]json.RawMessage, 16)}
	ok = true
	err := ScanObject(body, func(key, value []byte, typ jsonparser.ValueType, end int) error {
		if typ == jsonparser.String {
			value = body[end-len(value)-2 : end]
		}
		if !plainName(key) || typ == jsonparser.Null {
			ok = false
			return errStopDecode
		}
		name := string(key)
		if _, dup := r.Fields[name]; dup {
			ok = false
			return errStopDecode
		}
		r.Fields[name] = value
		if !r.decodeField(name, value) {
			ok = false
			return errStopDecode
		}
		return nil
	})
	return r, ok && err == nil
}

// requestFields are Request's JSON names.
var requestFields = map[string]bool{
	"model": true, "messages": true, "system": true, "max_tokens": true, "stream": true,
	"temperature": true, "top_p": true, "top_k": true, "stop_sequences": true, "metadata": true,
	"tools": true, "tool_choice": true, "thinking": true,
}

// plainName reports a name that encoding/json matches to a field of
// Request exactly or not at all: ASCII, no escapes, and not a field's name
// in another case.
func plainName(key []byte) bool {
	if !asciiOnly(key) || bytes.IndexByte(key, '\\') >= 0 {
		return false
	}
	return requestFields[string(key)] || !requestFields[string(bytes.ToLower(key))]
}

// decodeField decodes one top-level member into r; false leaves the
// request to encoding/json.
func (r *Request) decodeField(name string, value []byte) bool {
	switch name {
	case "messages":
		msgs, ok := decodeMessages(value)
		if !ok {
			return json.Unmarshal(value, &r.Messages) == nil
		}
		r.Messages = msgs
		return true
	case "system":
		return r.System.UnmarshalJSON(value) == nil
	case "thinking":
		return r.Thinking.UnmarshalJSON(value) == nil
	case "model":
		s, ok := decodeJSONString(value)
		r.Model = s
		return ok
	case "stream":
		if string(value) != "true" && string(value) != "false" {
			return false
		}
		r.Stream = value[0] == 't'
		return true
	case "max_tokens":
		return json.Unmarshal(value, &r.MaxTokens) == nil
	case "temperature":
		return json.Unmarshal(value, &r.Temperature) == nil
	case "top_p":
		return json.Unmarshal(value, &r.TopP) == nil
	case "top_k":
		return json.Unmarshal(value, &r.TopK) == nil
	case "stop_sequences":
		return json.Unmarshal(value, &r.StopSequences) == nil
	case "metadata":
		return json.Unmarshal(value, &r.Metadata) == nil
	case "tools":
		return json.Unmarshal(value, &r.Tools) == nil
	case "tool_choice":
		return json.Unmarshal(value, &r.ToolChoice) == nil
	}
	return true // not a field of Request: kept in Fields only
}

// decodeJSONString decodes the JSON string value (with its quotes).
func decodeJSONString(value []byte) (string, bool) {
	if len(value) < 2 || value[0] != '"' {
		return "", false
	}
	if s, ok := decodeString(value[1 : len(value)-1]); ok {
		return s, true
	}
	var s string
	return s, json.Unmarshal(value, &s) == nil
}

// decodeMessages decodes the valid JSON array b of messages; ok is false
// when encoding/json must decode it.
func decodeMessages(b []byte) (_ []Message, ok bool) {
	if len(b) == 0 || b[0] != '[' {
		return nil, false
	}
	msgs := make([]Message, 0, 16)
	i := skipSpace(b, 1)
	if i < len(b) && b[i] == ']' {
		return msgs, true
	}
	for i < len(b) {
		typ, end := scanValue(b, i)
		if end < 0 || typ != jsonparser.Object {
			return nil, false
		}
		msgs = append(msgs, Message{})
		if !msgs[len(msgs)-1].decode(b[i:end]) {
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
			return msgs, true
		default:
			return nil, false
		}
	}
	return nil, false
}

// decode fills m (a zero Message) from the valid JSON object data; false
// means encoding/json must decode it.
func (m *Message) decode(data []byte) bool {
	var seenRole, seenContent bool
	err := ScanObject(data, func(key, value []byte, typ jsonparser.ValueType, end int) error {
		if typ == jsonparser.String {
			value = data[end-len(value)-2 : end]
		}
		switch string(key) {
		case "role":
			s, ok := decodeJSONString(value)
			if seenRole || !ok {
				return errStopDecode
			}
			seenRole, m.Role = true, s
		case "content":
			if seenContent || typ == jsonparser.Null || m.Content.UnmarshalJSON(value) != nil {
				return errStopDecode
			}
			seenContent = true
		default:
			if !asciiOnly(key) || bytes.IndexByte(key, '\\') >= 0 {
				return errStopDecode
			}
			if k := string(bytes.ToLower(key)); k == "role" || k == "content" {
				return errStopDecode
			}
		}
		return nil
	})
	return err == nil
}
