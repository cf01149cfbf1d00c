package gemini

import (
	"bytes"
	"errors"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
)

// A long conversation is mostly text the client already escaped as the
// upstream body needs it: decoding every string into Go strings and
// escaping them again (buildRequest, then Encode) cost more than the rest of
// the request's way upstream. fastRequest writes the same body from the
// client's bytes in one walk of the history: each string is copied as it
// is, or with only its escapes rewritten (jsonbytes.AppendCanonicalBody), and
// only the small parts (tools, tool_choice, the generation settings) go
// through the typed converter. What the walk does not handle exactly as
// the typed converter (anything the request walk leaves to encoding/json,
// a tool_result that names a tool_use not seen yet, any error) is left to
// buildRequest, which words the errors; FuzzGeminiFastMatchesTyped holds
// both to the same bytes.

// typedRequest turns fastRequest off: the reference the tests compare it with.
var typedRequest = false

// ScansRequest: the converter reads the client's bytes, so the request is
// read with ScanRequest and its history is never decoded into Go strings.
func (p *Provider) ScansRequest() bool { return true }

// requestBody returns the upstream body for x: written from the client's
// bytes where it can be, else from the decoded request, the same either way.
func (p *Provider) requestBody(x *providers.Exchange, model string) ([]byte, error) {
	levels := p.levelsFor(model)
	if !typedRequest {
		if body, ok := fastRequest(x, p.cfg.ThinkingBudget, p.cfg.SchemaExpansion, levels, model); ok {
			return body, nil
		}
	}
	if err := x.Request.Complete(); err != nil {
		return nil, err
	}
	req, err := buildRequest(x, p.cfg.ThinkingBudget, p.cfg.SchemaExpansion, levels)
	if err != nil {
		return nil, err
	}
	var body any = req
	if x.CountTokens {
		req.Model = "models/" + model
		body = countTokensRequest{GenerateContentRequest: req}
	}
	return jsonbytes.Encode(body, len(x.Body))
}

// errTyped stops the walk: the request is left to the typed converter.
var errTyped = errors.New("gemini: left to the typed converter")

// sfield is one string member of a block: its text in the client's bytes
// and its escaped form, those same bytes or, for a string to rewrite, a
// stretch of the converter's stage.
type sfield struct {
	raw      []byte // between the quotes
	escaped  bool   // raw holds escapes; else raw is the text
	staged   bool   // the escaped form is stage[off:end], not raw
	off, end int
}

// fsource is a block's source.
type fsource struct {
	isString                  bool
	typ, mediaType, data, url sfield
}

// fcontent is a Content: a string or blocks.
type fcontent struct {
	isString bool
	str      sfield
	blocks   []fblock
}

// fblock is one content block as walked: the members the converter reads.
type fblock struct {
	seen                                                      int
	typ, text, thinking, signature, data, id, name, toolUseID sfield
	input                                                     []byte
	isError                                                   bool
	source                                                    *fsource
	content                                                   fcontent
}

// fastConverter writes one request's upstream body.
type fastConverter struct {
	x      *providers.Exchange
	out    []byte
	sys    []byte // systemInstruction's parts, written after the contents
	nsys   int
	stage  []byte // the rewritten strings of the message being converted
	blocks []fblock
	buf    [2][]byte // decoded text, when a string has escapes

	toolNames map[string]string
	opener    *providers.Opener

	// The turn being written: role "" when none is open.
	role     string
	turns    int
	parts    int
	pending  string // a signature waiting for the model turn's next part
	callSeen bool   // the model turn's first functionCall is written
}

