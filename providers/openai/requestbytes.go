package openai

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
)

// An agent's request carries its whole history on every turn, and nearly
// all of it is text that goes upstream unchanged: decoding each string
// into Go and escaping it again cost more than everything else the gateway
// does to a request. byteConverter writes the Chat Completions body
// straight from the client's bytes, which ScanRequest has checked as
// ParseRequest checks them: a string is copied as it is when the escaper
// would write the same bytes, else with only its escapes rewritten
// (jsonbytes.AppendCanonicalBody), and only the few values the conversion
// reads (block types, tool names, sources) are decoded. It writes exactly what the typed converter writes; the
// differential fuzz target holds it to that.

// fromBytes reports whether the configuration's conversion is one
// byteConverter makes: mistral and openrouter history rebuild thinking
// blocks from their signatures, which is left to the typed converter.
func (c *converter) fromBytes() bool {
	switch c.cfg.ReasoningHistory {
	case HistoryMistral, HistoryOpenRouter:
		return false
	}
	return true
}

// byteConverter is one conversion from the client's bytes.
type byteConverter struct {
	*converter
	data []byte // the client's body
	out  []byte // the upstream's body
	// scratch holds a tool call's compacted arguments.
	scratch []byte
	// segs are the pieces of the message being built: its text, or its
	// parts' (user), or its content's (assistant); rsegs the reasoning's,
	// tsegs a tool result's.
	segs, rsegs, tsegs []seg
	parts              []part
	// content is the Content being converted: the system prompt's, or a
	// message's.
	content providers.RawContent
	calls   []call
	wrote   bool // a message is written: the next one needs a comma
}

// str is one of the client's strings, as the shared reader reads it.
type str = providers.RawString

// seg is a piece of a text: one of the client's strings, or the gateway's
// own text (lit). The decoded pieces are valid UTF-8, so the escaped whole
// is the escaped pieces one after another.
type seg struct {
	str
	lit   string
	isRaw bool
}

func rawSeg(s str) seg    { return seg{str: s, isRaw: true} }
func litSeg(s string) seg { return seg{lit: s} }

// part is a user message's content part: a text, or an image whose URL is
// segs[lo:hi].
type part struct {
	image  bool
	lo, hi int
}

// call is one tool_use of an assistant message.
type call struct {
	id    str
	name  string // as sent upstream
	input []byte // the raw value, nil if absent
}

// rawBlock is a block as the shared reader reads it, the client's strings
// as they are. A message's blocks are read in one walk before they are
// converted, whatever the order of their members.
type rawBlock = providers.RawBlock

// typeOf is blk's type, decoded.
func typeOf(blk *rawBlock) []byte { return blk.Type.Text(nil) }

// sourceType is the type of a block's source, decoded; a plain string
// source (a search result's) is type "string", as Source decodes it.
func sourceType(src *providers.RawSource) string {
	if src.IsString {
		return "string"
	}
	return src.Type.TextString()
}

// convert writes the body: out's fields around the messages converted
// from the client's bytes (messages and system are the indexes of those
// values in b.data, -1 if absent).
func (b *byteConverter) convert(out *chatRequest, messages, system int) ([]byte, error) {
	b.out = b.x.NewBody(len(b.x.Body) + 512)
	b.out = append(b.out, `{"model":"`...)
	b.out = jsonbytes.AppendStringBodyNoHTML(b.out, []byte(out.Model))
	b.out = append(b.out, `","messages":[`...)
	if err := b.systemPrompt(system); err != nil {
		return nil, err
	}
	if messages >= 0 {
		i := 0
		_, err := jsonbytes.ScanArrayAt(b.data, messages, func(at int) (int, error) {
			end, err := b.message(i, at)
			i++
			return end, err
		})
		if err != nil {
			return nil, err
		}
	}
	b.out = append(b.out, ']')

	// The other fields, written by the encoder the typed converter uses,
	// after the two it writes first.
	rest := *out
	rest.Model, rest.Messages = "", nil
	tail, err := jsonbytes.Encode(&rest, 512)
	if err != nil {
		return nil, err
	}
	const head = `{"model":"","messages":null`
	if !bytes.HasPrefix(tail, []byte(head)) {
		return nil, fmt.Errorf("openai: unexpected request encoding %.40q", tail)
	}
	return append(b.out, tail[len(head):]...), nil
}

