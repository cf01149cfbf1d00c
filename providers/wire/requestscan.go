package wire

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
)

// A passthrough (anthropic, azure) forwards most requests byte for byte: it
// needs the model, stream and thinking, and whether the history holds
// thinking the gateway signed, not the history's text. ScanRequest finds
// those in one walk that checks the body as ParseRequest's walk does but
// makes no Go string of the history; Complete decodes the rest when a
// request has to change after all.

// ScanRequest reads body as ParseRequest does, and returns the same error
// for a body ParseRequest rejects, but leaves Messages and System to
// Complete: Fields, Model, Stream, Thinking, the other small fields and
// GatewayThinking are set. Messages, blocks, sources, tools and top-level
// members are read by encoding/json's rules (scanMessage, scanBlock,
// walker.request): a name matched without regard to case or escapes, a
// repeated member's last value, a null that leaves a string as it was, a
// string's invalid UTF-8 or lone surrogate as U+FFFD; so that no shape of
// these costs a decode of the history. Messages given as two arrays with
// no null between them, which encoding/json would merge element by
// element, are refused as ParseRequest refuses them (errMessagesTwice).
// Two cases are parsed in full instead: a body ParseRequest rejects for a
// value of another type or as invalid JSON (its error is ParseRequest's
// to word), and more messages than MaxMessages in one array.
func ScanRequest(body []byte) (*Request, error) {
	if r, ok := scanRequest(body); ok {
		if r.scan.badRole != nil {
			// The body decodes, but checkRequest rejects a role.
			return nil, r.scan.badRole
		}
		return r, nil
	}
	return ParseRequest(body)
}

// Complete decodes what ScanRequest left out (Messages and System); on a
// request ParseRequest made it does nothing. Fields changed since the scan
// stay changed.
func (r *Request) Complete() error {
	if r.scan == nil {
		return nil
	}
	sc := r.scan
	w := &walker{data: sc.body, depth: 1}
	ok := true
	if sc.messages >= 0 {
		r.Messages = make([]Message, 0, sc.nMessages)
		_, ok = w.array(sc.messages, func(i int) (int, bool) {
			r.Messages = append(r.Messages, Message{})
			return w.message(i, &r.Messages[len(r.Messages)-1])
		})
	}
	if ok && sc.system >= 0 {
		r.System, _, ok = w.content(sc.system)
	}
	if !ok {
		// What the walk leaves to encoding/json (a member in another
		// case, repeated or null, which the scan reads itself; invalid
		// UTF-8, a lone surrogate escape in a text): the whole body is
		// decoded so.
		full, err := ParseRequest(sc.body)
		if err != nil {
			return err
		}
		r.Messages, r.System = full.Messages, full.System
	}
	r.scan = nil
	return nil
}

// MessageCount is the number of the request's messages, whether or not
// they were decoded.
func (r *Request) MessageCount() int {
	if r.scan != nil {
		return r.scan.nMessages
	}
	return len(r.Messages)
}

// LastUserMessageSize is the size in bytes of the last message as the
// client sent it when its role is user, or -1 when it is not, or once the
// messages are decoded (or were never scanned): a converter that writes
// the last user turn apart from the history sizes its buffers with it.
func (r *Request) LastUserMessageSize() int {
	if r.scan == nil || r.scan.nMessages == 0 || !r.scan.lastUser {
		return -1
	}
	return r.scan.lastMessage
}

// Scanned reports whether Messages and System wait for Complete.
func (r *Request) Scanned() bool { return r.scan != nil }

// requestScan is where ScanRequest found what Complete decodes.
type requestScan struct {
	body []byte
	// messages and system are the indexes of those values in body, -1
	// when absent.
	messages, system int
	nMessages        int
	// lastMessage is the size in bytes of the last message's value, and
	// lastUser whether its role is user.
	lastMessage int
	lastUser    bool
	// unsettled is set by a message the scan cannot tell is kept whole
	// by SignedHistory's rule.
	unsettled bool
	// badRole is checkRequest's error for a request without messages
	// (none named exactly so, or null), else for the first message whose
	// role is not one it takes; nil when there is none.
	badRole error
}

// SignedHistory reports a scanned request whose every message surely has
// content (a list with an element, a string with a printable character)
// and whose every thinking block carries a signature, and redacted_thinking
// block data, that is not empty and not the gateway's envelope: a history
// an upstream that drops unsigned and empty parts (azure) takes whole. A
// request the scan left to ParseRequest reports false.
func (r *Request) SignedHistory() bool {
	return r.scan != nil && r.scan.messages >= 0 && !r.scan.unsettled
}

