package amazonq

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// An agent's request is mostly its history, text the client already
// escaped the way the upstream body needs it: decoding every string into a
// Go string and escaping it again cost more than the rest of the request's
// way upstream. The converter writes the body from the client's bytes in
// one walk of the history (wire.HistoryReader, which reads them as
// encoding/json decodes them, one block at a time): each string is copied
// as it is, or with only its escapes rewritten
// (jsonbytes.AppendCanonicalBody), and only the small parts (tools, the
// thinking hint, the conversation id) are built from the decoded request.
//
// A message joins its turn as spans of the client's bytes; only a string
// the escaper would write otherwise, and the gateway's own text, are
// written into the turn's stage. A turn is written into the history when
// the next turn starts. The current message comes before the history in
// the body but is known only at the end, so the history is written after
// room left for it, and the current message is put in front of the
// history when the walk is done.
//
// It handles every request the request parse accepts, however the handler
// read it; typed_test.go keeps the typed converter it replaced as the
// reference FuzzAmazonQConvertMatchesTyped holds it to.

// ScansRequest: the converter reads the client's bytes, so the request is
// read with ScanRequest and its history is never decoded into Go strings.
func (p *Provider) ScansRequest() bool { return true }

// Room for the current message in front of the history: the template and
// the system prompt and tools, whose sizes are known before the walk, and
// the last turn, guessed as a share of the messages up to a bound. A
// current message that does not fit is written with the history into a
// new buffer.
const (
	headTemplate    = 4 << 10
	headTurnShare   = 16      // a sixteenth of the messages …
	maxHeadLastTurn = 1 << 20 // … up to 1 MiB
	// The history takes about the bytes of the messages it comes from (its
	// framing is no longer than theirs, a string no longer once its escapes
	// are rewritten): room for a thirty-second more, before it would grow.
	historySlack = 32
	// entryFraming is what a history entry's framing adds to its
	// message's, besides its model id and origin: a user turn
	// {"userInputMessage":{"content":"…","modelId":…,"origin":…}} against
	// {"role":"user","content":"…"}, with room for a tool result's context.
	entryFraming = 48
	// assistantFraming is the same for an assistant turn:
	// {"assistantResponseMessage":{"content":"…"}} against
	// {"role":"assistant","content":"…"}.
	assistantFraming = 16
	// turnFraming is room for the framing the current message's tool
	// results and images add to the last message's bytes.
	turnFraming = 1 << 10
	// toolFraming is what a tool's toolSpecification adds to the client's
	// definition at the most: its framing, and the default schema of a
	// tool that has none.
	toolFraming = 112
)

// toolsRoom is the room the tools take in the current message: each
// tool's definition as the client sent it with Amazon Q's framing, its
// name again as the description of a tool that has none, and a cut
// description again in full in the TOOL DOCUMENTATION section.
func toolsRoom(tools []wire.Tool) int {
	n := 0
	for i := range tools {
		t := &tools[i]
		n += len(t.Raw) + toolFraming + len(t.Name)
		if len(t.Description) > maxToolDescription {
			n += len(t.Description) + len(t.Name) + 64
		}
	}
	return n
}

// span is a string's escaped form: the client's bytes when they are what
// the escaper writes (nearly always), else stage[off:end] of the stage it
// was written to. A thinking span is written in its tags.
type span struct {
	raw              []byte
	off, end         int
	staged, thinking bool
}

// in returns the escaped bytes of s, staged in stage.
func (s *span) in(stage []byte) []byte {
	if s.staged {
		return stage[s.off:s.end]
	}
	return s.raw
}

// staged returns the span of stage[off:].
func staged(stage []byte, off int) span { return span{off: off, end: len(stage), staged: true} }

type fimage struct {
	format string
	data   span
}

type fresult struct {
	id      span
	texts   []span
	images  int
	isError bool
}

type fuse struct {
	id    span
	name  string
	input []byte
}

// fturn is a turn being gathered: spans of its strings, in the order the
// typed converter's turn holds them; stage holds those rewritten and the
// gateway's own text.
type fturn struct {
	assistant bool
	stage     []byte
	text      []span
	images    []fimage
	results   []fresult
	uses      []fuse
}