// systemPrompt writes the system message: the system prompt's text and
// the thinking hint.
func (b *byteConverter) systemPrompt(at int) error {
	b.segs = b.segs[:0]
	if at >= 0 {
		if _, err := b.content.Read(b.data, at); err != nil {
			return err
		}
		if err := b.systemText(b.content.Blocks, -1); err != nil {
			return err
		}
	}
	if b.hinted {
		if len(b.segs) > 0 {
			b.segs = append(b.segs, litSeg("\n"))
		}
		if h := b.x.Settings.Hint(b.x.Request.Thinking); h != "" {
			b.segs = append(b.segs, litSeg(h))
		}
	}
	if len(b.segs) > 0 {
		b.textMessage("system", b.segs)
	}
	return nil
}

// systemText collects into b.segs the text blocks of the system prompt
// (msg -1) or of system message msg, joined by newlines.
func (b *byteConverter) systemText(blks []rawBlock, msg int) error {
	for j := range blks {
		blk := &blks[j]
		if typ := typeOf(blk); string(typ) != "text" {
			path := fmt.Sprintf("system.%d", j)
			if msg >= 0 {
				path = fmt.Sprintf("messages.%d.content.%d", msg, j)
			}
			return unsupported(path, fmt.Sprintf("content block type %q in a system prompt", typ))
		}
		b.segs = joinSeg(b.segs, blk.Text)
	}
	return nil
}

// joinSeg appends a non-empty text to segs, after a newline if segs holds
// text already.
func joinSeg(segs []seg, s str) []seg {
	if len(s.Raw) == 0 { // a string body decodes empty only when it is empty
		return segs
	}
	if len(segs) > 0 {
		segs = append(segs, litSeg("\n"))
	}
	return append(segs, rawSeg(s))
}

// message converts the message object at at, the i-th.
func (b *byteConverter) message(i, at int) (int, error) {
	var m providers.RawMessage
	b.content.Reset()
	end, err := providers.ReadRawMessage(b.data, at, &m, func(at int) (int, error) {
		return b.content.Read(b.data, at)
	})
	if err != nil {
		return -1, err
	}
	role := m.Role.Text(nil)
	switch string(role) {
	case "system":
		// Claude Code sends one after the user turn: it stays in place.
		b.segs = b.segs[:0]
		if err := b.systemText(b.content.Blocks, i); err != nil {
			return -1, err
		}
		b.textMessage("system", b.segs)
	case "assistant":
		err = b.assistant(i, b.content.Blocks)
	default:
		err = b.user(i, b.content.Blocks)
	}
	return end, err
}

// user converts a user turn: its tool_result blocks become role "tool"
// messages, written as they come, ahead of the message with the turn's
// other content.
func (b *byteConverter) user(i int, blks []rawBlock) error {
	b.segs, b.parts = b.segs[:0], b.parts[:0]
	tools := 0
	for j := range blks {
		blk := &blks[j]
		switch typ := typeOf(blk); string(typ) {
		case "text":
			b.partText(blk.Text)
		case "image":
			if err := b.partImage(blk, func() string { return fmt.Sprintf("messages.%d.content.%d.source", i, j) }); err != nil {
				return err
			}
		case "document":
			// A plain-text document is text; PDFs have no portable form.
			if src := &blk.Source; !src.Present || sourceType(src) != "text" {
				st := "missing"
				if src.Present {
					st = sourceType(src) + " " + src.MediaType.TextString()
				}
				return unsupported(fmt.Sprintf("messages.%d.content.%d", i, j), fmt.Sprintf("document block (source %s)", strings.TrimSpace(st)))
			}
			b.partText(blk.Source.Data)
		case "tool_result":
			tools++
			if err := b.toolResult(i, j, blk); err != nil {
				return err
			}
		default:
			return unsupported(fmt.Sprintf("messages.%d.content.%d", i, j), fmt.Sprintf("content block type %q in a user message", typ))
		}
	}
	switch {
	case len(b.parts) == 1 && !b.parts[0].image:
		// A plain string when there are no images, the form every
		// OpenAI-compatible server takes.
		b.textMessage("user", b.segs)
	case len(b.parts) > 0:
		b.startMessage()
		b.out = append(b.out, `{"role":"user","content":[`...)
		for k, p := range b.parts {
			if k > 0 {
				b.out = append(b.out, ',')
			}
			if p.image {
				b.out = append(b.out, `{"type":"image_url","image_url":{"url":"`...)
				b.appendSegs(b.segs[p.lo:p.hi])
				b.out = append(b.out, `"}}`...)
			} else {
				b.out = append(b.out, `{"type":"text","text":"`...)
				b.appendSegs(b.segs[p.lo:p.hi])
				b.out = append(b.out, `"}`...)
			}
		}
		b.out = append(b.out, `]}`...)
	case tools == 0:
		b.textMessage("user", nil)
	}
	return nil
}

