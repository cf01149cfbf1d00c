package anthropic

import (
	"bytes"
	"errors"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
)

// Decoding a long history into Go to rewrite a few of its thinking blocks,
// then encoding all of it again, cost several times what the rest of the
// request did. unsigner writes the same body straight from the client's
// bytes, which ScanRequest has checked as ParseRequest checks them: every
// message is written as the typed path writes it ({"role":…,"content":…},
// blocks compacted as sent), and only the assistant turns with thinking the
// gateway signed are rewritten, block by block. Whatever it does not
// handle exactly (a request ParseRequest decoded, a value it cannot read)
// goes to unsignHistory, the reference the differential fuzz target holds
// it to.

// unsignFromBytes turns the byte path off: the differential fuzz target
// compares both ways.
var unsignFromBytes = true

// errTyped leaves a request to the typed path.
var errTyped = errors.New("anthropic: left to the typed path")

// unsigner rewrites the messages of one request from the client's bytes.
type unsigner struct {
	data   []byte // the client's messages array
	out    []byte
	opener *providers.Opener
	// thinking and sig hold a block's decoded thinking and signature when
	// they are escaped in the client's bytes.
	thinking, sig []byte
	// changed: a turn was rewritten; lastLacksThinking: the last assistant
	// turn written calls a tool without opening with thinking
	// (toolTurnLacksThinking).
	changed, lastLacksThinking bool
	wrote                      bool // a message is written: the next needs a comma
	lastAssistant              bool // the last message written is an assistant turn
}

// rewriteFromBytes is RewriteBody's history rewrite from the client's
// bytes, with changed as RewriteBody has it so far (the model). ok is
// false for a request left to the typed path, which nothing has changed
// then but the model.
func rewriteFromBytes(x *providers.Exchange, changed bool) (body []byte, ok bool) {
	req := x.Request
	raw, has := req.Fields["messages"]
	if !unsignFromBytes || !req.Scanned() || !has || x.Settings == nil {
		return nil, false
	}
	u := &unsigner{data: raw, opener: x.Settings.Signer.NewOpener()}
	body, encoded, err := x.MarshalRequest(func(dst []byte) ([]byte, error) {
		u.out = dst
		if err := u.messages(); err != nil {
			return nil, err
		}
		if !u.changed {
			// Nothing to rewrite after all: the history as the typed
			// path forwards it.
			return providers.AppendCompactHTML(dst, raw), nil
		}
		// As in RewriteBody: a tool turn whose thinking became text cannot
		// open with thinking, so thinking goes for this request.
		if _, ok := req.Fields["thinking"]; ok && req.Thinking.Enabled(false) && u.lastLacksThinking {
			delete(req.Fields, "thinking")
		}
		return u.out, nil
	})
	switch {
	case err != nil:
		return nil, false
	case !u.changed && !changed:
		return x.Body, true
	case u.changed:
		req.SetMessagesJSON(encoded)
	}
	return body, true
}

// messages writes the messages array.
func (u *unsigner) messages() error {
	u.out = append(u.out, '[')
	end, err := jsonbytes.ScanArrayAt(u.data, 0, u.message)
	if err != nil || jsonbytes.SkipSpace(u.data, end) != len(u.data) {
		return errTyped
	}
	u.out = append(u.out, ']')
	return nil
}

// message writes the message at at as appendMessages writes it, or
// nothing for an assistant turn left empty.
func (u *unsigner) message(at int) (int, error) {
	mark := len(u.out)
	if u.wrote {
		u.out = append(u.out, ',')
	}
	start := len(u.out)
	var role []byte
	content := -1
	// A content before the role (as encoding/json writes a map) is written
	// for the role the turns' alternation suggests, and written again
	// if the role is another.
	guess := u.wrote && !u.lastAssistant
	changed, lacks := u.changed, u.lastLacksThinking
	dropped, prefixed := false, false
	end, err := jsonbytes.ScanObjectAt(u.data, at, func(key []byte, at int) (int, error) {
		switch string(key) {
		case "role":
			end, escaped, _ := jsonbytes.ScanString(u.data, at)
			if end < 0 || escaped {
				return -1, errTyped
			}
			role = u.data[at+1 : end-1]
			return end, nil
		case "content":
			content = at
			if role != nil {
				guess, prefixed = string(role) == "assistant", true
				u.appendPrefix(role)
			}
			end, drop, err := u.content(guess, at)
			dropped = drop
			return end, err
		}
		_, _, end, err := jsonbytes.SkipValue(u.data, at)
		return end, err
	})
	if err != nil || role == nil {
		return -1, errTyped
	}
	assistant := string(role) == "assistant"
	switch {
	case content < 0:
		u.appendPrefix(role)
		u.out = append(u.out, "null"...)
		u.lastLacksThinking = u.lastLacksThinking && !assistant
	case guess != assistant:
		u.out, u.changed, u.lastLacksThinking = u.out[:start], changed, lacks
		u.appendPrefix(role)
		if _, dropped, err = u.content(assistant, content); err != nil {
			return -1, err
		}
	case !prefixed:
		// Written before the role was known: the start goes in front.
		n := len(u.out)
		u.appendPrefix(role)
		var buf [32]byte // the longest role the scan accepts is "assistant"
		prefix := append(buf[:0], u.out[n:]...)
		copy(u.out[start+len(prefix):], u.out[start:n])
		copy(u.out[start:], prefix)
	}
	if dropped {
		u.out = u.out[:mark]
		return end, nil
	}
	u.out = append(u.out, '}')
	u.wrote, u.lastAssistant = true, assistant
	return end, nil
}