func (t *fturn) reset(assistant bool) {
	t.assistant = assistant
	t.stage = t.stage[:0]
	t.text = t.text[:0]
	t.images = t.images[:0]
	t.results = t.results[:0]
	t.uses = t.uses[:0]
}

// addResult adds a tool result to t, merged with one for the same id.
func (t *fturn) addResult(id span, texts []span, images int, isError bool) {
	key := id.in(t.stage)
	for i := range t.results {
		r := &t.results[i]
		if string(r.id.in(t.stage)) == string(key) {
			r.texts = append(r.texts, texts...)
			r.images += images
			r.isError = r.isError || isError
			return
		}
	}
	n := len(t.results)
	if n < cap(t.results) {
		t.results = t.results[:n+1] // reuse the texts of a former turn's result
	} else {
		t.results = append(t.results, fresult{})
	}
	r := &t.results[n]
	*r = fresult{id: id, texts: append(r.texts[:0], texts...), images: images, isError: isError}
}

// Block kinds the converter tells apart.
const (
	kOther = iota
	kText
	kThinking
	kImage
	kDocument
	kToolUse
	kToolResult
)

func kindOf(typ []byte) (int, string) {
	switch string(typ) {
	case "text":
		return kText, "text"
	case "thinking":
		return kThinking, "thinking"
	case "image":
		return kImage, "image"
	case "document":
		return kDocument, "document"
	case "tool_use":
		return kToolUse, "tool_use"
	case "tool_result":
		return kToolResult, "tool_result"
	}
	return kOther, string(typ)
}

// fastConverter writes one request's upstream body.
type fastConverter struct {
	conv *converter // the typed converter, for tools and tool names
	data []byte
	// out is the body being written: the history from head on.
	out  []byte
	head int
	// fixed is the room the head takes besides the current turn's
	// strings: the template, the system text, the tools, the hint.
	fixed   int
	entries int // history entries written
	turns   int // turns seen
	turn    fturn

	sys    []byte // the system text, escaped, its pieces joined by \n
	nsys   int
	sysTop int // sys[:sysTop] is the system field's

	needFirst bool   // the conversation id needs the first user message's text
	first     []byte // that text, escaped
	firstDone bool

	h *wire.HistoryReader
	// block is the block being added, sub a block of its own content;
	// items is a tool result's text.
	block, sub wire.HistoryBlock
	items      []span

	scratch, scratch2 []byte
	model, origin     []byte // quoted
}

// convert writes the upstream body for x.
func (p *Provider) convert(x *providers.Exchange) ([]byte, *state, error) {
	if err := checkOutputConfig(x); err != nil {
		return nil, nil, err
	}
	req := x.Request
	h, err := wire.NewHistoryReader(x.Body)
	if err != nil {
		return nil, nil, wire.InvalidRequest("invalid request: " + err.Error())
	}
	c := &fastConverter{
		conv:      &converter{p: p, x: x, st: &state{}},
		needFirst: SessionID(metadataUserID(req)) == "",
		h:         h,
	}
	c.model = jsonbytes.AppendStringNoHTML(nil, x.UpstreamModel)
	c.origin = jsonbytes.AppendStringNoHTML(nil, p.cfg.Origin)

	if err := h.EachBlock(h.System(), &c.block, c.systemBlock); err != nil {
		return nil, nil, err
	}
	c.sysTop = len(c.sys)

	// Room for the parts before the history, guessed from the fields' sizes
	// as the client sent them.
	system, messages := req.Fields["system"], req.Fields["messages"]
	if len(messages) < len(x.Body)/2 {
		// The messages given in another spelling: they are in what the
		// system prompt and tools leave of the body.
		messages = x.Body[:max(0, len(x.Body)-len(system)-len(req.Fields["tools"]))]
	}
	// The last turn becomes the current message, written into the head:
	// when the scan measured the last message, a user's, the history has
	// room for the others only (a request of one long turn holds no room
	// for a history it does not have); else the last turn's room is
	// guessed as a share of the messages. A current message too long for
	// the head is written into a body of its own size (finish).
	lastTurn := min(len(messages)/headTurnShare, maxHeadLastTurn)
	history := len(messages)
	if last := req.LastUserMessageSize(); last >= 0 && last <= len(messages) {
		lastTurn, history = min(last, maxHeadLastTurn), len(messages)-last
	}
	c.fixed = headTemplate + len(system) + len(system)/8 + toolsRoom(req.Tools) +
		2*len(c.model) + 2*len(c.origin) + 6*len(x.Settings.Hint(req.Thinking))
	head := c.fixed + lastTurn + turnFraming
	// Each history entry's framing (its model id and origin, on a user
	// turn) is longer than its message's; the history's strings are no
	// longer than the client's. Turns alternate (a role repeated joins its
	// turn), so at most half the messages, and the placeholder user turn
	// before a first assistant turn, are user entries.
	users := req.MessageCount()/2 + 2
	framing := users*(entryFraming+len(c.model)+len(c.origin)) + users*assistantFraming
	c.head = head
	c.out = x.NewBody(head + history + history/historySlack + framing)[:head] // the room before head is written below, or not sent

	c.data = x.Body
	if err := h.EachMessage(c.message); err != nil {
		return nil, nil, err
	}
	if c.turns == 0 {
		return nil, nil, wire.InvalidRequest("messages: at least one user message is required")
	}
	if c.turn.assistant {
		c.flush()
		c.turn.reset(false)
		c.turn.stage = append(c.turn.stage, continuePrompt...)
		c.turn.text = append(c.turn.text, staged(c.turn.stage, 0))
	}
	body, err := c.finish()
	if err != nil {
		return nil, nil, err
	}
	st := c.conv.st
	if len(st.toolNames) == 0 {
		st = nil
	}
	return body, st, nil
}

