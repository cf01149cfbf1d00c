package amazonq

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
)

// An agent's request is mostly its history, text the client already
// escaped the way the upstream body needs it: decoding every string into a
// Go string and escaping it again (convertTyped) cost more than the rest of
// the request's way upstream. convertFast writes the same body from the
// client's bytes in one walk of the history: each string is copied as it
// is, or with only its escapes rewritten (jsonbytes.AppendCanonical), and
// only the small parts (tools, the thinking hint, the conversation id) go
// through the typed converter.
//
// A message's strings are gathered, escaped, in a stage, with where each
// one is; once its role is read (it may follow the content) they join
// their turn, which is written into the history when the next turn starts. The current
// message comes before the history in the body but is known only at the
// end, so the history is written after room left for it, and the current
// message is put in front of the history when the walk is done.
//
// What the walk does not handle exactly as the typed converter does
// (anything the request walk left to encoding/json, text encoding/json
// would change as it decodes, any error) is left to convertTyped, which
// also words the errors; FuzzAmazonQFastMatchesTyped holds both to the
// same bytes.

// typedRequest turns the fast converter off: the reference the tests
// compare it with.
var typedRequest = false

// ScansRequest: the converter reads the client's bytes, so the request is
// read with ScanRequest and its history is never decoded into Go strings.
func (p *Provider) ScansRequest() bool { return true }

// errTyped stops the walk: the request is left to the typed converter.
var errTyped = errors.New("amazonq: left to the typed converter")

// Room for the current message in front of the history: the template and
// the system prompt and tools, whose sizes are known before the walk, and
// the last turn, guessed as a share of the messages up to a bound. A
// current message that does not fit is written with the history into a
// new buffer.
const (
	headTemplate    = 4 << 10
	headTurnShare   = 16      // a sixteenth of the messages …
	maxHeadLastTurn = 1 << 20 // … up to 1 MiB
)

// span is a string's escaped form in a stage: stage[off:end].
type span struct{ off, end int }

func (s span) empty() bool { return s.off == s.end }

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