// scanRequest is walkRequest without decoding the history: ok only for a
// body that encoding/json decodes into a Request without error, with the
// findings ParseRequest would make; a role checkRequest rejects is then in
// the scan's badRole. Strings the
// scan does not read are only checked as JSON: encoding/json takes any
// UTF-8 and any escape in them, which the walk leaves to it (Complete then
// does too).
func scanRequest(body []byte) (_ *Request, ok bool) {
	w := &walker{data: body, oddMembers: true}
	sc := &requestScan{body: body, messages: -1, system: -1}
	r := &Request{Fields: make(map[string]json.RawMessage, 16), scan: sc}
	// given is a messages array since the last null; twice, two arrays
	// with no null between them (messagesTwice).
	var given, twice bool
	ok = w.request(r, func(i int) (int, bool) {
		// A null or another messages array replaces the findings of the
		// one before.
		*sc = requestScan{body: body, messages: -1, system: sc.system}
		r.GatewayThinking = false
		if jsonbytes.HasAt(body, i, "null") {
			given = false
			return i + len("null"), true
		}
		// encoding/json would decode an array into the elements the one
		// before left: each is checked here, and the request refused
		// (errMessagesTwice) once the rest of the body is.
		twice, given = twice || given, true
		sc.messages = i
		return w.array(i, func(i int) (int, bool) {
			if sc.nMessages == MaxMessages {
				return 0, false // ParseRequest refuses it (tooMany)
			}
			sc.nMessages++
			end, signed, ok := w.scanMessage(i, sc)
			sc.lastMessage = end - i
			r.GatewayThinking = r.GatewayThinking || signed
			return end, ok
		})
	}, func(i int) (int, bool) {
		if jsonbytes.HasAt(body, i, "null") {
			sc.system = -1 // an empty system prompt, as Content decodes null
			return i + len("null"), true
		}
		sc.system = i
		return w.scanContent(i)
	})
	if !ok {
		return nil, false
	}
	if raw, ok := r.Fields["messages"]; !ok || string(raw) == "null" {
		// checkRequest's first check: messages named in another case
		// are not messages to it.
		sc.badRole = InvalidRequest("messages: Field required")
	}
	if twice {
		// ParseRequest refuses it before it decodes anything.
		sc.badRole = errMessagesTwice
	}
	return r, true
}

// scanMessage checks the message at i as encoding/json decodes it into a
// Message, by HistoryReader's rules: member names matched without regard
// to case or escapes, a repeated member's last value, a null that leaves
// the role as it was and empties the content, a null message one of no
// role. signed reports an assistant turn with thinking the gateway signed
// (hasGatewayThinking). A role checkRequest rejects is recorded in
// sc.badRole (the first one only), not a failure: the rest of the body is
// still checked, so that its error is the one ParseRequest returns.
func (w *walker) scanMessage(i int, sc *requestScan) (end int, signed, ok bool) {
	var role []byte
	var seenRole, seenContent, unsettled bool
	// odd is a message encoding/json reads otherwise than by its first
	// member named exactly content, as a passthrough's own walk of the
	// history does (azure's cleaner): SignedHistory leaves it to that walk.
	odd := false
	if jsonbytes.HasAt(w.data, i, "null") {
		end, ok = i+len("null"), true
	} else {
		end, ok = w.object(i, func(name []byte, i int) (end int, ok bool) {
			member := w.messageMember(name)
			null := jsonbytes.HasAt(w.data, i, "null")
			switch member {
			case "role":
				odd = odd || seenRole || null || string(name) != member
				seenRole = true
				if null {
					return i + len("null"), true
				}
				// A role of another type is encoding/json's error to word.
				if w.data[i] != '"' {
					return 0, false
				}
				if end = jsonbytes.ValidString(w.data, i); end < 0 {
					return 0, false
				}
				raw := w.data[i+1 : end-1]
				if bytes.IndexByte(raw, '\\') < 0 && jsonbytes.ValidUTF8(raw) {
					role = raw
					return end, true
				}
				// Decoded into the walker's own buffer, which nothing
				// else in a message uses: a role costs no allocation.
				var err error
				if w.role, err = jsonbytes.AppendDecoded(w.role[:0], raw); err != nil {
					return 0, false
				}
				role = w.role
				return end, true
			case "content":
				odd = odd || seenContent || null || string(name) != member
				// The last content is the message's: a null one (odd
				// already) empties it, as Content.UnmarshalJSON does.
				seenContent, signed, unsettled = true, false, false
				if null {
					return i + len("null"), true
				}
				end, ok = w.scanBlocks(i, &signed, &unsettled)
				if ok && !unsettled {
					unsettled = !surelyContent(w.data[i:end])
				}
				return end, ok
			}
			return w.skip(i)
		})
	}
	if !ok {
		return 0, false, false
	}
	sc.unsettled = sc.unsettled || unsettled || !seenContent || odd
	assistant := string(role) == "assistant"
	sc.lastUser = string(role) == "user"
	if !assistant && !sc.lastUser && string(role) != "system" && sc.badRole == nil {
		sc.badRole = InvalidRequest(fmt.Sprintf("messages.%d.role: must be \"user\" or \"assistant\", got %q", sc.nMessages-1, role))
	}
	return end, signed && assistant, true
}