// finish writes the part before the history (the conversation's id and
// the current message) in front of it, and what follows it.
func (c *fastConverter) finish() ([]byte, error) {
	conv := c.conv
	tools := conv.tools() // before the current message: it names the cut descriptions
	id := conversationIDOf(conv.x, func() (system, first string) {
		s, err1 := jsonbytes.AppendUnescaped(nil, c.sys[:c.sysTop])
		f, err2 := jsonbytes.AppendUnescaped(nil, c.first)
		if err1 != nil || err2 != nil {
			return "", "" // not reached: both were escaped here
		}
		return string(s), string(f)
	})

	t := &c.turn
	// The part is written from the start of the room, and moved to its end
	// once its length is known; one too long for the room is written
	// elsewhere as it grows.
	pre := c.out[:0:c.head]
	if need := c.currentSize(); need > c.head {
		// Too long for the room: written into the body it goes out in,
		// with room for the history after it, so neither is copied twice
		// nor grown.
		pre = conv.x.NewBody(need + len(c.out) - c.head + 64)
	}
	pre = append(pre, `{"conversationState":{"chatTriggerType":"MANUAL","conversationId":`...)
	pre = jsonbytes.AppendStringNoHTML(pre, id)
	pre = append(pre, `,"currentMessage":{"userInputMessage":{"content":"`...)
	if c.nsys > 0 {
		pre = appendText(pre, "--- SYSTEM PROMPT BEGIN ---\n")
		pre = append(pre, c.sys...)
		pre = appendText(pre, "\n--- SYSTEM PROMPT END ---\n\n")
	}
	if len(conv.toolDocs) > 0 {
		pre = appendText(pre, "--- TOOL DOCUMENTATION BEGIN ---\n")
		pre = appendText(pre, strings.Join(conv.toolDocs, "\n"))
		pre = appendText(pre, "--- TOOL DOCUMENTATION END ---\n\n")
	}
	pre = appendText(pre, "--- CONTEXT ENTRY BEGIN ---\nCurrent time: ")
	pre = appendText(pre, conv.p.cfg.Now().Format("Monday, 2006-01-02T15:04:05.000-07:00"))
	pre = appendText(pre, "\n--- CONTEXT ENTRY END ---\n\n--- USER MESSAGE BEGIN ---\n")
	pre = appendJoined(pre, t.stage, t.text, `\n`)
	if conv.x.Thinking {
		if len(t.text) > 0 {
			pre = append(pre, `\n`...)
		}
		hint := conv.x.Settings.Hint(conv.x.Request.Thinking)
		pre = appendText(pre, hint)
		pre = appendText(pre, hint)
	}
	pre = appendText(pre, "\n--- USER MESSAGE END ---")
	pre = append(pre, '"')
	pre = c.appendMessageTail(pre, t)
	if len(tools) > 0 || len(t.results) > 0 {
		pre = append(pre, `,"userInputMessageContext":{`...)
		if len(tools) > 0 {
			// Encoded into the room, each schema copied as the client
			// compacted it (json.RawMessage): no buffer of their own.
			pre = append(pre, `"tools":`...)
			var err error
			if pre, err = jsonbytes.AppendEncode(pre, tools); err != nil {
				return nil, wire.InvalidRequest("converting the request for Amazon Q: " + err.Error())
			}
			if len(t.results) > 0 {
				pre = append(pre, ',')
			}
		}
		if len(t.results) > 0 {
			pre = append(pre, `"toolResults":`...)
			pre = appendResults(pre, t)
		}
		pre = append(pre, '}')
	}
	pre = append(pre, "}}"...)
	if c.entries > 0 {
		pre = append(pre, `,"history":[`...)
		c.out = append(c.out, ']')
	}
	c.out = append(c.out, '}')
	if arn := conv.p.cfg.ProfileARN; arn != "" {
		c.out = append(c.out, `,"profileArn":`...)
		c.out = jsonbytes.AppendStringNoHTML(c.out, arn)
	}
	c.out = append(c.out, '}')

	if cap(pre) == c.head && len(pre) <= c.head {
		start := c.head - len(pre)
		copy(c.out[start:], pre) // a move within the room
		return c.out[start:], nil
	}
	body := conv.x.NewBody(len(pre) + len(c.out) - c.head)
	body = append(body, pre...)
	return append(body, c.out[c.head:]...), nil
}

