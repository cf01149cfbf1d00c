package responses

import (
	"bytes"
	"fmt"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/openai"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// byteConverter writes the Responses body's instructions and input items
// straight from the client's bytes, as the openai provider's converter
// writes its messages (see providers/openai/requestbytes.go): strings
// copied as they are when the escaper would write the same bytes, a
// message read one block at a time (wire.HistoryReader) in as many passes
// as the order of its items needs, nothing kept per block. The typed
// converter the tests keep (request_typed_test.go) is the reference it is
// held to, byte for byte.
type byteConverter struct {
	*converter
	h        *wire.HistoryReader
	out      []byte
	blk, sub wire.HistoryBlock
	items    int  // items written: the next needs a comma
	inText   bool // an assistant output_text is open
	// opener checks the history's signatures from the client's bytes,
	// decoded into sig and text when they hold escapes: a block's text is
	// not copied into a Go string to be checked.
	opener    *emit.Opener
	sig, text []byte
}

type rawBlock = wire.HistoryBlock

func typeOf(blk *rawBlock) []byte { return blk.Type.Text(nil) }

// sourceType is the type of a block's source, decoded; a plain string
// source is type "string", as Source decodes it.
func sourceType(src *wire.RawSource) string {
	if src.IsString {
		return "string"
	}
	return src.Type.TextString()
}

// convert writes the body: out's fields around the instructions and the
// input items.
func (b *byteConverter) convert(out *request) ([]byte, error) {
	x := b.x
	h, err := wire.NewHistoryReader(x.Body)
	if err != nil {
		return nil, wire.InvalidRequest("invalid request: " + err.Error())
	}
	b.h = h
	system := h.System()
	texts, err := b.systemTexts(system, "system", false)
	if err != nil {
		return nil, err
	}
	// A message item spends up to 72 bytes more than the client's message
	// (`{"type":"message","role":"assistant","content":[{"type":"output_text","text":…,"annotations":[]}]}`
	// for `{"role":"assistant","content":…}`).
	b.out = x.NewBody(openai.BodySizeHint(x.Body) + 72*x.Request.MessageCount())
	b.out = append(b.out, `{"model":"`...)
	b.out = jsonbytes.AppendStringBodyNoHTML(b.out, []byte(out.Model))
	b.out = append(b.out, '"')
	if texts > 0 {
		b.out = append(b.out, `,"instructions":"`...)
		_, _ = b.systemTexts(system, "system", true)
		b.out = append(b.out, '"')
	}
	b.out = append(b.out, `,"input":[`...)
	if err := h.EachMessage(b.message); err != nil {
		return nil, err
	}
	b.out = append(b.out, ']')

	// The other fields, written by the encoder the reference uses.
	var rest any
	if x.CountTokens {
		rest = &countRequest{Tools: out.Tools, ToolChoice: out.ToolChoice, ParallelToolCalls: out.ParallelToolCalls, Reasoning: out.Reasoning}
	} else {
		r := *out
		r.Model, r.Instructions, r.Input = "", "", nil
		rest = &r
	}
	lo := len(b.out)
	out2, err := jsonbytes.AppendEncode(b.out, rest)
	if err != nil {
		return nil, err
	}
	const head = `{"model":"","input":null`
	if !bytes.HasPrefix(out2[lo:], []byte(head)) {
		return nil, fmt.Errorf("responses: unexpected request encoding %.40q", out2[lo:])
	}
	// The fields after the two written first, moved over the encoding's
	// own start.
	n := copy(out2[lo:], out2[lo+len(head):])
	return out2[:lo+n], nil
}

// systemTexts reads the text blocks of a system prompt or system message
// (content, at path) and returns how many are not empty; write writes
// them, joined by newlines, once they are known to be text.
func (b *byteConverter) systemTexts(content []byte, path string, write bool) (int, error) {
	if content == nil {
		return 0, nil
	}
	n := 0
	err := b.h.EachBlock(content, &b.blk, func(j int, blk *rawBlock) error {
		if typ := typeOf(blk); string(typ) != "text" {
			return unsupported(fmt.Sprintf("%s.%d", path, j), fmt.Sprintf("content block type %q in a system prompt", typ))
		}
		if len(blk.Text.Raw) == 0 {
			return nil
		}
		if write {
			if n > 0 {
				b.out = append(b.out, `\n`...)
			}
			b.appendStr(blk.Text)
		}
		n++
		return nil
	})
	return n, err
}

// message converts message m, the i-th.
func (b *byteConverter) message(i int, m *wire.HistoryMessage) (err error) {
	role, content := m.Role, m.Content
	switch string(role.Text(nil)) {
	case "system":
		// Claude Code sends one after the user turn: it stays in place.
		path := fmt.Sprintf("messages.%d.content", i)
		if _, err := b.systemTexts(content, path, false); err != nil {
			return err
		}
		b.startItem()
		b.out = append(b.out, `{"type":"message","role":"system","content":[{"type":"input_text","text":"`...)
		_, _ = b.systemTexts(content, path, true)
		b.out = append(b.out, `"}]}`...)
	case "assistant":
		err = b.assistant(i, content)
	default:
		err = b.user(i, content)
	}
	return err
}

// eachBlock is HistoryReader.EachBlock of a message's content, nil for none.
func (b *byteConverter) eachBlock(content []byte, fn func(j int, blk *rawBlock) error) error {
	if content == nil {
		return nil
	}
	err := b.h.EachBlock(content, &b.blk, fn)
	return err
}

// startItem writes the comma before every input item but the first.
func (b *byteConverter) startItem() {
	if b.items > 0 {
		b.out = append(b.out, ',')
	}
	b.items++
}

// user converts a user turn: tool_result blocks become
// function_call_output items, written in a first pass as they come, ahead
// of one message item with the turn's other content, written in a second.
func (b *byteConverter) user(i int, content []byte) error {
	parts, outputs := 0, 0
	err := b.eachBlock(content, func(j int, blk *rawBlock) error {
		switch typ := typeOf(blk); string(typ) {
		case "text":
			if len(blk.Text.Raw) > 0 {
				parts++
			}
		case "image", "document":
			if err := checkMedia(blk, fmt.Sprintf("messages.%d.content.%d", i, j)); err != nil {
				return err
			}
			parts++
		case "tool_result":
			outputs++
			return b.toolResult(fmt.Sprintf("messages.%d.content.%d", i, j), blk)
		default:
			return unsupported(fmt.Sprintf("messages.%d.content.%d", i, j), fmt.Sprintf("content block type %q in a user message", typ))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if parts == 0 && outputs > 0 {
		return nil
	}
	b.startItem()
	b.out = append(b.out, `{"type":"message","role":"user","content":[`...)
	if parts == 0 {
		b.out = append(b.out, `{"type":"input_text","text":""}`...)
	}
	k := 0
	_ = b.eachBlock(content, func(_ int, blk *rawBlock) error {
		switch string(typeOf(blk)) {
		case "text":
			if len(blk.Text.Raw) == 0 {
				return nil
			}
			if k > 0 {
				b.out = append(b.out, ',')
			}
			b.inputText(blk.Text)
		case "image", "document":
			if k > 0 {
				b.out = append(b.out, ',')
			}
			b.mediaPart(blk)
		default:
			return nil
		}
		k++
		return nil
	})
	b.out = append(b.out, `]}`...)
	return nil
}

// inputText writes an input_text part of s.
func (b *byteConverter) inputText(s wire.RawString) {
	b.out = append(b.out, `{"type":"input_text","text":"`...)
	b.appendStr(s)
	b.out = append(b.out, `"}`...)
}

// checkMedia reports an image or document source the Responses API has
// no form for; path is the block's.
func checkMedia(blk *rawBlock, path string) error {
	src := &blk.Source
	typ := "missing"
	if src.Present {
		st := sourceType(src)
		typ = fmt.Sprintf("%q", st)
		switch image := string(typeOf(blk)) == "image"; {
		case image && (st == "base64" || st == "url"):
			return nil
		case !image && (st == "text" || st == "base64" || st == "url"):
			return nil
		}
	}
	return unsupported(path+".source", string(typeOf(blk))+" source type "+typ)
}

// mediaPart writes an image or document checkMedia let through: base64
// data as a data: URL, a URL as it is, a plain-text document as text.
func (b *byteConverter) mediaPart(blk *rawBlock) {
	src := &blk.Source
	st := sourceType(src)
	switch {
	case string(typeOf(blk)) == "image":
		b.out = append(b.out, `{"type":"input_image","image_url":"`...)
		if st == "base64" {
			b.out = append(b.out, "data:"...)
			b.appendStr(src.MediaType)
			b.out = append(b.out, ";base64,"...)
			b.appendStr(src.Data)
		} else {
			b.appendStr(src.URL)
		}
		b.out = append(b.out, `","detail":"auto"}`...)
	case st == "text":
		b.inputText(src.Data)
	case st == "base64":
		mt := src.MediaType.TextString()
		if mt == "" {
			mt = "application/pdf"
		}
		b.out = append(b.out, `{"type":"input_file","filename":"document`...)
		b.out = jsonbytes.AppendStringBodyNoHTML(b.out, []byte(fileExt(mt)))
		b.out = append(b.out, `","file_data":"data:`...)
		b.out = jsonbytes.AppendStringBodyNoHTML(b.out, []byte(mt))
		b.out = append(b.out, ";base64,"...)
		b.appendStr(src.Data)
		b.out = append(b.out, `"}`...)
	default: // url
		b.out = append(b.out, `{"type":"input_file"`...)
		if len(src.URL.Raw) > 0 {
			b.out = append(b.out, `,"file_url":"`...)
			b.appendStr(src.URL)
			b.out = append(b.out, '"')
		}
		b.out = append(b.out, '}')
	}
}

// toolResult writes the function_call_output item of one tool_result: its
// text as the output string, or, with images or files in it, a list of
// input parts.
func (b *byteConverter) toolResult(path string, blk *rawBlock) error {
	media := false
	if blk.ContentRaw != nil {
		err := b.h.EachBlock(blk.ContentRaw, &b.sub, func(k int, rb *rawBlock) error {
			switch typ := typeOf(rb); string(typ) {
			case "text":
			case "image", "document":
				if err := checkMedia(rb, fmt.Sprintf("%s.content.%d", path, k)); err != nil {
					return err
				}
				media = true
			default:
				return unsupported(fmt.Sprintf("%s.content.%d", path, k), fmt.Sprintf("content block type %q in a tool_result", typ))
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	b.startItem()
	b.out = append(b.out, `{"type":"function_call_output","call_id":"`...)
	b.appendStr(blk.ToolUseID)
	b.out = append(b.out, `","output":`...)
	if media {
		b.out = append(b.out, '[')
		k := 0
		if blk.IsError {
			b.out = append(b.out, `{"type":"input_text","text":"Error:"}`...)
			k++
		}
		_ = b.h.EachBlock(blk.ContentRaw, &b.sub, func(_ int, rb *rawBlock) error {
			if string(typeOf(rb)) == "text" && len(rb.Text.Raw) == 0 {
				return nil
			}
			if k > 0 {
				b.out = append(b.out, ',')
			}
			k++
			if string(typeOf(rb)) == "text" {
				b.inputText(rb.Text)
			} else {
				b.mediaPart(rb)
			}
			return nil
		})
		b.out = append(b.out, `]}`...)
		return nil
	}
	b.out = append(b.out, '"')
	if blk.IsError {
		b.out = append(b.out, "Error: "...)
	}
	if blk.ContentRaw != nil {
		first := true
		_ = b.h.EachBlock(blk.ContentRaw, &b.sub, func(_ int, rb *rawBlock) error {
			if len(rb.Text.Raw) > 0 {
				if !first {
					b.out = append(b.out, `\n`...)
				}
				b.appendStr(rb.Text)
				first = false
			}
			return nil
		})
	}
	b.out = append(b.out, `"}`...)
	return nil
}

// assistant converts an assistant turn into items in the order of its
// blocks: runs of text as one output_text message, history thinking as
// reasoning items (reasoningItem), tool_use blocks as function_call items.
// The API refuses a reasoning item that nothing of its turn follows (a
// turn cut short while the model reasoned): the first pass finds the last
// block that makes another item, and reasoning items after it are left
// out.
func (b *byteConverter) assistant(i int, content []byte) error {
	last := -1
	err := b.eachBlock(content, func(j int, blk *rawBlock) error {
		switch typ := typeOf(blk); string(typ) {
		case "text":
			if len(blk.Text.Raw) > 0 {
				last = j
			}
		case "thinking", "redacted_thinking":
			if _, _, ok := b.reasoningItem(blk); !ok && b.tagged(blk) {
				last = j
			}
		case "tool_use":
			last = j
		default:
			return unsupported(fmt.Sprintf("messages.%d.content.%d", i, j), fmt.Sprintf("content block type %q in an assistant message", typ))
		}
		return nil
	})
	if err != nil || last < 0 {
		return err
	}
	_ = b.eachBlock(content, func(j int, blk *rawBlock) error {
		if j > last {
			return nil
		}
		switch string(typeOf(blk)) {
		case "text":
			if len(blk.Text.Raw) > 0 {
				b.textPiece()
				b.appendStr(blk.Text)
			}
		case "thinking", "redacted_thinking":
			if id, enc, ok := b.reasoningItem(blk); ok {
				b.flush()
				b.writeReasoning(blk, id, enc)
			} else if b.tagged(blk) {
				// Thinking from elsewhere, as the tags the model would
				// write: context, not the upstream's own reasoning.
				b.textPiece()
				b.out = append(b.out, '<')
				b.out = jsonbytes.AppendStringBodyNoHTML(b.out, []byte(b.tag))
				b.out = append(b.out, '>')
				b.appendStr(blk.Thinking)
				b.out = append(b.out, '<', '/')
				b.out = jsonbytes.AppendStringBodyNoHTML(b.out, []byte(b.tag))
				b.out = append(b.out, '>')
			}
		case "tool_use":
			b.flush()
			b.startItem()
			b.out = append(b.out, `{"type":"function_call","call_id":"`...)
			b.appendStr(blk.ID)
			b.out = append(b.out, `","name":"`...)
			b.out = jsonbytes.AppendStringBodyNoHTML(b.out, []byte(b.state.Shorten(blk.Name.TextString())))
			b.out = append(b.out, `","arguments":"`...)
			if blk.Input == nil || string(blk.Input) == "null" {
				b.out = append(b.out, "{}"...)
			} else {
				b.out = jsonbytes.AppendCompactStringBody(b.out, blk.Input)
			}
			b.out = append(b.out, `"}`...)
		}
		return nil
	})
	b.flush()
	return nil
}

// tagged reports a thinking block that goes back as tags in the text.
func (b *byteConverter) tagged(blk *rawBlock) bool {
	return string(typeOf(blk)) == "thinking" && b.x.Thinking && len(blk.Thinking.Raw) > 0
}

// textPiece opens the output_text message the turn's text goes into, if
// none is open.
func (b *byteConverter) textPiece() {
	if b.inText {
		return
	}
	b.startItem()
	b.out = append(b.out, `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"`...)
	b.inText = true
}

// flush closes the open output_text message.
func (b *byteConverter) flush() {
	if b.inText {
		b.out = append(b.out, `","annotations":[]}]}`...)
		b.inText = false
	}
}

// reasoningItem reports a thinking or redacted_thinking block that a
// Responses upstream issued (the gateway's signature, origin Responses,
// verifies), with the id and encrypted_content of the reasoning item it
// came from. Without encrypted_content the item can only be found by id
// in the upstream's store, so it goes back only with store on.
func (b *byteConverter) reasoningItem(blk *rawBlock) (id, enc string, ok bool) {
	var origin emit.Origin
	var foreign []byte
	if b.opener == nil {
		b.opener = b.x.Settings.Signer.NewOpener()
	}
	// Only the gateway's envelope can open: anything else (Anthropic's
	// own signatures, in most histories) is told by its shape, without
	// decoding the block's text.
	if string(typeOf(blk)) == "thinking" {
		sig := blk.Signature.TextInto(&b.sig)
		if !wire.IsGatewaySignature(sig) {
			return "", "", false
		}
		origin, foreign, ok = b.opener.Open(sig, blk.Thinking.TextInto(&b.text))
	} else if sig := blk.Data.TextInto(&b.sig); wire.IsGatewaySignature(sig) {
		origin, foreign, ok = b.opener.Open(sig, nil)
	}
	if !ok || origin != emit.OriginResponses {
		return "", "", false
	}
	id, enc = splitForeign(string(foreign))
	if id == "" || (enc == "" && !b.cfg.Store) {
		return "", "", false
	}
	return id, enc, true
}

// writeReasoning writes the reasoning item of blk: the summary is the
// thinking text.
func (b *byteConverter) writeReasoning(blk *rawBlock, id, enc string) {
	b.startItem()
	b.out = append(b.out, `{"type":"reasoning","id":"`...)
	b.out = jsonbytes.AppendStringBodyNoHTML(b.out, []byte(id))
	b.out = append(b.out, `","summary":[`...)
	if len(blk.Thinking.Raw) > 0 {
		b.out = append(b.out, `{"type":"summary_text","text":"`...)
		b.appendStr(blk.Thinking)
		b.out = append(b.out, `"}`...)
	}
	b.out = append(b.out, ']')
	if enc != "" {
		b.out = append(b.out, `,"encrypted_content":"`...)
		b.out = jsonbytes.AppendStringBodyNoHTML(b.out, []byte(enc))
		b.out = append(b.out, '"')
	}
	b.out = append(b.out, '}')
}

// appendStr writes one of the client's strings as the escaper writes its
// value.
func (b *byteConverter) appendStr(s wire.RawString) {
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