// fastRequest writes the upstream body for x from the client's bytes; ok
// is false for a request left to buildRequest.
func fastRequest(x *providers.Exchange, budget, expansion int, levels []providers.EffortStep, model string) (_ []byte, ok bool) {
	req := x.Request
	if req.FieldOrder() == nil {
		return nil, false // decoded by encoding/json: its rules apply
	}
	messages, ok := req.Fields["messages"]
	if !ok {
		return nil, false
	}
	c := &fastConverter{x: x, out: make([]byte, 0, len(x.Body)+256), toolNames: map[string]string{}}
	if x.CountTokens {
		c.out = append(c.out, `{"generateContentRequest":{"model":`...)
		c.out = jsonbytes.AppendStringNoHTML(c.out, "models/"+model)
		c.out = append(c.out, `,"contents":[`...)
	} else {
		c.out = append(c.out, `{"contents":[`...)
	}
	if sys, ok := req.Fields["system"]; ok {
		if err := c.systemField(sys); err != nil {
			return nil, false
		}
	}
	if _, err := jsonbytes.ScanArrayAt(messages, 0, func(i int) (int, error) {
		return c.message(messages, i)
	}); err != nil {
		return nil, false
	}
	c.closeTurn()
	if c.turns == 0 {
		return nil, false // the typed converter's error
	}
	c.out = append(c.out, ']')
	if c.nsys > 0 {
		c.out = append(c.out, `,"systemInstruction":{"parts":[`...)
		c.out = append(c.out, c.sys...)
		c.out = append(c.out, "]}"...)
	}

	// The small parts, typed.
	var tail struct {
		Tools            []tool            `json:"tools,omitempty"`
		ToolConfig       *toolConfig       `json:"toolConfig,omitempty"`
		GenerationConfig *generationConfig `json:"generationConfig,omitempty"`
	}
	decls, err := functionDeclarations(req.Tools, expansion)
	if err != nil {
		return nil, false
	}
	if len(decls) > 0 {
		tail.Tools = []tool{{FunctionDeclarations: decls}}
		tail.ToolConfig = toolChoice(req.ToolChoice)
	}
	if !x.CountTokens {
		tc := &converter{x: x, budget: budget, levels: levels}
		tail.GenerationConfig = tc.generationConfig()
	}
	t, err := jsonbytes.Encode(&tail, 256)
	if err != nil {
		return nil, false
	}
	if len(t) > 2 {
		c.out = append(c.out, ',')
		c.out = append(c.out, t[1:len(t)-1]...)
	}
	c.out = append(c.out, '}')
	if x.CountTokens {
		c.out = append(c.out, '}')
	}
	return c.out, true
}

// Names the request walk reads exactly (jsonbytes.PlainName).
var (
	fastMessageFields = map[string]int{"role": 1, "content": 2}
	fastSourceFields  = map[string]int{"type": 1, "media_type": 2, "data": 4, "url": 8}
	fastBlockFields   = map[string]int{
		"type": bType, "text": bText, "thinking": bThinking, "signature": bSignature,
		"data": bData, "source": bSource, "id": bID, "name": bName, "input": bInput,
		"tool_use_id": bToolUseID, "content": bContent, "is_error": bIsError,
	}
)