// currentSize bounds from above the length of the part before the
// history (finish): the fixed room and the current turn's strings with
// their framing, as finish writes them.
func (c *fastConverter) currentSize() int {
	t := &c.turn
	n := c.fixed + len(t.stage)
	for i := range t.text {
		n += len(`\n<thinking></thinking>`)
		if !t.text[i].staged {
			n += len(t.text[i].raw)
		}
	}
	for i := range t.images {
		n += 64 + len(t.images[i].format) + len(t.images[i].data.raw)
	}
	for i := range t.results {
		r := &t.results[i]
		n += 64 + len(placeholderImageOutput) + len(placeholderNoOutput) + len(r.id.raw)
		for j := range r.texts {
			n += 16 + len(r.texts[j].raw)
		}
	}
	return n
}

// appendText appends s escaped as the body of a JSON string.
func appendText(dst []byte, s string) []byte {
	n := len(dst)
	dst = jsonbytes.AppendStringNoHTML(dst, s)
	copy(dst[n:], dst[n+1:len(dst)-1])
	return dst[:len(dst)-2]
}

// appendJoined appends the strings at spans, joined by sep.
func appendJoined(dst, stage []byte, spans []span, sep string) []byte {
	for i := range spans {
		if i > 0 {
			dst = append(dst, sep...)
		}
		s := &spans[i]
		if s.thinking {
			dst = append(dst, "<thinking>"...)
		}
		dst = append(dst, s.in(stage)...)
		if s.thinking {
			dst = append(dst, "</thinking>"...)
		}
	}
	return dst
}

