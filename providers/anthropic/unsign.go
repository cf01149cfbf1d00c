package anthropic

import (
	"bytes"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// Decoding a long history into Go to rewrite a few of its thinking blocks,
// then encoding all of it again, cost several times what the rest of the
// request did. unsigner writes the new history straight from the client's
// bytes, read as encoding/json decodes them (wire.HistoryReader),
// one block at a time: every message is written as MarshalFields writes a
// Message ({"role":…,"content":…}, blocks compacted as sent), and only the
// assistant turns with thinking the gateway signed are rewritten, block by
// block. It handles every request the request parse accepts, however the
// handler read it; unsign_typed_test.go keeps the typed rewrite it
// replaced as the reference FuzzUnsignBytesMatchesTyped holds it to.

// unsigner rewrites the messages of one request from the client's bytes.
type unsigner struct {
	h      *wire.HistoryReader
	data   []byte // the content being written
	out    []byte
	opener *emit.Opener
	block  wire.HistoryBlock
	// thinking and sig hold a block's decoded thinking and signature when
	// they are escaped in the client's bytes.
	thinking, sig []byte
	// changed: a turn was rewritten; lastLacksThinking: the last assistant
	// turn written calls a tool without opening with thinking.
	changed, lastLacksThinking bool
	wrote                      bool // a message is written: the next needs a comma
}

// rewriteHistory is RewriteBody's history rewrite, with changed as
// RewriteBody has it so far (the model).
func rewriteHistory(x *providers.Exchange, changed bool) ([]byte, error) {
	req := x.Request
	h, err := wire.NewHistoryReader(x.Body)
	if err != nil {
		return nil, wire.InvalidRequest("invalid request: " + err.Error())
	}
	var signer *emit.Signer
	if x.Settings != nil {
		signer = x.Settings.Signer
	}
	u := &unsigner{h: h, opener: signer.NewOpener()}
	body, encoded, err := x.MarshalRequest(func(dst []byte) ([]byte, error) {
		u.out = dst
		if err := u.messages(); err != nil {
			return nil, err
		}
		if !u.changed {
			// Nothing to rewrite after all: the history as sent.
			return wire.AppendCompactHTML(dst, req.Fields["messages"]), nil
		}
		// A tool turn whose thinking became text cannot open with
		// thinking, which Anthropic wants of the assistant turn of a tool
		// loop when thinking is on: thinking goes for this request (as on
		// Azure).
		if _, ok := req.Fields["thinking"]; ok && req.Thinking.Enabled(false) && u.lastLacksThinking {
			delete(req.Fields, "thinking")
		}
		return u.out, nil
	})
	switch {
	case err != nil:
		return nil, err
	case !u.changed && !changed:
		return x.Body, nil
	case u.changed:
		req.SetMessagesJSON(encoded)
	}
	return body, nil
}

// messages writes the messages array.
func (u *unsigner) messages() error {
	u.out = append(u.out, '[')
	if err := u.h.EachMessage(u.message); err != nil {
		return err
	}
	u.out = append(u.out, ']')
	return nil
}

// message writes a message as MarshalFields writes a Message, or nothing
// for an assistant turn the rewrite left empty.
func (u *unsigner) message(_ int, m *wire.HistoryMessage) error {
	mark := len(u.out)
	if u.wrote {
		u.out = append(u.out, ',')
	}
	// The request parse accepts these three roles only.
	role := "user"
	switch {
	case m.Role.Is("assistant"):
		role = "assistant"
	case m.Role.Is("system"):
		role = "system"
	}
	assistant := role == "assistant"
	u.appendPrefix(role)
	if m.Content == nil {
		u.out = append(u.out, "null"...)
		u.lastLacksThinking = u.lastLacksThinking && !assistant
	} else {
		dropped, err := u.content(assistant, m.Content)
		if err != nil {
			return err
		}
		if dropped {
			u.out = u.out[:mark]
			return nil
		}
	}
	u.out = append(u.out, '}')
	u.wrote = true
	return nil
}

// appendPrefix writes the start of a message of role, up to its content.
func (u *unsigner) appendPrefix(role string) {
	u.out = append(u.out, `{"role":"`...)
	u.out = append(u.out, role...)
	u.out = append(u.out, `","content":`...)
}

// content writes the content of an assistant turn or another's; drop
// reports an assistant turn whose every block was the gateway's.
func (u *unsigner) content(assistant bool, content []byte) (drop bool, err error) {
	u.data = content
	switch content[0] {
	case '"':
		if assistant {
			u.lastLacksThinking = false
		}
		_, err = u.appendString(0)
		return false, err
	case '[':
	default:
		return false, errHistory
	}
	if !assistant {
		if u.appendCompact(0) < 0 {
			return false, errHistory
		}
		return false, nil
	}
	return u.assistantBlocks(content)
}

// errHistory is a history the request parse would not have accepted.
var errHistory = wire.InvalidRequest("invalid request: messages: malformed content")

// assistantBlocks writes the blocks of an assistant turn: each as sent,
// but the gateway's thinking, which becomes <thinking> text where it stood
// (tag-derived) or goes (foreign, or an envelope that does not verify:
// signed under another key, or altered; Anthropic would reject the whole
// request for it, and nothing vouches for its text). A redacted_thinking
// block whose data is the gateway's envelope wraps another upstream's
// encrypted reasoning, never Anthropic's: it goes too.
func (u *unsigner) assistantBlocks(content []byte) (drop bool, err error) {
	u.out = append(u.out, '[')
	kept, touched, hasTool := 0, false, false
	firstThinking := false // the first block written is thinking or redacted_thinking
	err = u.h.EachBlock(content, &u.block, func(_ int, b *wire.HistoryBlock) error {
		thinking, redacted := b.Type.Is(blockThinking), b.Type.Is(blockRedacted)
		switch {
		case thinking && wire.IsGatewaySignature(u.decoded(&b.Signature, &u.sig)):
			touched = true
			text := u.decoded(&b.Thinking, &u.thinking)
			origin, _, ok := u.opener.Open(u.decoded(&b.Signature, &u.sig), text)
			if !ok || origin != emit.OriginTags {
				return nil // foreign or stale: dropped
			}
			thinking = false
			u.startBlock(kept)
			u.out = append(u.out, `{"type":"text","text":"\u003cthinking\u003e`...)
			u.appendBody(b.Thinking.Raw, b.Thinking.Canonical, text)
			u.out = append(u.out, `\u003c/thinking\u003e"}`...)
		case redacted && wire.IsGatewaySignature(u.decoded(&b.Data, nil)):
			touched = true
			return nil
		default:
			u.startBlock(kept)
			u.out = wire.AppendCompactHTML(u.out, b.Raw)
		}
		if kept == 0 {
			firstThinking = thinking || redacted
		}
		kept++
		hasTool = hasTool || b.Type.Is(blockToolUse)
		return nil
	})
	if err != nil {
		return false, err
	}
	u.changed = u.changed || touched
	if touched && kept == 0 {
		return true, nil
	}
	u.out = append(u.out, ']')
	u.lastLacksThinking = hasTool && !firstThinking
	return false, nil
}

// Block types the rewrite tells apart.
const (
	blockThinking = "thinking"
	blockRedacted = "redacted_thinking"
	blockToolUse  = "tool_use"
)

// startBlock writes the comma before every block but the first.
func (u *unsigner) startBlock(kept int) {
	if kept > 0 {
		u.out = append(u.out, ',')
	}
}

// decoded returns s's text: its bytes when they are the text, else
// decoded into *buf (nil: a new slice).
func (u *unsigner) decoded(s *wire.RawString, buf *[]byte) []byte {
	if s.Plain() {
		return s.Raw
	}
	return decodedInto(buf, s.Raw)
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
		return -1, errHistory
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
// a raw value (wire.AppendCompactHTML), and returns the index past it
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
				u.out = wire.AppendCompactHTML(u.out, raw)
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