// appendPrefix writes the start of a message of role, up to its content.
func (u *unsigner) appendPrefix(role []byte) {
	u.out = append(u.out, `{"role":"`...)
	u.out = append(u.out, role...)
	u.out = append(u.out, `","content":`...)
}

// content writes the content at at of an assistant turn or another's;
// drop reports an assistant turn whose every block was the gateway's.
func (u *unsigner) content(assistant bool, at int) (end int, drop bool, err error) {
	switch u.data[at] {
	case '"':
		if assistant {
			u.lastLacksThinking = false
		}
		end, err = u.appendString(at)
		return end, false, err
	case '[':
	default:
		return -1, false, errTyped
	}
	if !assistant {
		end = u.appendCompact(at)
		if end < 0 {
			return -1, false, errTyped
		}
		return end, false, nil
	}
	return u.assistantBlocks(at)
}

// assistantBlocks writes the blocks of an assistant turn: each as sent,
// but the gateway's thinking, which becomes <thinking> text where it stood
// or goes (unsignBlocks).
func (u *unsigner) assistantBlocks(at int) (end int, drop bool, err error) {
	u.out = append(u.out, '[')
	kept, touched, hasTool := 0, false, false
	var first string // the type of the first block written
	end, err = jsonbytes.ScanArrayAt(u.data, at, func(at int) (int, error) {
		b, end, err := u.readBlock(at)
		if err != nil {
			return -1, err
		}
		typ := b.typ
		switch {
		case typ == blockThinking && providers.IsGatewaySignature(string(b.sig)):
			touched = true
			origin, _, ok := u.opener.Open(b.sig, b.thinking)
			if !ok || origin != providers.OriginTags {
				return end, nil // foreign or stale: dropped
			}
			typ = blockText
			u.startBlock(kept)
			u.out = append(u.out, `{"type":"text","text":"\u003cthinking\u003e`...)
			u.appendBody(b.thinkingRaw, b.thinkingCanonical, b.thinking)
			u.out = append(u.out, `\u003c/thinking\u003e"}`...)
		case typ == blockRedacted && providers.IsGatewaySignature(string(b.data)):
			touched = true
			return end, nil
		default:
			u.startBlock(kept)
			u.out = providers.AppendCompactHTML(u.out, u.data[at:end])
		}
		if kept == 0 {
			first = typ
		}
		kept++
		hasTool = hasTool || typ == blockToolUse
		return end, nil
	})
	if err != nil {
		return -1, false, errTyped
	}
	u.changed = u.changed || touched
	if touched && kept == 0 {
		return end, true, nil
	}
	u.out = append(u.out, ']')
	u.lastLacksThinking = hasTool && first != blockThinking && first != blockRedacted
	return end, false, nil
}

// Block types the rewrite tells apart, compared as interned strings.
const (
	blockText     = "text"
	blockThinking = "thinking"
	blockRedacted = "redacted_thinking"
	blockToolUse  = "tool_use"
	blockOther    = "other"
)

// readBlock is what the rewrite reads of a block.
type readBlock struct {
	typ           string
	thinking, sig []byte // decoded
	data          []byte // decoded
	// thinkingRaw is the thinking string's body as sent, and
	// thinkingCanonical whether json.Marshal without HTML escaping writes
	// its text so (jsonbytes.ScanString).
	thinkingRaw       []byte
	thinkingCanonical bool
}

// startBlock writes the comma before every block but the first.
func (u *unsigner) startBlock(kept int) {
	if kept > 0 {
		u.out = append(u.out, ',')
	}
}