// appendMessageTail appends a userInputMessage's modelId, origin and
// images.
func (c *fastConverter) appendMessageTail(dst []byte, t *fturn) []byte {
	dst = append(dst, `,"modelId":`...)
	dst = append(dst, c.model...)
	dst = append(dst, `,"origin":`...)
	dst = append(dst, c.origin...)
	if len(t.images) > 0 {
		dst = append(dst, `,"images":[`...)
		for i, img := range t.images {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"format":`...)
			dst = jsonbytes.AppendStringNoHTML(dst, img.format)
			dst = append(dst, `,"source":{"bytes":"`...)
			dst = append(dst, img.data.in(t.stage)...)
			dst = append(dst, `"}}`...)
		}
		dst = append(dst, ']')
	}
	return dst
}

// appendResults appends t's tool results, each without text given its
// placeholder.
func appendResults(dst []byte, t *fturn) []byte {
	dst = append(dst, '[')
	for i := range t.results {
		r := &t.results[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"toolUseId":"`...)
		dst = append(dst, r.id.in(t.stage)...)
		dst = append(dst, `","content":[`...)
		switch {
		case len(r.texts) > 0:
			for j, s := range r.texts {
				if j > 0 {
					dst = append(dst, ',')
				}
				dst = append(dst, `{"text":"`...)
				dst = append(dst, s.in(t.stage)...)
				dst = append(dst, `"}`...)
			}
		case r.images > 0:
			dst = append(dst, `{"text":"`+placeholderImageOutput+`"}`...)
		default:
			dst = append(dst, `{"text":"`+placeholderNoOutput+`"}`...)
		}
		if r.isError {
			dst = append(dst, `],"status":"error"}`...)
		} else {
			dst = append(dst, `],"status":"success"}`...)
		}
	}
	return append(dst, ']')
}

// flush writes the gathered turn into the history.
func (c *fastConverter) flush() {
	t := &c.turn
	if c.entries == 0 && t.assistant {
		// The history must start with a user turn.
		c.out = append(c.out, `{"userInputMessage":{"content":"`+placeholderUser+`"`...)
		c.out = c.appendMessageTail(c.out, &fturn{})
		c.out = append(c.out, "}}"...)
		c.entries++
	}
	if c.entries > 0 {
		c.out = append(c.out, ',')
	}
	c.entries++
	out := c.out
	blank := !hasNonSpace(t.stage, t.text)
	if t.assistant {
		out = append(out, `{"assistantResponseMessage":{"content":"`...)
		switch {
		case !blank:
			out = appendJoined(out, t.stage, t.text, "")
		case len(t.uses) > 0:
			out = append(out, placeholderToolUse...)
		default:
			out = append(out, placeholderAssistant...)
		}
		out = append(out, '"')
		if len(t.uses) > 0 {
			out = append(out, `,"toolUses":[`...)
			for i, u := range t.uses {
				if i > 0 {
					out = append(out, ',')
				}
				out = append(out, `{"toolUseId":"`...)
				out = append(out, u.id.in(t.stage)...)
				out = append(out, `","name":`...)
				out = jsonbytes.AppendStringNoHTML(out, u.name)
				out = append(out, `,"input":`...)
				if len(u.input) == 0 || u.input[0] != '{' {
					out = append(out, "{}"...)
				} else {
					out = jsonbytes.AppendCompact(out, u.input)
				}
				out = append(out, '}')
			}
			out = append(out, ']')
		}
		c.out = append(out, "}}"...)
		return
	}
	out = append(out, `{"userInputMessage":{"content":"`...)
	switch {
	case !blank:
		out = appendJoined(out, t.stage, t.text, `\n`)
	case len(t.results) > 0:
		out = append(out, placeholderToolResults...)
	default:
		out = append(out, placeholderUser...)
	}
	out = append(out, '"')
	out = c.appendMessageTail(out, t)
	if len(t.results) > 0 {
		out = append(out, `,"userInputMessageContext":{"toolResults":`...)
		out = appendResults(out, t)
		out = append(out, '}')
	}
	c.out = append(out, "}}"...)
}

// hasNonSpace reports whether the text of the escaped strings at spans
// holds more than white space (strings.TrimSpace would leave some).
func hasNonSpace(stage []byte, spans []span) bool {
	for i := range spans {
		if spans[i].thinking {
			return true // its tags
		}
		p := spans[i].in(stage)
		for i := 0; i < len(p); {
			switch c := p[i]; {
			case c == ' ':
				i++
			case c == '\\':
				switch p[i+1] {
				case 'n', 't', 'r', 'f':
					i += 2
				case 'u':
					if !unicode.IsSpace(jsonbytes.Hex4(p[i:])) {
						return true
					}
					i += 6
				default:
					return true
				}
			case c < utf8.RuneSelf:
				return true
			default:
				r, size := utf8.DecodeRune(p[i:])
				if !unicode.IsSpace(r) {
					return true
				}
				i += size
			}
		}
	}
	return false
}

// message converts message i: its blocks join the system text or its
// turn.
func (c *fastConverter) message(_ int, m *wire.HistoryMessage) error {
	switch {
	case m.Role.Is("system"):
		return c.h.EachBlock(m.Content, &c.block, c.systemBlock)
	case m.Role.Is("assistant"):
		c.begin(true)
		return c.h.EachBlock(m.Content, &c.block, c.assistantBlock)
	}
	// The request parse accepts user, assistant and system only.
	c.begin(false)
	first := c.needFirst && !c.firstDone
	c.firstDone = true
	return c.h.EachBlock(m.Content, &c.block, func(_ int, b *wire.HistoryBlock) error {
		return c.userBlock(first, b)
	})
}

// begin starts a message of the assistant or the user: a new turn, or more
// of the same one (the same role twice is merged, so the history
// alternates).
func (c *fastConverter) begin(assistant bool) {
	if c.turns > 0 && c.turn.assistant == assistant {
		return
	}
	if c.turns > 0 {
		c.flush()
	}
	c.turn.reset(assistant)
	c.turns++
}

// systemBlock adds a text block to the system text, the blocks one per
// line.
func (c *fastConverter) systemBlock(_ int, b *wire.HistoryBlock) error {
	if kind, _ := kindOf(c.decode(&b.Type)); kind != kText || len(b.Text.Raw) == 0 {
		return nil
	}
	if c.nsys > 0 {
		c.sys = append(c.sys, `\n`...)
	}
	c.sys = c.appendEscaped(c.sys, &b.Text)
	c.nsys++
	return nil
}

// assistantBlock adds a block of an assistant message: its text, its
// thinking in tags when thinking is on, its tool call.
func (c *fastConverter) assistantBlock(_ int, b *wire.HistoryBlock) error {
	t := &c.turn
	switch kind, _ := kindOf(c.decode(&b.Type)); kind {
	case kText:
		if len(b.Text.Raw) > 0 {
			c.addText(c.spanOf(&b.Text), "")
		}
	case kThinking:
		if c.conv.x.Thinking && len(b.Thinking.Raw) > 0 {
			s := c.spanOf(&b.Thinking)
			s.thinking = true
			c.addText(s, "")
		}
	case kToolUse:
		name := c.conv.toolName(string(c.decode(&b.Name)))
		t.uses = append(t.uses, fuse{id: c.spanOf(&b.ID), name: name, input: b.Input})
	}
	return nil
}

// userBlock adds a block of a user message: text (the first user
// message's also names the conversation when first), images, documents,
// tool results.
func (c *fastConverter) userBlock(first bool, b *wire.HistoryBlock) error {
	t := &c.turn
	kind, typ := kindOf(c.decode(&b.Type))
	switch kind {
	case kText:
		if len(b.Text.Raw) > 0 {
			s := c.spanOf(&b.Text)
			if first {
				c.first = append(reserve(c.first, len(s.in(t.stage))), s.in(t.stage)...)
			}
			c.addText(s, `\n`)
		}
	case kImage:
		if img, ok := c.imageOf(&b.Source); ok {
			t.images = append(t.images, img)
		} else {
			c.addText(c.omitted(typ, &b.Source), `\n`)
		}
	case kDocument:
		if c.isTextSource(&b.Source) {
			c.addText(c.spanOf(&b.Source.Data), `\n`)
		} else {
			c.addText(c.omitted(typ, &b.Source), `\n`)
		}
	case kToolResult:
		return c.toolResult(b)
	}
	return nil
}

// smallText is the longest text addText copies into the stage rather than
// keeping a span of it: a span costs more than the text of a short block,
// and a history of a million one-letter blocks must not cost a span each.
const smallText = 64

// addText adds s to the turn's text, sep being what joins the turn's
// texts. A short text is copied into the stage, joined to the text before
// it when that is the stage's last (with sep, and a thinking text in its
// tags, as appendJoined writes them).
func (c *fastConverter) addText(s span, sep string) {
	t := &c.turn
	b := s.in(t.stage)
	if len(b) > smallText {
		t.text = append(t.text, s)
		return
	}
	t.stage = reserve(t.stage, len(sep)+len(b)+len("<thinking></thinking>"))
	b = s.in(t.stage) // the stage may have moved
	n := len(t.text)
	if n > 0 && t.text[n-1].staged && !t.text[n-1].thinking && t.text[n-1].end == len(t.stage) && !(s.staged && s.off < t.text[n-1].end) {
		t.stage = append(t.stage, sep...)
	} else {
		t.text = append(t.text, span{off: len(t.stage), staged: true})
		n++
	}
	if s.thinking {
		t.stage = append(t.stage, "<thinking>"...)
	}
	t.stage = append(t.stage, b...)
	if s.thinking {
		t.stage = append(t.stage, "</thinking>"...)
	}
	t.text[n-1].end = len(t.stage)
}

// reserve returns b with room for n more bytes, doubling its capacity when
// it must grow: a stage that gathers a million one-letter blocks grows by
// doubling, not by append's quarter for large slices, whose discarded
// buffers add up to five times the last one.
func reserve(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), max(2*cap(b), len(b)+n, 64))
	copy(nb, b)
	return nb
}