// partText adds a text to the user message's parts: consecutive texts
// merge into one part, joined by a newline.
func (b *byteConverter) partText(s str) {
	if len(s.Raw) == 0 {
		return
	}
	if n := len(b.parts); n > 0 && !b.parts[n-1].image {
		b.segs = append(b.segs, litSeg("\n"), rawSeg(s))
		b.parts[n-1].hi = len(b.segs)
		return
	}
	lo := len(b.segs)
	b.segs = append(b.segs, rawSeg(s))
	b.parts = append(b.parts, part{lo: lo, hi: len(b.segs)})
}

// partImage adds an image part for the image blk; path words the error
// for a source with no URL form.
func (b *byteConverter) partImage(blk *rawBlock, path func() string) error {
	lo := len(b.segs)
	src := &blk.Source
	switch st := sourceType(src); {
	case src.Present && st == "base64":
		b.segs = append(b.segs, litSeg("data:"), rawSeg(src.MediaType), litSeg(";base64,"), rawSeg(src.Data))
	case src.Present && st == "url":
		b.segs = append(b.segs, rawSeg(src.URL))
	default:
		typ := "missing"
		if src.Present {
			typ = fmt.Sprintf("%q", st)
		}
		return unsupported(path(), "image source type "+typ)
	}
	b.parts = append(b.parts, part{image: true, lo: lo, hi: len(b.segs)})
	return nil
}

// toolResult writes the tool message of the tool_result blk, block j of
// message i. A tool message takes only text, so images the tool returned
// go to the user message that follows.
func (b *byteConverter) toolResult(i, j int, blk *rawBlock) error {
	b.tsegs = b.tsegs[:0]
	images := 0
	subs := b.content.Content(blk)
	for k := range subs {
		rb := &subs[k]
		switch typ := typeOf(rb); string(typ) {
		case "text":
			b.tsegs = joinSeg(b.tsegs, rb.Text)
		case "image":
			if err := b.partImage(rb, func() string { return fmt.Sprintf("messages.%d.content.%d.content.%d.source", i, j, k) }); err != nil {
				return err
			}
			images++
		default:
			return unsupported(fmt.Sprintf("messages.%d.content.%d.content.%d", i, j, k), fmt.Sprintf("content block type %q in a tool_result", typ))
		}
	}
	b.startMessage()
	b.out = append(b.out, `{"role":"tool","content":"`...)
	if blk.IsError {
		b.out = append(b.out, "Error: "...)
	}
	if images > 0 && len(b.tsegs) == 0 {
		b.out = append(b.out, "(the tool returned an image; it follows in the next user message)"...)
	}
	b.appendSegs(b.tsegs)
	b.out = append(b.out, '"')
	if len(blk.ToolUseID.Raw) > 0 {
		b.out = append(b.out, `,"tool_call_id":"`...)
		b.appendStr(blk.ToolUseID)
		b.out = append(b.out, '"')
	}
	b.out = append(b.out, '}')
	return nil
}