// messageMember is the Message field, role or content, encoding/json
// matches the member name raw to ("" for neither).
func (w *walker) messageMember(raw []byte) string {
	switch string(raw) { // the constants, not string(raw): no allocation
	case "role":
		return "role"
	case "content":
		return "content"
	}
	if jsonbytes.PlainName(raw, messageFields) {
		return "" // no field's name in any case
	}
	switch {
	case w.names.nameIs(raw, "role"):
		return "role"
	case w.names.nameIs(raw, "content"):
		return "content"
	}
	return ""
}

// surelyContent reports content whose value, raw, is surely not empty: a
// list with an element, or a string with a printable ASCII character,
// written as itself, that no trimming of white space removes.
func surelyContent(raw []byte) bool {
	if raw[0] == '[' {
		return len(bytes.TrimSpace(raw[1:len(raw)-1])) > 0
	}
	for j := 1; j < len(raw)-1; j++ {
		switch c := raw[j]; {
		case c == '\\':
			if raw[j+1] == 'u' {
				j += 4
			}
			j++ // the escape, whatever it stands for
		case c > ' ' && c < 0x7f:
			return true
		}
	}
	return false
}

// scanContent checks a Content at i as content does.
func (w *walker) scanContent(i int) (end int, ok bool) {
	return w.scanBlocks(i, nil, nil)
}

// scanBlocks checks a Content at i as content does, and sets *signed when
// one of its blocks is thinking with the gateway's envelope and *unsettled
// when one is not surely signed by another (signed and unsettled nil: not
// looked for; see Request.SignedHistory).
func (w *walker) scanBlocks(i int, signed, unsettled *bool) (end int, ok bool) {
	data := w.data
	if i >= len(data) {
		return 0, false
	}
	switch data[i] {
	case '"':
		end = jsonbytes.ValidString(data, i)
		return end, end >= 0
	case '[':
		return w.array(i, func(i int) (int, bool) {
			end, gw, other, ok := w.scanBlock(i)
			if gw && signed != nil {
				*signed = true
			}
			if !other && unsettled != nil {
				*unsettled = true
			}
			return end, ok
		})
	}
	return 0, false
}