// readBlock reads the block object at at.
func (u *unsigner) readBlock(at int) (b readBlock, end int, err error) {
	var typ, thinking, sig, data []byte
	thinkingPlain := false
	end, err = jsonbytes.ScanObjectAt(u.data, at, func(key []byte, at int) (int, error) {
		var field *[]byte
		switch string(key) {
		case "type":
			field = &typ
		case "thinking":
			field = &thinking
		case "signature":
			field = &sig
		case "data":
			field = &data
		default:
			_, _, end, err := jsonbytes.SkipValue(u.data, at)
			return end, err
		}
		if u.data[at] != '"' {
			return -1, errTyped
		}
		end, escaped, canonical := jsonbytes.ScanString(u.data, at)
		if end < 0 {
			return -1, errTyped
		}
		*field = u.data[at+1 : end-1]
		if string(key) == "thinking" {
			// Without an escape, canonical bytes are the text itself.
			b.thinkingRaw, b.thinkingCanonical, thinkingPlain = *field, canonical, !escaped && canonical
		}
		return end, nil
	})
	if err != nil {
		return b, -1, errTyped
	}
	switch string(decodedShort(typ)) {
	case blockText:
		b.typ = blockText
	case blockThinking:
		b.typ = blockThinking
	case blockRedacted:
		b.typ = blockRedacted
	case blockToolUse:
		b.typ = blockToolUse
	default:
		b.typ = blockOther
	}
	switch b.typ {
	case blockThinking:
		b.sig = decodedInto(&u.sig, sig)
		if b.thinking = thinking; !thinkingPlain && thinking != nil {
			b.thinking = decodedInto(&u.thinking, thinking)
		}
	case blockRedacted:
		b.data = decodedInto(nil, data)
	}
	return b, end, nil
}

// decodedShort decodes a short string body, a block's type.
func decodedShort(raw []byte) []byte {
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw
	}
	return decodedInto(nil, raw)
}

// decodedInto returns the text encoding/json decodes from raw, a string
// body: raw itself when it holds no escape and is valid UTF-8, else
// decoded into *buf, reused (nil: a new slice). Raw, a slice of the
// client's body, is never kept in *buf, which is written to.
func decodedInto(buf *[]byte, raw []byte) []byte {
	if bytes.IndexByte(raw, '\\') < 0 && jsonbytes.ValidUTF8(raw) {
		return raw
	}
	var dst []byte
	if buf != nil {
		dst = (*buf)[:0]
	}
	v, _ := jsonbytes.AppendDecoded(dst, raw)
	if buf != nil {
		*buf = v
	}
	return v
}

// appendString writes the string at at as json.Marshal writes the text
// encoding/json decodes from it, and returns the index past it.
func (u *unsigner) appendString(at int) (int, error) {
	end, _, canonical := jsonbytes.ScanString(u.data, at)
	if end < 0 {
		return -1, errTyped
	}
	u.out = append(u.out, '"')
	u.appendBody(u.data[at+1:end-1], canonical, nil)
	u.out = append(u.out, '"')
	return end, nil
}

// appendBody writes raw, a string's body as sent (canonical: as
// jsonbytes.ScanString found it; decoded: its text, or nil), as json.Marshal
// writes its text: the client's bytes when they are already so, else the
// text escaped again.
func (u *unsigner) appendBody(raw []byte, canonical bool, decoded []byte) {
	if canonical && bytes.IndexByte(raw, '<') < 0 && bytes.IndexByte(raw, '>') < 0 && bytes.IndexByte(raw, '&') < 0 {
		u.out = append(u.out, raw...)
		return
	}
	if decoded == nil {
		decoded = decodedInto(nil, raw)
	}
	u.out, _ = jsonbytes.AppendStringBody(u.out, decoded)
}

// appendCompact writes the array or object at at as MarshalFields writes
// a raw value (providers.AppendCompactHTML), and returns the index past it
// (-1 if malformed). Most of a history is the user's content, sent
// compact and with nothing to escape: its end is found a string at a time
// and its bytes are copied as they are.
func (u *unsigner) appendCompact(at int) int {
	data := u.data
	depth, spaced := 0, false
	for j := at; j < len(data); j++ {
		switch data[j] {
		case '"':
			end, _ := jsonbytes.StringEnd(data[j+1:])
			if end < 0 {
				return -1
			}
			j += 1 + end
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth > 0 {
				continue
			}
			raw := data[at : j+1]
			if spaced || htmlEscaped(raw) {
				u.out = providers.AppendCompactHTML(u.out, raw)
			} else {
				u.out = append(u.out, raw...)
			}
			return j + 1
		case ' ', '\t', '\n', '\r':
			spaced = true
		}
	}
	return -1
}

// htmlEscaped reports whether json.Marshal would escape a byte of the JSON
// text raw: <, >, &, U+2028 or U+2029.
func htmlEscaped(raw []byte) bool {
	return bytes.IndexByte(raw, '<') >= 0 || bytes.IndexByte(raw, '>') >= 0 || bytes.IndexByte(raw, '&') >= 0 ||
		bytes.IndexByte(raw, 0xE2) >= 0 && (bytes.Contains(raw, []byte("\u2028")) || bytes.Contains(raw, []byte("\u2029")))
}