// assistant converts an assistant turn: text and history thinking (as tags
// in place, or as reasoning_content) become the content, tool_use blocks the
// tool_calls.
func (b *byteConverter) assistant(i int, blks []rawBlock) error {
	b.segs, b.rsegs, b.calls = b.segs[:0], b.rsegs[:0], b.calls[:0]
	asReasoning := b.cfg.ReasoningHistory == HistoryReasoningContent
	hasReasoning := false
	contentLen := 0
	for j := range blks {
		blk := &blks[j]
		switch typ := typeOf(blk); string(typ) {
		case "text":
			// The model's own output, split by the gateway, rejoins exactly.
			if len(blk.Text.Raw) > 0 {
				b.segs = append(b.segs, rawSeg(blk.Text))
				contentLen += len(blk.Text.Raw)
			}
		case "thinking":
			switch {
			case asReasoning:
				// The field is the upstream's protocol, not a prompt, so
				// it goes back whether or not thinking is on.
				if hasReasoning && len(blk.Thinking.Raw) > 0 {
					b.rsegs = append(b.rsegs, litSeg("\n\n"))
				}
				b.rsegs = append(b.rsegs, rawSeg(blk.Thinking))
				hasReasoning = true
			case b.hinted && len(blk.Thinking.Raw) > 0:
				b.segs = append(b.segs, litSeg("<"+b.tag+">"), rawSeg(blk.Thinking), litSeg("</"+b.tag+">"))
				contentLen += len(blk.Thinking.Raw) + 1
			}
			// Thinking off, or asked for without the hint: history
			// thinking is dropped, so the model is not shown a format it
			// was not asked for.
		case "redacted_thinking":
			// Encrypted for Anthropic alone: nothing an OpenAI model can read.
		case "tool_use":
			b.calls = append(b.calls, call{id: blk.ID, name: b.state.shorten(blk.Name.TextString()), input: blk.Input})
		default:
			return unsupported(fmt.Sprintf("messages.%d.content.%d", i, j), fmt.Sprintf("content block type %q in an assistant message", typ))
		}
	}
	if contentLen == 0 && len(b.calls) == 0 {
		// Nothing an upstream accepts (only thinking, dropped): leave the turn out.
		return nil
	}
	b.startMessage()
	b.out = append(b.out, `{"role":"assistant","content":`...)
	if contentLen > 0 {
		b.out = append(b.out, '"')
		b.appendSegs(b.segs)
		b.out = append(b.out, '"')
	} else {
		b.out = append(b.out, "null"...)
	}
	if asReasoning && (hasReasoning || len(b.calls) > 0) {
		// DeepSeek rejects a tool-calling assistant message without the field.
		b.out = append(b.out, `,"reasoning_content":"`...)
		b.appendSegs(b.rsegs)
		b.out = append(b.out, '"')
	}
	if len(b.calls) > 0 {
		b.out = append(b.out, `,"tool_calls":[`...)
		for k, c := range b.calls {
			if k > 0 {
				b.out = append(b.out, ',')
			}
			b.out = append(b.out, `{"id":"`...)
			b.appendStr(c.id)
			b.out = append(b.out, `","type":"function","function":{"name":"`...)
			b.out = jsonbytes.AppendStringBodyNoHTML(b.out, []byte(c.name))
			b.out = append(b.out, `","arguments":"`...)
			if c.input == nil {
				b.out = append(b.out, "{}"...)
			} else {
				b.scratch = jsonbytes.AppendCompact(b.scratch[:0], c.input)
				b.out = jsonbytes.AppendStringBodyNoHTML(b.out, b.scratch)
			}
			b.out = append(b.out, `"}}`...)
		}
		b.out = append(b.out, ']')
	}
	b.out = append(b.out, '}')
	return nil
}

// startMessage writes the comma before every message but the first.
func (b *byteConverter) startMessage() {
	if b.wrote {
		b.out = append(b.out, ',')
	}
	b.wrote = true
}

// textMessage writes a message of role whose content is the text segs.
func (b *byteConverter) textMessage(role string, segs []seg) {
	b.startMessage()
	b.out = append(b.out, `{"role":"`...)
	b.out = append(b.out, role...)
	b.out = append(b.out, `","content":"`...)
	b.appendSegs(segs)
	b.out = append(b.out, `"}`...)
}

// appendSegs writes segs, escaped, one after another.
func (b *byteConverter) appendSegs(segs []seg) {
	for _, s := range segs {
		if s.isRaw {
			b.appendStr(s.str)
		} else {
			b.out = jsonbytes.AppendStringBodyNoHTML(b.out, []byte(s.lit))
		}
	}
}

// appendStr writes one of the client's strings as the escaper writes its
// value: as it is when canonical, else with its escapes rewritten. The
// scan checked it is a string.
func (b *byteConverter) appendStr(s str) {
	if s.Canonical {
		b.out = append(b.out, s.Raw...)
		return
	}
	b.out, _ = jsonbytes.AppendCanonicalBody(b.out, s.Raw)
}

// ScansRequest: the handler reads a request with ScanRequest, and
// ConvertRequest writes the upstream's body from the client's bytes.
func (p *Provider) ScansRequest() bool { return true }

var _ providers.RequestScanner = (*Provider)(nil)
