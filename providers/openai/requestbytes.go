package openai

import (
	"bytes"
	"fmt"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// An agent's request carries its whole history on every turn, and nearly
// all of it is text that goes upstream unchanged: decoding each string
// into Go and escaping it again cost more than everything else the gateway
// does to a request. byteConverter writes the Chat Completions body
// straight from the client's bytes, which ParseRequest or ScanRequest has
// checked: a string is copied as it is when the escaper would write the
// same bytes, else with only its escapes rewritten
// (jsonbytes.AppendCanonicalBody), and only the few values the conversion
// reads (block types, tool names, sources, the signatures of history
// thinking) are decoded.
//
// A message is read one block at a time (wire.HistoryReader), in as many
// passes as the parts of its upstream form that come in another order
// than its blocks (a user turn's tool messages before its text, an
// assistant turn's content, reasoning and tool calls): nothing is kept
// per block, so the conversion holds the upstream body and a few buffers,
// whatever the history's shape. The typed converter the tests keep
// (request_typed_test.go) is the reference it is held to, byte for byte.

// byteConverter is one conversion from the client's bytes.
type byteConverter struct {
	*converter
	h   *wire.HistoryReader
	out []byte // the upstream's body
	// blk and sub are the block being read and, in a tool_result, its
	// content's.
	blk, sub wire.HistoryBlock
	// details are an assistant turn's OpenRouter reasoning details,
	// encoded, and consumed the indexes of the blocks they came from.
	details  []byte
	consumed []int
	wrote    bool // a message is written: the next one needs a comma
}

// str is one of the client's strings, as the shared reader reads it.
type str = wire.RawString

// rawBlock is a block as the shared reader reads it.
type rawBlock = wire.HistoryBlock

// typeOf is blk's type, decoded.
func typeOf(blk *rawBlock) []byte { return blk.Type.Text(nil) }

// sourceType is the type of a block's source, decoded; a plain string
// source (a search result's) is type "string", as Source decodes it.
func sourceType(src *wire.RawSource) string {
	if src.IsString {
		return "string"
	}
	return src.Type.TextString()
}

// convert writes the body: out's fields around the system prompt and the
// messages, converted from the client's bytes.
func (b *byteConverter) convert(out *chatRequest) ([]byte, error) {
	x := b.x
	h, err := wire.NewHistoryReader(x.Body)
	if err != nil {
		return nil, wire.InvalidRequest("invalid request: " + err.Error())
	}
	b.h = h
	b.out = x.NewBody(BodySizeHint(x.Body))
	b.out = append(b.out, `{"model":"`...)
	b.out = jsonbytes.AppendStringBodyNoHTML(b.out, []byte(out.Model))
	b.out = append(b.out, `","messages":[`...)
	if err := b.systemPrompt(h.System()); err != nil {
		return nil, err
	}
	if err := h.EachMessage(b.message); err != nil {
		return nil, err
	}
	b.out = append(b.out, ']')

	// The other fields, written by the encoder the reference uses, after
	// the two written first.
	rest := *out
	rest.Model, rest.Messages = "", nil
	lo := len(b.out)
	out2, err := jsonbytes.AppendEncode(b.out, &rest)
	if err != nil {
		return nil, err
	}
	const head = `{"model":"","messages":null`
	if !bytes.HasPrefix(out2[lo:], []byte(head)) {
		return nil, fmt.Errorf("openai: unexpected request encoding %.40q", out2[lo:])
	}
	// The fields after the two written first, moved over the encoding's
	// own start.
	n := copy(out2[lo:], out2[lo+len(head):])
	return out2[:lo+n], nil
}

// BodySizeHint is the room to ask for the upstream body converted from
// body: the body, and a byte for each quote and backslash in it. Escaped
// again in a string (a tool call's arguments) each of those takes two; the
// rest of the upstream body is about as long as the client's, or shorter.
// Growing the body past its first buffer would hold both buffers at once,
// so the room errs high.
func BodySizeHint(body []byte) int {
	return len(body) + bytes.Count(body, []byte{'"'}) + bytes.Count(body, []byte{'\\'}) + 512
}

// systemPrompt writes the system message: the system prompt's text and
// the thinking hint.
func (b *byteConverter) systemPrompt(system []byte) error {
	texts, breakpoints := 0, 0
	if system != nil {
		var err error
		if texts, breakpoints, err = b.systemTexts(system, -1, false); err != nil {
			return err
		}
	}
	hint := ""
	if b.hinted {
		hint = b.x.Settings.Hint(b.x.Request.Thinking)
	}
	if texts == 0 && hint == "" {
		return nil
	}
	if breakpoints > 0 {
		b.systemParts(system, hint)
		return nil
	}
	b.textMessageStart("system")
	if texts > 0 {
		_, _, _ = b.systemTexts(system, -1, true)
	}
	if b.hinted {
		if texts > 0 {
			b.out = append(b.out, `\n`...)
		}
		b.out = jsonbytes.AppendStringBodyNoHTML(b.out, []byte(hint))
	}
	b.out = append(b.out, `"}`...)
	return nil
}

// systemTexts reads the text blocks of the system prompt (msg -1) or of
// system message msg, and returns how many are not empty and how many of
// those carry a breakpoint the upstream takes; write writes them, joined
// by newlines, once they are known to be text.
func (b *byteConverter) systemTexts(content []byte, msg int, write bool) (n, breakpoints int, err error) {
	err = b.h.EachBlock(content, &b.blk, func(j int, blk *rawBlock) error {
		if typ := typeOf(blk); string(typ) != "text" {
			path := fmt.Sprintf("system.%d", j)
			if msg >= 0 {
				path = fmt.Sprintf("messages.%d.content.%d", msg, j)
			}
			return unsupported(path, fmt.Sprintf("content block type %q in a system prompt", typ))
		}
		if len(blk.Text.Raw) == 0 { // a string body decodes empty only when it is empty
			return nil
		}
		if write {
			if n > 0 {
				b.out = append(b.out, `\n`...)
			}
			b.appendStr(blk.Text)
		} else if b.breakpoint(blk.Raw) != nil {
			breakpoints++
		}
		n++
		return nil
	})
	return n, breakpoints, err
}

// systemParts writes a system message whose texts carry breakpoints as
// text parts (OpenRouter's form): a breakpoint ends its part, the hint is
// the last text.
func (b *byteConverter) systemParts(content []byte, hint string) {
	b.startMessage()
	b.out = append(b.out, `{"role":"system","content":[`...)
	w := partWriter{b: b}
	_ = b.h.EachBlock(content, &b.blk, func(_ int, blk *rawBlock) error {
		w.text(blk.Text, b.breakpoint(blk.Raw))
		return nil
	})
	if hint != "" {
		w.text(str{Raw: jsonbytes.AppendStringBodyNoHTML(nil, []byte(hint)), Canonical: true}, nil)
	}
	w.end()
	b.out = append(b.out, `]}`...)
}

// message converts message m, the i-th.
func (b *byteConverter) message(i int, m *wire.HistoryMessage) (err error) {
	role, content := m.Role, m.Content
	switch string(role.Text(nil)) {
	case "system":
		// Claude Code sends one after the user turn: it stays in place.
		breakpoints := 0
		if content != nil {
			if _, breakpoints, err = b.systemTexts(content, i, false); err != nil {
				return err
			}
		}
		if breakpoints > 0 {
			b.systemParts(content, "")
			return nil
		}
		b.textMessageStart("system")
		if content != nil {
			_, _, _ = b.systemTexts(content, i, true)
		}
		b.out = append(b.out, `"}`...)
	case "assistant":
		err = b.assistant(i, content)
	default:
		err = b.user(i, content)
	}
	return err
}

// eachBlock is HistoryReader.EachBlock of a message's content, nil for
// none.
func (b *byteConverter) eachBlock(content []byte, fn func(j int, blk *rawBlock) error) error {
	if content == nil {
		return nil
	}
	err := b.h.EachBlock(content, &b.blk, fn)
	return err
}

// userParts is what a user turn's first pass finds: its content parts
// (consecutive texts merge into one), whether the first is an image, and
// its tool results.
type userParts struct {
	parts, tools int
	breakpoints  int
	firstImage   bool
	inText       bool
}

// text adds a text; a breakpoint (OpenRouter's) ends the part it is in.
func (p *userParts) text(s str, breakpoint bool) {
	if len(s.Raw) == 0 {
		return
	}
	if !p.inText {
		if p.parts == 0 {
			p.firstImage = false
		}
		p.parts++
		p.inText = true
	}
	if breakpoint {
		p.breakpoints++
		p.inText = false
	}
}

func (p *userParts) image() {
	if p.parts == 0 {
		p.firstImage = true
	}
	p.parts++
	p.inText = false
}

// user converts a user turn: its tool_result blocks become role "tool"
// messages, written in a first pass as they come, ahead of the message
// with the turn's other content, written in a second.
func (b *byteConverter) user(i int, content []byte) error {
	var p userParts
	err := b.eachBlock(content, func(j int, blk *rawBlock) error {
		switch typ := typeOf(blk); string(typ) {
		case "text":
			p.text(blk.Text, b.breakpoint(blk.Raw) != nil)
		case "image":
			if err := checkImage(blk, func() string { return fmt.Sprintf("messages.%d.content.%d.source", i, j) }); err != nil {
				return err
			}
			p.image()
		case "document":
			// A plain-text document is text, a base64 PDF a file part.
			if err := checkDocument(blk, i, j); err != nil {
				return err
			}
			if isPDF(blk) {
				p.image() // a part that is not text, as an image is
			} else {
				p.text(blk.Source.Data, b.breakpoint(blk.Raw) != nil)
			}
		case "tool_result":
			p.tools++
			images, err := b.toolResult(i, j, blk)
			for range images {
				p.image()
			}
			return err
		default:
			return unsupported(fmt.Sprintf("messages.%d.content.%d", i, j), fmt.Sprintf("content block type %q in a user message", typ))
		}
		return nil
	})
	switch {
	case err != nil:
		return err
	case p.parts == 1 && !p.firstImage && p.breakpoints == 0:
		// A plain string when there are no images, the form every
		// OpenAI-compatible server takes.
		b.textMessageStart("user")
		first := true
		_ = b.eachBlock(content, func(_ int, blk *rawBlock) error {
			if s := userText(blk); s != nil && len(s.Raw) > 0 {
				if !first {
					b.out = append(b.out, `\n`...)
				}
				b.appendStr(*s)
				first = false
			}
			return nil
		})
		b.out = append(b.out, `"}`...)
	case p.parts > 0:
		b.startMessage()
		b.out = append(b.out, `{"role":"user","content":[`...)
		w := partWriter{b: b}
		_ = b.eachBlock(content, func(_ int, blk *rawBlock) error {
			if s := userText(blk); s != nil {
				w.text(*s, b.breakpoint(blk.Raw))
				return nil
			}
			switch string(typeOf(blk)) {
			case "image":
				w.image(blk)
			case "document": // a PDF: userText took the others
				w.file(blk)
			case "tool_result":
				_ = b.h.EachBlock(blk.ContentRaw, &b.sub, func(_ int, rb *rawBlock) error {
					if string(typeOf(rb)) == "image" {
						w.image(rb)
					}
					return nil
				})
			}
			return nil
		})
		w.end()
		b.out = append(b.out, `]}`...)
	case p.tools == 0:
		b.textMessageStart("user")
		b.out = append(b.out, `"}`...)
	}
	return nil
}

// userText is the text a user turn's block adds to its parts: a text
// block's, a document's; nil for any other block.
func userText(blk *rawBlock) *str {
	switch string(typeOf(blk)) {
	case "text":
		return &blk.Text
	case "document":
		if !isPDF(blk) {
			return &blk.Source.Data
		}
	}
	return nil
}

// partWriter writes a message's content parts: consecutive texts merge
// into one part, joined by a newline, up to a text with a breakpoint,
// whose cache_control closes the part.
type partWriter struct {
	b      *byteConverter
	parts  int
	inText bool
}

func (w *partWriter) text(s str, breakpoint []byte) {
	if len(s.Raw) == 0 {
		return
	}
	b := w.b
	if w.inText {
		b.out = append(b.out, `\n`...)
	} else {
		if w.parts > 0 {
			b.out = append(b.out, ',')
		}
		b.out = append(b.out, `{"type":"text","text":"`...)
		w.parts++
		w.inText = true
	}
	b.appendStr(s)
	if breakpoint != nil {
		b.out = append(b.out, `","cache_control":`...)
		b.out = append(b.out, breakpoint...)
		b.out = append(b.out, '}')
		w.inText = false
	}
}

func (w *partWriter) image(blk *rawBlock) {
	b := w.b
	w.end()
	if w.parts > 0 {
		b.out = append(b.out, ',')
	}
	w.parts++
	b.out = append(b.out, `{"type":"image_url","image_url":{"url":"`...)
	src := &blk.Source
	if sourceType(src) == "base64" {
		b.out = append(b.out, "data:"...)
		b.appendStr(src.MediaType)
		b.out = append(b.out, ";base64,"...)
		b.appendStr(src.Data)
	} else {
		b.appendStr(src.URL)
	}
	b.out = append(b.out, `"}}`...)
}

// end closes the text part under way.
func (w *partWriter) end() {
	if w.inText {
		w.b.out = append(w.b.out, `"}`...)
		w.inText = false
	}
}

// checkImage reports an image source with no URL form; path words the
// error.
func checkImage(blk *rawBlock, path func() string) error {
	src := &blk.Source
	switch st := sourceType(src); {
	case src.Present && (st == "base64" || st == "url"):
		return nil
	case src.Present:
		return unsupported(path(), fmt.Sprintf("image source type %q", st))
	}
	return unsupported(path(), "image source type missing")
}

// toolResult writes the tool message of the tool_result blk, block j of
// message i, and returns the number of its images. A tool message takes
// only text, so images the tool returned go to the user message that
// follows.
func (b *byteConverter) toolResult(i, j int, blk *rawBlock) (images int, err error) {
	texts := 0
	if blk.ContentRaw != nil {
		err = b.h.EachBlock(blk.ContentRaw, &b.sub, func(k int, rb *rawBlock) error {
			switch typ := typeOf(rb); string(typ) {
			case "text":
				if len(rb.Text.Raw) > 0 {
					texts++
				}
			case "image":
				if err := checkImage(rb, func() string { return fmt.Sprintf("messages.%d.content.%d.content.%d.source", i, j, k) }); err != nil {
					return err
				}
				images++
			default:
				return unsupported(fmt.Sprintf("messages.%d.content.%d.content.%d", i, j, k), fmt.Sprintf("content block type %q in a tool_result", typ))
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	b.startMessage()
	b.out = append(b.out, `{"role":"tool","content":"`...)
	if blk.IsError {
		b.out = append(b.out, "Error: "...)
	}
	if images > 0 && texts == 0 {
		b.out = append(b.out, "(the tool returned an image; it follows in the next user message)"...)
	}
	if texts > 0 {
		first := true
		_ = b.h.EachBlock(blk.ContentRaw, &b.sub, func(_ int, rb *rawBlock) error {
			if len(rb.Text.Raw) > 0 && string(typeOf(rb)) == "text" {
				if !first {
					b.out = append(b.out, `\n`...)
				}
				b.appendStr(rb.Text)
				first = false
			}
			return nil
		})
	}
	b.out = append(b.out, '"')
	if len(blk.ToolUseID.Raw) > 0 {
		b.out = append(b.out, `,"tool_call_id":"`...)
		b.appendStr(blk.ToolUseID)
		b.out = append(b.out, '"')
	}
	b.out = append(b.out, '}')
	return images, nil
}

// assistantTurn is what an assistant turn's first pass finds.
type assistantTurn struct {
	content      bool // text or tags for the content
	reasoning    bool // thinking for reasoning_content
	chunks       bool // thinking for Mistral's chunks
	calls        int
	details      int
	textRun      bool // Mistral: the last chunk is text
	reasoningRun bool // reasoning_content: a thinking block came
}

// assistant converts an assistant turn: text and history thinking (as tags
// in place, as reasoning_content, as Mistral's thinking chunks, as
// OpenRouter's reasoning details) become the content, tool_use blocks the
// tool_calls.
func (b *byteConverter) assistant(i int, content []byte) error {
	hist := b.cfg.ReasoningHistory
	var t assistantTurn
	b.details, b.consumed = b.details[:0], b.consumed[:0]
	err := b.eachBlock(content, func(j int, blk *rawBlock) error {
		if hist == HistoryOpenRouter && b.openRouterDetail(j, blk) {
			return nil
		}
		switch typ := typeOf(blk); string(typ) {
		case "text":
			t.content = t.content || len(blk.Text.Raw) > 0
		case "thinking":
			switch {
			case hist == HistoryMistral:
				t.chunks = t.chunks || len(blk.Thinking.Raw) > 0
			case hist == HistoryReasoningContent:
				t.reasoning = true
			case b.hinted && len(blk.Thinking.Raw) > 0:
				t.content = true
			}
		case "redacted_thinking":
			// Encrypted for Anthropic alone: nothing an OpenAI model can read.
		case "tool_use":
			t.calls++
		default:
			return unsupported(fmt.Sprintf("messages.%d.content.%d", i, j), fmt.Sprintf("content block type %q in an assistant message", typ))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !t.content && t.calls == 0 {
		// Nothing an upstream accepts (only thinking, dropped): leave the turn out.
		return nil
	}
	b.startMessage()
	b.out = append(b.out, `{"role":"assistant","content":`...)
	switch {
	case t.chunks:
		b.mistralChunks(content)
	case t.content:
		b.out = append(b.out, '"')
		b.assistantText(content)
		b.out = append(b.out, '"')
	default:
		b.out = append(b.out, "null"...)
	}
	if hist == HistoryReasoningContent && (t.reasoning || t.calls > 0) {
		// DeepSeek rejects a tool-calling assistant message without the field.
		b.out = append(b.out, `,"reasoning_content":"`...)
		b.reasoningText(content)
		b.out = append(b.out, '"')
	}
	if len(b.details) > 0 {
		b.out = append(b.out, `,"reasoning_details":[`...)
		b.out = append(b.out, b.details...)
		b.out = append(b.out, ']')
	}
	if t.calls > 0 {
		b.out = append(b.out, `,"tool_calls":[`...)
		k := 0
		_ = b.eachBlock(content, func(_ int, blk *rawBlock) error {
			if string(typeOf(blk)) != "tool_use" {
				return nil
			}
			if k > 0 {
				b.out = append(b.out, ',')
			}
			k++
			b.toolCall(blk)
			return nil
		})
		b.out = append(b.out, ']')
	}
	b.out = append(b.out, '}')
	return nil
}

// openRouterDetail reports a history block, block j of the turn, that
// the gateway made from an OpenRouter reasoning detail, and adds the
// detail it goes back as to b.details.
func (b *byteConverter) openRouterDetail(j int, blk *rawBlock) bool {
	var block wire.Block
	switch typ := string(typeOf(blk)); typ {
	case "thinking":
		block = wire.Block{Type: typ, Thinking: blk.Thinking.TextString(), Signature: blk.Signature.TextString()}
	case "redacted_thinking":
		block = wire.Block{Type: typ, Data: blk.Data.TextString()}
	default:
		return false
	}
	d, ok := b.openRouterHistory(block)
	if !ok {
		return false
	}
	enc, err := jsonbytes.Encode(d, 256)
	if err != nil {
		return false
	}
	if len(b.details) > 0 {
		b.details = append(b.details, ',')
	}
	b.details = append(b.details, enc...)
	b.consumed = append(b.consumed, j)
	return true
}

// assistantText writes the turn's content: its text, and its thinking as
// tags when the hint asked for them.
func (b *byteConverter) assistantText(content []byte) {
	tags := b.hinted && b.cfg.ReasoningHistory != HistoryMistral && b.cfg.ReasoningHistory != HistoryReasoningContent
	next := 0 // in b.consumed, whose indexes rise
	_ = b.eachBlock(content, func(j int, blk *rawBlock) error {
		if next < len(b.consumed) && b.consumed[next] == j {
			next++
			return nil
		}
		switch string(typeOf(blk)) {
		case "text":
			// The model's own output, split by the gateway, rejoins exactly.
			b.appendStr(blk.Text)
		case "thinking":
			if tags && len(blk.Thinking.Raw) > 0 {
				b.out = append(b.out, '<')
				b.out = jsonbytes.AppendStringBodyNoHTML(b.out, []byte(b.tag))
				b.out = append(b.out, '>')
				b.appendStr(blk.Thinking)
				b.out = append(b.out, '<', '/')
				b.out = jsonbytes.AppendStringBodyNoHTML(b.out, []byte(b.tag))
				b.out = append(b.out, '>')
			}
			// Thinking off, or asked for without the hint: history
			// thinking is dropped, so the model is not shown a format it
			// was not asked for.
		}
		return nil
	})
}

// reasoningText writes the turn's thinking as reasoning_content, blocks
// joined by a blank line. The field is the upstream's protocol, not a
// prompt, so it goes back whether or not thinking is on.
func (b *byteConverter) reasoningText(content []byte) {
	any := false
	_ = b.eachBlock(content, func(_ int, blk *rawBlock) error {
		if string(typeOf(blk)) == "thinking" {
			if any && len(blk.Thinking.Raw) > 0 {
				b.out = append(b.out, `\n\n`...)
			}
			b.appendStr(blk.Thinking)
			any = true
		}
		return nil
	})
}

// mistralChunks writes the turn's content in Mistral's chunk form:
// thinking chunks where the thinking blocks were (Mistral's own form, in
// place; like reasoning_content it is protocol, sent whether or not
// thinking is on), the text between them joined as it was.
func (b *byteConverter) mistralChunks(content []byte) {
	b.out = append(b.out, '[')
	n, inText := 0, false
	_ = b.eachBlock(content, func(_ int, blk *rawBlock) error {
		switch string(typeOf(blk)) {
		case "text":
			if len(blk.Text.Raw) == 0 {
				return nil
			}
			if !inText {
				if n > 0 {
					b.out = append(b.out, ',')
				}
				n++
				b.out = append(b.out, `{"type":"text","text":"`...)
				inText = true
			}
			b.appendStr(blk.Text)
		case "thinking":
			if len(blk.Thinking.Raw) == 0 {
				return nil
			}
			if inText {
				b.out = append(b.out, `"}`...)
				inText = false
			}
			if n > 0 {
				b.out = append(b.out, ',')
			}
			n++
			b.out = append(b.out, `{"type":"thinking","thinking":[{"type":"text","text":"`...)
			b.appendStr(blk.Thinking)
			b.out = append(b.out, `"}]}`...)
		}
		return nil
	})
	if inText {
		b.out = append(b.out, `"}`...)
	}
	b.out = append(b.out, ']')
}

// toolCall writes the tool call of the tool_use blk.
func (b *byteConverter) toolCall(blk *rawBlock) {
	b.out = append(b.out, `{"id":"`...)
	b.appendStr(blk.ID)
	b.out = append(b.out, `","type":"function","function":{"name":"`...)
	b.out = jsonbytes.AppendStringBodyNoHTML(b.out, []byte(b.state.shorten(blk.Name.TextString())))
	b.out = append(b.out, `","arguments":"`...)
	if blk.Input == nil || string(blk.Input) == "null" {
		b.out = append(b.out, "{}"...)
	} else {
		b.out = jsonbytes.AppendCompactStringBody(b.out, blk.Input)
	}
	b.out = append(b.out, `"}}`...)
}

// startMessage writes the comma before every message but the first.
func (b *byteConverter) startMessage() {
	if b.wrote {
		b.out = append(b.out, ',')
	}
	b.wrote = true
}

// textMessageStart opens a message of role whose content is a string;
// the caller writes the string's body and `"}`.
func (b *byteConverter) textMessageStart(role string) {
	b.startMessage()
	b.out = append(b.out, `{"role":"`...)
	b.out = append(b.out, role...)
	b.out = append(b.out, `","content":"`...)
}

// appendStr writes one of the client's strings as the escaper writes its
// value: as it is when canonical, else with its escapes rewritten.
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