// toolResult adds the tool_result b to the turn: its text, and its images
// to the turn's images.
func (c *fastConverter) toolResult(b *wire.HistoryBlock) error {
	c.items = c.items[:0]
	images := 0
	id := c.spanOf(&b.ToolUseID)
	isError := b.IsError
	if err := c.h.EachBlock(b.ContentRaw, &c.sub, func(_ int, sb *wire.HistoryBlock) error {
		images += c.resultItem(&sb.RawBlock)
		return nil
	}); err != nil {
		return err
	}
	c.turn.addResult(id, c.items, images, isError)
	return nil
}

// resultItem adds a block of a tool result's content to c.items, or its
// image to the turn's images (and returns 1).
func (c *fastConverter) resultItem(b *wire.RawBlock) (images int) {
	kind, typ := kindOf(c.decode(&b.Type))
	switch {
	case kind == kText:
		if len(b.Text.Raw) > 0 {
			c.items = append(c.items, c.spanOf(&b.Text))
		}
		return 0
	case kind == kImage:
		if img, ok := c.imageOf(&b.Source); ok {
			c.turn.images = append(c.turn.images, img)
			return 1
		}
	case kind == kDocument && c.isTextSource(&b.Source):
		c.items = append(c.items, c.spanOf(&b.Source.Data))
		return 0
	}
	c.items = append(c.items, c.omitted(typ, &b.Source))
	return 0
}