// scanBlock checks the block object at i as block does, and reports a
// thinking block whose signature, or a redacted_thinking block whose data,
// has the gateway's envelope shape (gatewaySigned), and whether the block
// is surely no thinking without another's signature: not thinking or
// redacted_thinking, or one whose signature or data is there, not empty
// and not the gateway's envelope, its type and that string without escapes
// (otherSigned). Members are read by encoding/json's rules, as
// HistoryReader reads them: a name matched without regard to case or
// escapes, a repeated member's last value, a null that leaves a string as
// it was. A passthrough's own walk of the history (azure's cleaner) reads
// a block by its first member named type, signature or data exactly, its
// value raw: a block with such a member (odd) is otherSigned when none of
// its members the walk may take for its type is thinking or
// redacted_thinking, written as itself: the walk keeps it whatever it holds.
func (w *walker) scanBlock(i int) (end int, gatewaySigned, otherSigned, ok bool) {
	data := w.data
	seen := 0
	var thinking, redacted, envelope, dataEnvelope, escapedType, odd, walkThinking bool
	var sigLen, dataLen int // -1: with an escape
	end, ok = w.object(i, func(name []byte, i int) (int, bool) {
		if escaped := bytes.IndexByte(name, '\\') >= 0; escaped || string(name) == "type" {
			walkThinking = walkThinking || jsonbytes.HasAt(data, i, `"thinking"`) || jsonbytes.HasAt(data, i, `"redacted_thinking"`)
			// A walk may read an escaped name otherwise than encoding/json
			// (or not at all: a lone surrogate), and with it the members
			// after it: the block is settled only if it cannot be thinking.
			odd = odd || escaped
		}
		f, plain := rawBlockField(name)
		if !plain {
			for field, bit := range rawBlockFields {
				if w.names.nameIs(name, field) {
					f, odd = bit, true
					break
				}
			}
		}
		if f == 0 {
			return w.skip(i)
		}
		odd = odd || seen&f != 0
		seen |= f
		if jsonbytes.HasAt(data, i, "null") {
			// A string or is_error stays as it was; a source or content
			// is emptied, which the findings do not look at.
			odd = true
			return i + len("null"), true
		}
		switch f {
		case rbInput:
			return w.skip(i)
		case rbIsError:
			switch {
			case jsonbytes.HasAt(data, i, "true"):
				return i + 4, true
			case jsonbytes.HasAt(data, i, "false"):
				return i + 5, true
			}
			return 0, false
		case rbSource:
			return w.scanSource(i)
		case rbContent:
			return w.scanContent(i)
		case rbType, rbSignature, rbData:
			s, end, ok := w.strBytes(i)
			n := len(s)
			if ok && end-i-2 != n {
				n = -1 // escaped: every escape is longer than what it stands for
			}
			if !ok {
				// Invalid UTF-8 or a lone surrogate escape: the text
				// encoding/json makes of it (U+FFFD for each), never
				// surely another's signature.
				s, end, ok = w.decodedBytes(i)
				n = -1
			}
			switch f {
			case rbType:
				thinking, redacted = string(s) == "thinking", string(s) == "redacted_thinking"
				escapedType = n < 0
			case rbSignature:
				envelope, sigLen = IsGatewaySignature(s), n
			default:
				dataEnvelope, dataLen = IsGatewaySignature(s), n
			}
			return end, ok
		}
		// Text the scan does not read is stepped over, escapes and all;
		// its UTF-8 is left to Complete, as encoding/json accepts any.
		if data[i] != '"' {
			return 0, false
		}
		end = jsonbytes.ValidString(data, i)
		return end, end >= 0
	})
	otherSigned = !escapedType && (!thinking && !redacted ||
		thinking && sigLen > 0 && !envelope || redacted && dataLen > 0 && !dataEnvelope)
	if odd {
		otherSigned = !walkThinking
	}
	return end, thinking && envelope || redacted && dataEnvelope, otherSigned, ok
}

// scanSource checks a block's source at i: ok when Source.UnmarshalJSON
// accepts it, which for an object means every member encoding/json
// matches to a field it knows (in any case, escaped or not, repeated or
// not) is a string or null. An image's base64 data is stepped over a
// vector at a time instead of decoded.
func (w *walker) scanSource(i int) (end int, ok bool) {
	data := w.data
	if data[i] == '"' {
		end = jsonbytes.ValidString(data, i)
		return end, end >= 0
	}
	return w.object(i, func(name []byte, i int) (int, bool) {
		if !w.sourceField(name) {
			return w.skip(i)
		}
		switch data[i] {
		case '"':
			end := jsonbytes.ValidString(data, i)
			return end, end >= 0
		case 'n':
			if jsonbytes.HasAt(data, i, "null") {
				return i + 4, true
			}
		}
		return 0, false
	})
}

// sourceField reports whether encoding/json matches the member name raw
// to a field of Source.
func (w *walker) sourceField(raw []byte) bool {
	switch string(raw) {
	case "type", "media_type", "data", "url":
		return true
	}
	return w.names.nameIs(raw, "type") || w.names.nameIs(raw, "media_type") ||
		w.names.nameIs(raw, "data") || w.names.nameIs(raw, "url")
}

// hasGatewayThinking reports an assistant turn with a thinking block whose
// signature, or a redacted_thinking block whose data, has the gateway's
// envelope shape: the blocks a passthrough must rewrite (verified or not).
func hasGatewayThinking(msgs []Message) bool {
	for _, m := range msgs {
		if m.Role != "assistant" {
			continue
		}
		for _, b := range m.Content.Blocks {
			if b.Type == "thinking" && IsGatewaySignature(b.Signature) ||
				b.Type == "redacted_thinking" && IsGatewaySignature(b.Data) {
				return true
			}
		}
	}
	return false
}

// SignaturePrefix marks the gateway's envelope; Anthropic's own signatures never
// start with it, so they pass through untouched.
const SignaturePrefix = "tg1"

// IsGatewaySignature reports whether sig has the gateway's envelope shape,
// whichever key signed it.
func IsGatewaySignature[S string | []byte](sig S) bool {
	return len(sig) > len(SignaturePrefix)+1 && string(sig[:len(SignaturePrefix)]) == SignaturePrefix && sig[len(SignaturePrefix)+1] == '.'
}