const (
	bType = 1 << iota
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

// skip steps over the value at i.
func skip(data []byte, i int) (int, error) {
	end := jsonbytes.ValidValue(data, i, 0)
	if end < 0 {
		return 0, errTyped
	}
	return end, nil
}

// str reads the string at i into f: its bytes as they are when they are
// what the escaper writes, which is almost always; else rewritten into
// the stage.
func (c *fastConverter) str(data []byte, i int, f *sfield) (int, error) {
	end, escaped, canonical := jsonbytes.ScanString(data, i)
	if end < 0 {
		return 0, errTyped
	}
	f.raw, f.escaped = data[i+1:end-1], escaped
	if canonical {
		return end, nil
	}
	off := len(c.stage)
	var replaced bool
	if c.stage, replaced = jsonbytes.AppendCanonicalBody(c.stage, f.raw); replaced {
		return 0, errTyped // encoding/json's text differs from the bytes': the typed converter's
	}
	f.staged, f.off, f.end = true, off, len(c.stage)
	return end, nil
}

// text returns f's text, decoded into buf n when it has escapes.
func (c *fastConverter) text(f *sfield, n int) []byte {
	if !f.escaped {
		return f.raw
	}
	b, err := jsonbytes.AppendUnescaped(c.buf[n][:0], f.raw)
	if err != nil {
		return nil
	}
	c.buf[n] = b
	return b
}

// is reports whether f's text is s.
func (c *fastConverter) is(f *sfield, s string) bool {
	if !f.escaped {
		return string(f.raw) == s
	}
	return string(c.text(f, 0)) == s
}

// escaped returns f's escaped form, without quotes.
func (c *fastConverter) escaped(f *sfield) []byte {
	if !f.staged {
		return f.raw
	}
	return c.stage[f.off:f.end]
}

// content walks the Content at i.
func (c *fastConverter) content(data []byte, i int, ct *fcontent) (int, error) {
	switch {
	case i >= len(data):
		return 0, errTyped
	case data[i] == '"':
		ct.isString = true
		return c.str(data, i, &ct.str)
	case data[i] != '[':
		return 0, errTyped
	}
	return jsonbytes.ScanArrayAt(data, i, func(i int) (int, error) {
		ct.blocks = append(ct.blocks, fblock{})
		return c.block(data, i, &ct.blocks[len(ct.blocks)-1])
	})
}

// block walks the block object at i into b, a zero fblock, by the request
// walk's rules.
func (c *fastConverter) block(data []byte, i int, b *fblock) (int, error) {
	if i >= len(data) || data[i] != '{' {
		return 0, errTyped
	}
	return jsonbytes.ScanObjectAt(data, i, func(name []byte, i int) (int, error) {
		if !jsonbytes.PlainName(name, fastBlockFields) {
			return 0, errTyped
		}
		f := fastBlockFields[string(name)]
		if f == 0 {
			return skip(data, i)
		}
		if b.seen&f != 0 || data[i] == 'n' {
			return 0, errTyped
		}
		b.seen |= f
		switch f {
		case bInput:
			end, err := skip(data, i)
			b.input = data[i:end]
			return end, err
		case bIsError:
			switch {
			case jsonbytes.HasAt(data, i, "true"):
				b.isError = true
				return i + 4, nil
			case jsonbytes.HasAt(data, i, "false"):
				return i + 5, nil
			}
			return 0, errTyped
		case bSource:
			b.source = &fsource{}
			return c.source(data, i, b.source)
		case bContent:
			return c.content(data, i, &b.content)
		}
		var sf *sfield
		switch f {
		case bType:
			sf = &b.typ
		case bText:
			sf = &b.text
		case bThinking:
			sf = &b.thinking
		case bSignature:
			sf = &b.signature
		case bData:
			sf = &b.data
		case bID:
			sf = &b.id
		case bName:
			sf = &b.name
		default:
			sf = &b.toolUseID
		}
		if data[i] != '"' {
			return 0, errTyped
		}
		return c.str(data, i, sf)
	})
}

// source walks a block's source at i: a string (a search result's) or an
// object whose known members are strings.
func (c *fastConverter) source(data []byte, i int, s *fsource) (int, error) {
	switch data[i] {
	case '"':
		s.isString = true
		end := jsonbytes.ValidString(data, i)
		if end < 0 {
			return 0, errTyped
		}
		return end, nil
	case '{':
	default:
		return 0, errTyped
	}
	seen := 0
	return jsonbytes.ScanObjectAt(data, i, func(name []byte, i int) (int, error) {
		if !jsonbytes.PlainName(name, fastSourceFields) {
			return 0, errTyped
		}
		f := fastSourceFields[string(name)]
		if f == 0 {
			return skip(data, i)
		}
		if seen&f != 0 || data[i] != '"' {
			return 0, errTyped
		}
		seen |= f
		var sf *sfield
		switch f {
		case 1:
			sf = &s.typ
		case 2:
			sf = &s.mediaType
		case 4:
			sf = &s.data
		default:
			sf = &s.url
		}
		return c.str(data, i, sf)
	})
}

// walkContent walks the Content at i of the message being converted into
// c.blocks (a string is one text block).
func (c *fastConverter) walkContent(data []byte, i int) (int, error) {
	c.stage = c.stage[:0]
	ct := fcontent{blocks: c.blocks[:0]}
	end, err := c.content(data, i, &ct)
	if err != nil {
		return 0, err
	}
	if ct.isString {
		ct.blocks = append(ct.blocks, fblock{text: ct.str})
		ct.blocks[len(ct.blocks)-1].typ = sfield{raw: []byte("text")}
	}
	c.blocks = ct.blocks
	return end, nil
}

// systemField walks the request's system field.
func (c *fastConverter) systemField(data []byte) error {
	if _, err := c.walkContent(data, 0); err != nil {
		return err
	}
	c.systemParts()
	return nil
}

// systemParts adds the text blocks of c.blocks to the system instruction.
func (c *fastConverter) systemParts() {
	for k := range c.blocks {
		b := &c.blocks[k]
		if !c.is(&b.typ, "text") || len(b.text.raw) == 0 {
			continue
		}
		if c.nsys > 0 {
			c.sys = append(c.sys, ',')
		}
		c.nsys++
		c.sys = append(c.sys, `{"text":"`...)
		c.sys = append(c.sys, c.escaped(&b.text)...)
		c.sys = append(c.sys, `"}`...)
	}
}

// message converts the message object at i, once it is walked: its role
// may come after its content.
func (c *fastConverter) message(data []byte, i int) (int, error) {
	if i >= len(data) || data[i] != '{' {
		return 0, errTyped
	}
	var role []byte
	seen := 0
	end, err := jsonbytes.ScanObjectAt(data, i, func(name []byte, i int) (int, error) {
		if !jsonbytes.PlainName(name, fastMessageFields) {
			return 0, errTyped
		}
		f := fastMessageFields[string(name)]
		if f == 0 {
			return skip(data, i)
		}
		if seen&f != 0 {
			return 0, errTyped
		}
		seen |= f
		if f == 1 {
			end := jsonbytes.ValidString(data, i)
			if end < 0 || bytes.IndexByte(data[i:end], '\\') >= 0 {
				return 0, errTyped
			}
			role = data[i+1 : end-1]
			return end, nil
		}
		if data[i] == 'n' {
			return 0, errTyped
		}
		return c.walkContent(data, i)
	})
	if err != nil || seen&2 == 0 {
		return end, err
	}
	switch string(role) {
	case "system":
		c.systemParts()
	case "assistant":
		err = c.modelParts()
	default:
		err = c.userParts()
	}
	return end, err
}

// openTurn starts a part of a turn of role, in a new turn unless the open
// one has that role (Gemini wants the roles to alternate).
func (c *fastConverter) openTurn(role string) {
	if c.role != role {
		c.closeTurn()
		if c.turns > 0 {
			c.out = append(c.out, ',')
		}
		c.turns++
		c.out = append(c.out, `{"role":"`...)
		c.out = append(c.out, role...)
		c.out = append(c.out, `","parts":[`...)
		c.role, c.parts = role, 0
	}
}

// beginPart opens a part object in a turn of role.
func (c *fastConverter) beginPart(role string) {
	c.openTurn(role)
	if c.parts > 0 {
		c.out = append(c.out, ',')
	}
	c.parts++
	c.out = append(c.out, '{')
}

// endModelPart closes a model part with its signature, applying
// signModelParts' rules as the parts go by.
func (c *fastConverter) endModelPart(sig string, call bool) {
	if sig == "" {
		sig = c.pending
	}
	c.pending = ""
	if call && !c.callSeen {
		c.callSeen = true
		if sig == "" {
			sig = SkipSignature
		}
	}
	if sig != "" {
		c.out = append(c.out, `,"thoughtSignature":`...)
		c.out = jsonbytes.AppendStringNoHTML(c.out, sig)
	}
	c.out = append(c.out, '}')
}

// closeTurn ends the open turn. A model turn's signature with no part
// after it stays where Gemini put it, on an empty text part.
func (c *fastConverter) closeTurn() {
	if c.role == "" {
		return
	}
	if c.pending != "" {
		c.beginPart(c.role)
		c.out = append(c.out, `"text":""`...)
		c.endModelPart("", false)
	}
	c.out = append(c.out, "]}"...)
	c.role, c.pending, c.callSeen = "", "", false
}

// textField writes "text": and the escaped text of f.
func (c *fastConverter) textField(f *sfield) {
	c.out = append(c.out, `"text":"`...)
	c.out = append(c.out, c.escaped(f)...)
	c.out = append(c.out, '"')
}

// modelParts converts the assistant message in c.blocks (modelParts).
func (c *fastConverter) modelParts() error {
	for k := range c.blocks {
		b := &c.blocks[k]
		switch {
		case c.is(&b.typ, "tool_use"):
			if len(b.id.raw) > 0 {
				id := string(c.text(&b.id, 0))
				name := string(c.text(&b.name, 1))
				if prev, ok := c.toolNames[id]; ok && prev != name {
					// The typed converter names every tool_result after
					// the last tool_use of an id, even one answered
					// before it.
					return errTyped
				}
				c.toolNames[id] = name
			}
			sig, callID, _ := decodeToolID(c.x.Settings.Signer, string(c.text(&b.id, 0)))
			c.beginPart("model")
			c.out = append(c.out, `"functionCall":{`...)
			if callID != "" {
				c.out = append(c.out, `"id":`...)
				c.out = jsonbytes.AppendStringNoHTML(c.out, callID)
				c.out = append(c.out, ',')
			}
			c.out = append(c.out, `"name":"`...)
			c.out = append(c.out, c.escaped(&b.name)...)
			c.out = append(c.out, `","args":`...)
			if args := b.input; len(args) == 0 || args[0] != '{' {
				c.out = append(c.out, "{}"...)
			} else {
				c.out = jsonbytes.AppendCompact(c.out, args)
			}
			c.out = append(c.out, '}')
			c.endModelPart(sig, true)
		case c.is(&b.typ, "thinking"):
			c.thinkingPart(b)
		default:
			if c.commonKind(b) != partNone {
				c.beginPart("model")
				c.commonFields(b)
				c.endModelPart("", false)
			}
		}
	}
	return nil
}

// thinkingPart converts a history thinking block (thinkingPart).
func (c *fastConverter) thinkingPart(b *fblock) {
	if c.x.Settings.Signer == nil {
		return
	}
	if c.opener == nil {
		c.opener = c.x.Settings.Signer.NewOpener()
	}
	origin, f, ok := c.opener.Open(c.text(&b.signature, 1), c.text(&b.thinking, 0))
	if !ok {
		return
	}
	foreign := string(f)
	switch origin {
	case providers.OriginGemini:
		if len(b.thinking.raw) == 0 && foreign != "" {
			// An empty part carrying a signature: the signature belongs
			// to the next part.
			c.openTurn("model")
			c.pending = foreign
			return
		}
		c.beginPart("model")
		c.textField(&b.thinking)
		c.out = append(c.out, `,"thought":true`...)
		c.endModelPart(foreign, false)
	case providers.OriginTags:
		c.beginPart("model")
		c.out = append(c.out, `"text":"<thinking>`...)
		c.out = append(c.out, c.escaped(&b.thinking)...)
		c.out = append(c.out, `</thinking>"`...)
		c.endModelPart("", false)
	}
}

// What a block becomes (commonPart, mediaPart).
const (
	partNone = iota
	partText
	partInline
	partFile
	partSourceText
)

// commonKind is what commonPart makes of b.
func (c *fastConverter) commonKind(b *fblock) int {
	switch {
	case c.is(&b.typ, "text"):
		if len(b.text.raw) == 0 {
			return partNone
		}
		return partText
	case c.is(&b.typ, "image"), c.is(&b.typ, "document"):
		return c.mediaKind(b)
	}
	c.x.Logger.Debug("gemini: dropping a content block Gemini has no form for")
	return partNone
}

// mediaKind is what mediaPart makes of b.
func (c *fastConverter) mediaKind(b *fblock) int {
	s := b.source
	if s == nil || s.isString {
		return partNone
	}
	switch {
	case c.is(&s.typ, "base64"):
		return partInline
	case c.is(&s.typ, "url"):
		return partFile
	case c.is(&s.typ, "text"):
		if len(s.data.raw) == 0 {
			return partNone
		}
		return partSourceText
	}
	return partNone
}

// commonFields writes the fields of the part commonPart makes of b.
func (c *fastConverter) commonFields(b *fblock) {
	if c.is(&b.typ, "text") {
		c.textField(&b.text)
		return
	}
	c.mediaFields(b)
}

// mediaFields writes the fields of the part mediaPart makes of b.
func (c *fastConverter) mediaFields(b *fblock) {
	s := b.source
	mimeType := func() {
		if len(s.mediaType.raw) == 0 && c.is(&b.typ, "document") {
			c.out = append(c.out, "application/pdf"...)
		} else {
			c.out = append(c.out, c.escaped(&s.mediaType)...)
		}
	}
	switch c.mediaKind(b) {
	case partInline:
		c.out = append(c.out, `"inlineData":{"mimeType":"`...)
		mimeType()
		c.out = append(c.out, `","data":"`...)
		c.out = append(c.out, c.escaped(&s.data)...)
		c.out = append(c.out, `"}`...)
	case partFile:
		c.out = append(c.out, `"fileData":{`...)
		if len(s.mediaType.raw) > 0 || c.is(&b.typ, "document") {
			c.out = append(c.out, `"mimeType":"`...)
			mimeType()
			c.out = append(c.out, `",`...)
		}
		c.out = append(c.out, `"fileUri":"`...)
		c.out = append(c.out, c.escaped(&s.url)...)
		c.out = append(c.out, `"}`...)
	case partSourceText:
		c.textField(&s.data)
	}
}

// userParts converts the user message in c.blocks (userParts): its
// functionResponses first, then the rest in order.
func (c *fastConverter) userParts() error {
	for k := range c.blocks {
		b := &c.blocks[k]
		if !c.is(&b.typ, "tool_result") {
			continue
		}
		name, ok := c.toolNames[string(c.text(&b.toolUseID, 0))]
		if !ok {
			return errTyped // an error, or a tool_use further on: the typed converter's
		}
		_, callID, _ := decodeToolID(c.x.Settings.Signer, string(c.text(&b.toolUseID, 0)))
		c.beginPart("user")
		c.out = append(c.out, `"functionResponse":{`...)
		if callID != "" {
			c.out = append(c.out, `"id":`...)
			c.out = jsonbytes.AppendStringNoHTML(c.out, callID)
			c.out = append(c.out, ',')
		}
		c.out = append(c.out, `"name":`...)
		c.out = jsonbytes.AppendStringNoHTML(c.out, name)
		if b.isError {
			c.out = append(c.out, `,"response":{"error":"`...)
		} else {
			c.out = append(c.out, `,"response":{"output":"`...)
		}
		ct := &b.content
		switch {
		case ct.isString:
			c.out = append(c.out, c.escaped(&ct.str)...)
		default:
			texts := 0
			for n := range ct.blocks {
				if nb := &ct.blocks[n]; c.is(&nb.typ, "text") {
					if texts > 0 {
						c.out = append(c.out, `\n`...)
					}
					texts++
					c.out = append(c.out, c.escaped(&nb.text)...)
				}
			}
		}
		c.out = append(c.out, `"}}}`...)
	}
	for k := range c.blocks {
		b := &c.blocks[k]
		if c.is(&b.typ, "tool_result") {
			for n := range b.content.blocks {
				nb := &b.content.blocks[n]
				if (c.is(&nb.typ, "image") || c.is(&nb.typ, "document")) && c.mediaKind(nb) != partNone {
					c.beginPart("user")
					c.mediaFields(nb)
					c.out = append(c.out, '}')
				}
			}
			continue
		}
		if c.commonKind(b) != partNone {
			c.beginPart("user")
			c.commonFields(b)
			c.out = append(c.out, '}')
		}
	}
	return nil
}