// isTextSource reports whether a document's source s is text the turn
// takes.
func (c *fastConverter) isTextSource(s *wire.RawSource) bool {
	return s.Present && !s.IsString && string(c.decode(&s.Type)) == "text" && len(s.Data.Raw) > 0
}

// imageOf is convertImage of a source.
func (c *fastConverter) imageOf(s *wire.RawSource) (fimage, bool) {
	if !s.Present || s.IsString || string(c.decode(&s.Type)) != "base64" || len(s.Data.Raw) == 0 {
		return fimage{}, false
	}
	format := c.decode(&s.MediaType)
	if i := bytes.LastIndexByte(format, '/'); i >= 0 {
		format = format[i+1:]
	}
	if len(format) == 0 {
		return fimage{}, false
	}
	return fimage{format: string(format), data: c.spanOf(&s.Data)}, true
}

// omitted writes omitted's text for a block of type typ with source s
// into the turn's stage.
func (c *fastConverter) omitted(typ string, s *wire.RawSource) span {
	what := typ
	if s.Present {
		url := string(c.decode(&s.URL))
		mediaType := string(c.decode(&s.MediaType))
		switch {
		case url != "":
			what += " " + url
		case mediaType != "":
			what += " (" + mediaType + ")"
		}
	}
	off := len(c.turn.stage)
	c.turn.stage = appendText(c.turn.stage, "["+what+" omitted: not supported by Amazon Q]")
	return staged(c.turn.stage, off)
}

// spanOf is the span of s: its bytes, or, when the escaper writes its text
// otherwise, that text written into the turn's stage.
func (c *fastConverter) spanOf(s *wire.RawString) span {
	if s.Canonical || len(s.Raw) == 0 {
		return span{raw: s.Raw}
	}
	off := len(c.turn.stage)
	c.turn.stage = c.appendEscaped(c.turn.stage, s)
	return staged(c.turn.stage, off)
}

// appendEscaped appends s as the escaper writes its text.
func (c *fastConverter) appendEscaped(dst []byte, s *wire.RawString) []byte {
	if s.Canonical {
		return append(dst, s.Raw...)
	}
	dst, _ = jsonbytes.AppendCanonicalBody(dst, s.Raw)
	return dst
}

// decode returns the text of s, valid until the next call.
func (c *fastConverter) decode(s *wire.RawString) []byte {
	return s.TextInto(&c.scratch2)
}