// fturn is a turn being gathered: its strings escaped in stage, in the
// order the typed converter's turn holds them.
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
	key := t.stage[id.off:id.end]
	for i := range t.results {
		r := &t.results[i]
		if string(t.stage[r.id.off:r.id.end]) == string(key) {
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

// Where a block stands: what of it the converter reads.
const (
	inUser      = iota // a user message's block
	inAssistant        // an assistant message's block
	inResult           // a block of a tool_result's content
	inSystem           // a block of the system prompt or a system message
)

// fsource is a block's source, decoded but for its data.
type fsource struct {
	present             bool
	typ, mediaType, url string
	data                span
}

// fblock is one block as walked: what the converter reads of it.
type fblock struct {
	kind    int
	typ     string
	hasType bool
	text    span
	hasText bool
	// thinking is wrapped in its tags already.
	thinking    span
	hasThinking bool
	id          span
	name        string
	input       []byte
	toolUseID   span
	isError     bool
	source      fsource
}

// fastConverter writes one request's upstream body.
type fastConverter struct {
	conv *converter // the typed converter, for tools and tool names
	data []byte
	// out is the body being written: the history from head on.
	out     []byte
	head    int
	entries int // history entries written
	turns   int // turns seen
	turn    fturn

	sys    []byte // the system text, escaped, its pieces joined by \n
	nsys   int
	sysTop int // sys[:sysTop] is the system field's

	needFirst bool   // the conversation id needs the first user message's text
	first     []byte // that text, escaped
	firstDone bool

	// The message being walked: its strings escaped in mstage, its blocks,
	// and its tool results' text and images. A message's role may follow
	// its content, and decides its turn: what the message adds is settled
	// once it is walked (apply).
	mstage  []byte
	mblocks []wblock
	mitems  []span
	mimages []fimage

	scratch, scratch2 []byte
	model, origin     []byte // quoted
}

// convertFast writes the upstream body for x from the client's bytes; ok
// is false for a request left to convertTyped.
func (p *Provider) convertFast(x *providers.Exchange) (_ []byte, _ *state, ok bool) {
	req := x.Request
	if req.FieldOrder() == nil {
		return nil, nil, false // decoded by encoding/json: its rules apply
	}
	messages, ok := req.Fields["messages"]
	if !ok {
		return nil, nil, false
	}
	c := &fastConverter{
		conv:      &converter{p: p, x: x, st: &state{}},
		needFirst: SessionID(metadataUserID(req)) == "",
	}
	c.model = jsonbytes.AppendStringNoHTML(nil, x.UpstreamModel)
	c.origin = jsonbytes.AppendStringNoHTML(nil, p.cfg.Origin)

	// Each walk reads its field's own bytes (a sub-slice of the body).
	system, hasSystem := req.Fields["system"]
	if hasSystem {
		c.data = system
		c.startMessage()
		if _, err := c.content(0, inSystem); err != nil {
			return nil, nil, false
		}
		c.apply(inSystem)
	}
	c.sysTop = len(c.sys)

	head := headTemplate + len(system) + len(system)/8 + 2*len(req.Fields["tools"]) +
		min(len(messages)/headTurnShare, maxHeadLastTurn)
	c.head = head
	c.out = make([]byte, head, head+len(messages)+len(messages)/8)

	c.data = messages
	if _, err := jsonbytes.ScanArrayAt(c.data, 0, c.message); err != nil {
		return nil, nil, false
	}
	if c.turns == 0 {
		return nil, nil, false // the typed converter's error
	}
	if c.turn.assistant {
		c.flush()
		c.turn.reset(false)
		c.turn.stage = append(c.turn.stage, continuePrompt...)
		c.turn.text = append(c.turn.text, span{0, len(continuePrompt)})
	}
	body, ok := c.finish()
	if !ok {
		return nil, nil, false
	}
	st := c.conv.st
	if len(st.toolNames) == 0 {
		st = nil
	}
	return body, st, true
}

// finish writes the part before the history (the conversation's id and
// the current message) in front of it, and what follows it.
func (c *fastConverter) finish() ([]byte, bool) {
	conv := c.conv
	tools := conv.tools()
	var toolsJSON []byte
	if len(tools) > 0 {
		var err error
		if toolsJSON, err = jsonbytes.Encode(tools, len(c.conv.x.Request.Fields["tools"])+256); err != nil {
			return nil, false
		}
	}
	id := conversationIDOf(conv.x, func() (system, first string) {
		s, err1 := jsonbytes.AppendUnescaped(nil, c.sys[:c.sysTop])
		f, err2 := jsonbytes.AppendUnescaped(nil, c.first)
		if err1 != nil || err2 != nil {
			return "", "" // not reached: both were escaped here
		}
		return string(s), string(f)
	})

	t := &c.turn
	pre := make([]byte, 0, headTemplate+len(c.sys)+len(toolsJSON)+2*len(t.stage))
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
	if len(toolsJSON) > 0 || len(t.results) > 0 {
		pre = append(pre, `,"userInputMessageContext":{`...)
		if len(toolsJSON) > 0 {
			pre = append(pre, `"tools":`...)
			pre = append(pre, toolsJSON...)
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

	if len(pre) <= c.head {
		start := c.head - len(pre)
		copy(c.out[start:], pre)
		return c.out[start:], true
	}
	body := make([]byte, 0, len(pre)+len(c.out)-c.head)
	body = append(body, pre...)
	return append(body, c.out[c.head:]...), true
}

// appendText appends s escaped as the body of a JSON string.
func appendText(dst []byte, s string) []byte {
	n := len(dst)
	dst = jsonbytes.AppendStringNoHTML(dst, s)
	copy(dst[n:], dst[n+1:len(dst)-1])
	return dst[:len(dst)-2]
}

// appendJoined appends the strings of stage at spans, joined by sep.
func appendJoined(dst, stage []byte, spans []span, sep string) []byte {
	for i, s := range spans {
		if i > 0 {
			dst = append(dst, sep...)
		}
		dst = append(dst, stage[s.off:s.end]...)
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
			dst = append(dst, t.stage[img.data.off:img.data.end]...)
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
		dst = append(dst, t.stage[r.id.off:r.id.end]...)
		dst = append(dst, `","content":[`...)
		switch {
		case len(r.texts) > 0:
			for j, s := range r.texts {
				if j > 0 {
					dst = append(dst, ',')
				}
				dst = append(dst, `{"text":"`...)
				dst = append(dst, t.stage[s.off:s.end]...)
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
				out = append(out, t.stage[u.id.off:u.id.end]...)
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
	for _, s := range spans {
		p := stage[s.off:s.end]
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

// Member names the request walk reads exactly (see jsonbytes.PlainName).
var (
	fastMessageFields = map[string]int{"role": 1, "content": 2}
	fastSourceFields  = map[string]int{"type": 1, "media_type": 2, "data": 3, "url": 4}
	fastBlockFields   = map[string]int{
		"type": bType, "text": bText, "thinking": bThinking, "signature": bSignature,
		"data": bData, "source": bSource, "id": bID, "name": bName, "input": bInput,
		"tool_use_id": bToolUseID, "content": bContent, "is_error": bIsError,
	}
)

const (
	bUnknown = iota
	bType
	bText
	bThinking
	bSignature
	bData
	bSource
	bID
	bName
	bInput
	bToolUseID
	bContent
	bIsError
)

// field is the field a member name stands for (0 for one the type does not
// have); ok is false for a name encoding/json might match differently from
// the walk: with an escape, not ASCII, or a field's name in another case.
func field(name []byte, fields map[string]int) (f int, ok bool) {
	if !jsonbytes.PlainName(name, fields) {
		return 0, false
	}
	return fields[string(name)], true
}

// blockField is field of a block's member name, the common ones found
// without hashing.
func blockField(name []byte) (f int, ok bool) {
	switch string(name) {
	case "type":
		return bType, true
	case "text":
		return bText, true
	case "tool_use_id":
		return bToolUseID, true
	case "content":
		return bContent, true
	case "thinking":
		return bThinking, true
	case "signature":
		return bSignature, true
	case "id":
		return bID, true
	case "name":
		return bName, true
	case "input":
		return bInput, true
	}
	return field(name, fastBlockFields)
}

// wblock is a walked block of a message, with its tool result's text
// (mitems[itemsLo:itemsHi]) and images (mimages[imagesLo:imagesHi]).
type wblock struct {
	fblock
	itemsLo, itemsHi   int
	imagesLo, imagesHi int
}

// unknownRole stands for a role that follows the content.
const unknownRole = -1

// startMessage empties the message's collections.
func (c *fastConverter) startMessage() {
	c.mstage = c.mstage[:0]
	c.mblocks = c.mblocks[:0]
	c.mitems = c.mitems[:0]
	c.mimages = c.mimages[:0]
}

// message walks one message into the turns.
func (c *fastConverter) message(i int) (int, error) {
	data := c.data
	role := unknownRole // inUser, inAssistant or inSystem
	var seenContent bool
	c.startMessage()
	end, err := jsonbytes.ScanObjectAt(data, i, func(name []byte, at int) (int, error) {
		f, ok := field(name, fastMessageFields)
		if !ok {
			return 0, errTyped
		}
		switch f {
		case 1:
			if role != unknownRole {
				return 0, errTyped
			}
			v, end, ok := c.str(at)
			if !ok {
				return 0, errTyped
			}
			switch string(v) {
			case "user":
				role = inUser
			case "assistant":
				role = inAssistant
			case "system":
				role = inSystem
			default:
				return 0, errTyped
			}
			return end, nil
		case 2:
			if seenContent || data[at] == 'n' {
				return 0, errTyped
			}
			seenContent = true
			return c.content(at, role)
		}
		return skipValue(data, at)
	})
	if err != nil {
		return 0, err
	}
	if role == unknownRole {
		return 0, errTyped
	}
	c.apply(role)
	if role == inUser {
		c.firstDone = true
	}
	return end, nil
}

// content walks a message's (or the system prompt's) content at i into
// the message's collections; role may be unknownRole.
func (c *fastConverter) content(i, role int) (int, error) {
	data := c.data
	if i >= len(data) {
		return 0, errTyped
	}
	switch data[i] {
	case '"':
		s, end, err := c.copyString(&c.mstage, i)
		if err != nil {
			return 0, err
		}
		c.mblocks = append(c.mblocks, wblock{fblock: fblock{kind: kText, typ: "text", hasType: true, text: s, hasText: true}})
		return end, nil
	case '[':
		return jsonbytes.ScanArrayAt(data, i, func(i int) (int, error) {
			c.mblocks = append(c.mblocks, wblock{})
			b := &c.mblocks[len(c.mblocks)-1]
			b.itemsLo, b.imagesLo = len(c.mitems), len(c.mimages)
			end, err := c.block(i, role, &b.fblock)
			// c.mblocks may have grown: b is found again.
			b = &c.mblocks[len(c.mblocks)-1]
			b.itemsHi, b.imagesHi = len(c.mitems), len(c.mimages)
			return end, err
		})
	}
	return 0, errTyped
}

// apply adds the walked message of role to the system text or its turn.
func (c *fastConverter) apply(role int) {
	if role == inSystem {
		for i := range c.mblocks {
			b := &c.mblocks[i]
			if b.kind != kText || !b.hasText || b.text.empty() {
				continue
			}
			if c.nsys > 0 {
				c.sys = append(c.sys, `\n`...)
			}
			c.sys = append(c.sys, c.mstage[b.text.off:b.text.end]...)
			c.nsys++
		}
		return
	}
	c.begin(role)
	t := &c.turn
	for i := range c.mblocks {
		b := &c.mblocks[i]
		if role == inAssistant {
			switch b.kind {
			case kText, kThinking:
				s, ok := b.text, b.hasText
				if b.kind == kThinking {
					s, ok = b.thinking, b.hasThinking
				}
				if ok && !s.empty() {
					t.text = append(t.text, s)
				}
			case kToolUse:
				t.uses = append(t.uses, fuse{id: b.id, name: c.conv.toolName(b.name), input: b.input})
			}
			continue
		}
		switch b.kind {
		case kText:
			if b.hasText && !b.text.empty() {
				t.text = append(t.text, b.text)
			}
			if c.collectFirst(role) && b.hasText {
				c.first = append(c.first, t.stage[b.text.off:b.text.end]...)
			}
		case kImage:
			if img, ok := imageOf(&b.source); ok {
				t.images = append(t.images, img)
			} else {
				t.text = append(t.text, c.omitted(&b.fblock))
			}
		case kDocument:
			if s := &b.source; s.present && s.typ == "text" && !s.data.empty() {
				t.text = append(t.text, s.data)
			} else {
				t.text = append(t.text, c.omitted(&b.fblock))
			}
		case kToolResult:
			t.images = append(t.images, c.mimages[b.imagesLo:b.imagesHi]...)
			t.addResult(b.toolUseID, c.mitems[b.itemsLo:b.itemsHi], b.imagesHi-b.imagesLo, b.isError)
		}
	}
}

// begin starts a message of role (user or assistant): a new turn, whose
// stage is the message's, or more of the same turn, the message's strings
// moved to the turn's stage.
func (c *fastConverter) begin(role int) {
	assistant := role == inAssistant
	if c.turns > 0 && c.turn.assistant == assistant {
		// Same role twice: merged, so the history alternates.
		base := len(c.turn.stage)
		c.turn.stage = append(c.turn.stage, c.mstage...)
		c.rebase(base)
		return
	}
	if c.turns > 0 {
		c.flush()
	}
	c.turn.reset(assistant)
	c.turn.stage, c.mstage = c.mstage, c.turn.stage[:0]
	c.turns++
}

// rebase moves the message's spans by base.
func (c *fastConverter) rebase(base int) {
	if base == 0 {
		return
	}
	move := func(s *span) { s.off += base; s.end += base }
	for i := range c.mblocks {
		b := &c.mblocks[i]
		move(&b.text)
		move(&b.thinking)
		move(&b.id)
		move(&b.toolUseID)
		move(&b.source.data)
	}
	for i := range c.mitems {
		move(&c.mitems[i])
	}
	for i := range c.mimages {
		move(&c.mimages[i].data)
	}
}

// collectFirst reports whether a user message's text is the first user
// message's, wanted for the conversation id.
func (c *fastConverter) collectFirst(role int) bool {
	return role == inUser && c.needFirst && !c.firstDone
}

// resultContent walks a tool_result's content into the message's items
// and images.
func (c *fastConverter) resultContent(i int) (int, error) {
	data := c.data
	switch data[i] {
	case '"':
		s, end, err := c.copyString(&c.mstage, i)
		if err != nil {
			return 0, err
		}
		if !s.empty() {
			c.mitems = append(c.mitems, s)
		}
		return end, nil
	case '[':
		var b fblock
		return jsonbytes.ScanArrayAt(data, i, func(i int) (int, error) {
			end, err := c.block(i, inResult, &b)
			if err != nil {
				return 0, err
			}
			switch b.kind {
			case kText:
				if b.hasText && !b.text.empty() {
					c.mitems = append(c.mitems, b.text)
				}
				return end, nil
			case kImage:
				if img, ok := imageOf(&b.source); ok {
					c.mimages = append(c.mimages, img)
					return end, nil
				}
			case kDocument:
				if s := &b.source; s.present && s.typ == "text" && !s.data.empty() {
					c.mitems = append(c.mitems, s.data)
					return end, nil
				}
			}
			c.mitems = append(c.mitems, c.omittedIn(&c.mstage, &b))
			return end, nil
		})
	}
	return 0, errTyped
}

// imageOf is convertImage of a walked source.
func imageOf(s *fsource) (fimage, bool) {
	if !s.present || s.typ != "base64" || s.data.empty() {
		return fimage{}, false
	}
	format := s.mediaType
	if i := strings.LastIndexByte(format, '/'); i >= 0 {
		format = format[i+1:]
	}
	if format == "" {
		return fimage{}, false
	}
	return fimage{format: format, data: s.data}, true
}

// omitted writes omitted's text for b into the turn's stage.
func (c *fastConverter) omitted(b *fblock) span {
	return c.omittedIn(&c.turn.stage, b)
}

// omittedIn writes omitted's text for b into stage.
func (c *fastConverter) omittedIn(stage *[]byte, b *fblock) span {
	what := b.typ
	if s := &b.source; s.present {
		switch {
		case s.url != "":
			what += " " + s.url
		case s.mediaType != "":
			what += " (" + s.mediaType + ")"
		}
	}
	n := len(*stage)
	*stage = appendText(*stage, "["+what+" omitted: not supported by Amazon Q]")
	return span{n, len(*stage)}
}

// block walks the block object at i into b, copying into the message's
// stage the strings the converter may need of a block where it stands: in
// a message of role (unknownRole before the role is read, inSystem) or in
// a tool_result's content (inResult). Until the block's type is read,
// every member it might need is kept.
func (c *fastConverter) block(i, in int, b *fblock) (int, error) {
	data := c.data
	*b = fblock{}
	user := in == inUser || in == unknownRole
	assistant := in == inAssistant || in == unknownRole
	return jsonbytes.ScanObjectAt(data, i, func(name []byte, at int) (int, error) {
		f, ok := blockField(name)
		if !ok {
			return 0, errTyped
		}
		if f != bUnknown && data[at] == 'n' {
			return 0, errTyped // the walk leaves a null to encoding/json
		}
		// wants reports whether the member matters for a block of kind k.
		wants := func(k int) bool { return !b.hasType || b.kind == k }
		switch f {
		case bType:
			v, end, ok := c.str(at)
			if !ok || b.hasType {
				return 0, errTyped
			}
			b.kind, b.typ = kindOf(v)
			b.hasType = true
			return end, nil
		case bText:
			if !wants(kText) {
				return skipString(data, at)
			}
			s, end, err := c.copyString(&c.mstage, at)
			b.text, b.hasText = s, true
			return end, err
		case bThinking:
			if !assistant || !c.conv.x.Thinking || !wants(kThinking) {
				return skipString(data, at)
			}
			n := len(c.mstage)
			c.mstage = append(c.mstage, "<thinking>"...)
			s, end, err := c.copyString(&c.mstage, at)
			if err != nil {
				return 0, err
			}
			if s.empty() {
				c.mstage = c.mstage[:n]
				b.thinking = span{n, n}
			} else {
				c.mstage = append(c.mstage, "</thinking>"...)
				b.thinking = span{n, len(c.mstage)}
			}
			b.hasThinking = true
			return end, nil
		case bSource:
			if !user && in != inResult {
				return skipValue(data, at)
			}
			return c.source(at, &b.source, !b.hasType || b.kind == kImage || b.kind == kDocument)
		case bID, bName, bInput:
			if !assistant || !wants(kToolUse) {
				return skipValue(data, at)
			}
			switch f {
			case bID:
				s, end, err := c.copyString(&c.mstage, at)
				b.id = s
				return end, err
			case bName:
				v, end, ok := c.str(at)
				if !ok {
					return 0, errTyped
				}
				b.name = string(v)
				return end, nil
			}
			end, err := skipValue(data, at)
			if err != nil {
				return 0, err
			}
			b.input = data[at:end]
			return end, nil
		case bToolUseID:
			if !user || !wants(kToolResult) {
				return skipString(data, at)
			}
			s, end, err := c.copyString(&c.mstage, at)
			b.toolUseID = s
			return end, err
		case bContent:
			if !user || !wants(kToolResult) {
				return skipValue(data, at)
			}
			if data[at] != '"' && data[at] != '[' {
				return 0, errTyped
			}
			// Walked as a tool result's even before the type is read:
			// what it gathers is dropped if the block is another kind.
			return c.resultContent(at)
		case bIsError:
			switch {
			case jsonbytes.HasAt(data, at, "true"):
				b.isError = true
				return at + 4, nil
			case jsonbytes.HasAt(data, at, "false"):
				b.isError = false
				return at + 5, nil
			}
			return 0, errTyped
		case bSignature, bData:
			return skipString(data, at)
		}
		return skipValue(data, at)
	})
}

// source walks a block's source at i into s; its data is copied into the
// message's stage when wantData.
func (c *fastConverter) source(i int, s *fsource, wantData bool) (int, error) {
	data := c.data
	s.present = true
	if data[i] == '"' {
		v, end, ok := c.str(i)
		if !ok {
			return 0, errTyped
		}
		s.typ, s.url = "string", string(v)
		return end, nil
	}
	return jsonbytes.ScanObjectAt(data, i, func(name []byte, at int) (int, error) {
		f, ok := field(name, fastSourceFields)
		if !ok {
			return 0, errTyped
		}
		if f == 0 {
			return skipValue(data, at)
		}
		switch data[at] {
		case 'n':
			// null leaves the field as it was, as encoding/json does.
			if !jsonbytes.HasAt(data, at, "null") {
				return 0, errTyped
			}
			return at + 4, nil
		case '"':
		default:
			return 0, errTyped
		}
		if f == 3 { // data
			if !wantData {
				end, err := skipString(data, at)
				s.data = span{} // only its emptiness would count, and it does not
				return end, err
			}
			sp, end, err := c.copyString(&c.mstage, at)
			s.data = sp
			return end, err
		}
		v, end, ok := c.str(at)
		if !ok {
			return 0, errTyped
		}
		switch f {
		case 1:
			s.typ = string(v)
		case 2:
			s.mediaType = string(v)
		case 4:
			s.url = string(v)
		}
		return end, nil
	})
}

// copyString appends the string at i to *dst escaped as the typed
// converter writes its text, and returns where it is.
func (c *fastConverter) copyString(dst *[]byte, i int) (span, int, error) {
	off := len(*dst)
	out, end, _, replaced := jsonbytes.AppendCanonical(*dst, c.data, i)
	*dst = out
	if end < 0 || replaced {
		*dst = out[:off]
		return span{}, 0, errTyped
	}
	return span{off, len(out)}, end, nil
}

// str decodes the string at i: a sub-slice of the body without escapes,
// else text in scratch2, valid until the next call. ok is false for text
// encoding/json would change as it decodes.
func (c *fastConverter) str(i int) ([]byte, int, bool) {
	var escaped, replaced bool
	var end int
	c.scratch, end, escaped, replaced = jsonbytes.AppendCanonical(c.scratch[:0], c.data, i)
	if end < 0 || replaced {
		return nil, 0, false
	}
	raw := c.data[i+1 : end-1]
	if !escaped {
		return raw, end, true
	}
	v, err := jsonbytes.AppendUnescaped(c.scratch2[:0], raw)
	c.scratch2 = v
	return v, end, err == nil
}

// skipString steps over the string at i.
func skipString(data []byte, i int) (int, error) {
	if i >= len(data) || data[i] != '"' {
		return 0, errTyped
	}
	end := jsonbytes.ValidString(data, i)
	if end < 0 {
		return 0, errTyped
	}
	return end, nil
}

// skipValue steps over the value at i.
func skipValue(data []byte, i int) (int, error) {
	_, _, end, err := jsonbytes.SkipValue(data, i)
	if err != nil {
		return 0, errTyped
	}
	return end, nil
}
