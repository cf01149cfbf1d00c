package gemini

import (
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

// fblock is one content block as the shared reader reads it.
type fblock = providers.RawBlock

// fastConverter writes one request's upstream body.
type fastConverter struct {
	x       *providers.Exchange
	out     []byte
	sys     []byte // systemInstruction's parts, written after the contents
	nsys    int
	stage   []byte // a string rewritten as the escaper writes it
	content providers.RawContent
	blocks  []fblock  // content.Blocks
	buf     [2][]byte // decoded text, when a string has escapes
	// typed is set when a string's text differs from its bytes' as
	// encoding/json decodes it: the body is the typed converter's.
	typed bool

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
	c := &fastConverter{x: x, out: x.NewBody(len(x.Body) + 256), toolNames: map[string]string{}}
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
	if c.turns == 0 || c.typed {
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

// text returns f's text, decoded into buf n unless its bytes are the text.
func (c *fastConverter) text(f *providers.RawString, n int) []byte {
	if f.Plain() {
		return f.Raw
	}
	b := f.Text(c.buf[n][:0])
	if b != nil {
		c.buf[n] = b
	}
	return b
}

// is reports whether f's text is s.
func (c *fastConverter) is(f *providers.RawString, s string) bool { return f.Is(s) }

// escaped returns f's escaped form, without quotes: its bytes as they are
// when they are what the escaper writes, which is almost always; else
// rewritten into the stage, valid until the next call.
func (c *fastConverter) escaped(f *providers.RawString) []byte {
	if f.Canonical {
		return f.Raw
	}
	var replaced bool
	if c.stage, replaced = jsonbytes.AppendCanonicalBody(c.stage[:0], f.Raw); replaced {
		c.typed = true // encoding/json's text differs from the bytes': the typed converter's
	}
	return c.stage
}

// walkContent reads the Content at i of the message being converted into
// c.blocks (a string is one text block).
func (c *fastConverter) walkContent(data []byte, i int) (int, error) {
	end, err := c.content.Read(data, i)
	c.blocks = c.content.Blocks
	return end, err
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
		if !c.is(&b.Type, "text") || len(b.Text.Raw) == 0 {
			continue
		}
		if c.nsys > 0 {
			c.sys = append(c.sys, ',')
		}
		c.nsys++
		c.sys = append(c.sys, `{"text":"`...)
		c.sys = append(c.sys, c.escaped(&b.Text)...)
		c.sys = append(c.sys, `"}`...)
	}
}

// message converts the message object at i, once it is walked: its role
// may come after its content.
func (c *fastConverter) message(data []byte, i int) (int, error) {
	var m providers.RawMessage
	c.blocks = c.blocks[:0]
	end, err := providers.ReadRawMessage(data, i, &m, func(i int) (int, error) {
		return c.walkContent(data, i)
	})
	if err != nil || !m.HasContent {
		return end, err
	}
	if m.Role.Escaped {
		return 0, errTyped
	}
	role := m.Role.Raw
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
func (c *fastConverter) textField(f *providers.RawString) {
	c.out = append(c.out, `"text":"`...)
	c.out = append(c.out, c.escaped(f)...)
	c.out = append(c.out, '"')
}

// modelParts converts the assistant message in c.blocks (modelParts).
func (c *fastConverter) modelParts() error {
	for k := range c.blocks {
		b := &c.blocks[k]
		switch {
		case c.is(&b.Type, "tool_use"):
			if len(b.ID.Raw) > 0 {
				id := string(c.text(&b.ID, 0))
				name := string(c.text(&b.Name, 1))
				if prev, ok := c.toolNames[id]; ok && prev != name {
					// The typed converter names every tool_result after
					// the last tool_use of an id, even one answered
					// before it.
					return errTyped
				}
				c.toolNames[id] = name
			}
			sig, callID, _ := decodeToolID(c.x.Settings.Signer, string(c.text(&b.ID, 0)))
			c.beginPart("model")
			c.out = append(c.out, `"functionCall":{`...)
			if callID != "" {
				c.out = append(c.out, `"id":`...)
				c.out = jsonbytes.AppendStringNoHTML(c.out, callID)
				c.out = append(c.out, ',')
			}
			c.out = append(c.out, `"name":"`...)
			c.out = append(c.out, c.escaped(&b.Name)...)
			c.out = append(c.out, `","args":`...)
			if args := b.Input; len(args) == 0 || args[0] != '{' {
				c.out = append(c.out, "{}"...)
			} else {
				c.out = jsonbytes.AppendCompact(c.out, args)
			}
			c.out = append(c.out, '}')
			c.endModelPart(sig, true)
		case c.is(&b.Type, "thinking"):
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
	origin, f, ok := c.opener.Open(c.text(&b.Signature, 1), c.text(&b.Thinking, 0))
	if !ok {
		return
	}
	foreign := string(f)
	switch origin {
	case providers.OriginGemini:
		if len(b.Thinking.Raw) == 0 && foreign != "" {
			// An empty part carrying a signature: the signature belongs
			// to the next part.
			c.openTurn("model")
			c.pending = foreign
			return
		}
		c.beginPart("model")
		c.textField(&b.Thinking)
		c.out = append(c.out, `,"thought":true`...)
		c.endModelPart(foreign, false)
	case providers.OriginTags:
		c.beginPart("model")
		c.out = append(c.out, `"text":"<thinking>`...)
		c.out = append(c.out, c.escaped(&b.Thinking)...)
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
	case c.is(&b.Type, "text"):
		if len(b.Text.Raw) == 0 {
			return partNone
		}
		return partText
	case c.is(&b.Type, "image"), c.is(&b.Type, "document"):
		return c.mediaKind(b)
	}
	c.x.Logger.Debug("gemini: dropping a content block Gemini has no form for")
	return partNone
}

// mediaKind is what mediaPart makes of b.
func (c *fastConverter) mediaKind(b *fblock) int {
	s := &b.Source
	if !s.Present || s.IsString {
		return partNone
	}
	switch {
	case c.is(&s.Type, "base64"):
		return partInline
	case c.is(&s.Type, "url"):
		return partFile
	case c.is(&s.Type, "text"):
		if len(s.Data.Raw) == 0 {
			return partNone
		}
		return partSourceText
	}
	return partNone
}

// commonFields writes the fields of the part commonPart makes of b.
func (c *fastConverter) commonFields(b *fblock) {
	if c.is(&b.Type, "text") {
		c.textField(&b.Text)
		return
	}
	c.mediaFields(b)
}

// mediaFields writes the fields of the part mediaPart makes of b.
func (c *fastConverter) mediaFields(b *fblock) {
	s := &b.Source
	mimeType := func() {
		if len(s.MediaType.Raw) == 0 && c.is(&b.Type, "document") {
			c.out = append(c.out, "application/pdf"...)
		} else {
			c.out = append(c.out, c.escaped(&s.MediaType)...)
		}
	}
	switch c.mediaKind(b) {
	case partInline:
		c.out = append(c.out, `"inlineData":{"mimeType":"`...)
		mimeType()
		c.out = append(c.out, `","data":"`...)
		c.out = append(c.out, c.escaped(&s.Data)...)
		c.out = append(c.out, `"}`...)
	case partFile:
		c.out = append(c.out, `"fileData":{`...)
		if len(s.MediaType.Raw) > 0 || c.is(&b.Type, "document") {
			c.out = append(c.out, `"mimeType":"`...)
			mimeType()
			c.out = append(c.out, `",`...)
		}
		c.out = append(c.out, `"fileUri":"`...)
		c.out = append(c.out, c.escaped(&s.URL)...)
		c.out = append(c.out, `"}`...)
	case partSourceText:
		c.textField(&s.Data)
	}
}

// userParts converts the user message in c.blocks (userParts): its
// functionResponses first, then the rest in order.
func (c *fastConverter) userParts() error {
	for k := range c.blocks {
		b := &c.blocks[k]
		if !c.is(&b.Type, "tool_result") {
			continue
		}
		name, ok := c.toolNames[string(c.text(&b.ToolUseID, 0))]
		if !ok {
			return errTyped // an error, or a tool_use further on: the typed converter's
		}
		_, callID, _ := decodeToolID(c.x.Settings.Signer, string(c.text(&b.ToolUseID, 0)))
		c.beginPart("user")
		c.out = append(c.out, `"functionResponse":{`...)
		if callID != "" {
			c.out = append(c.out, `"id":`...)
			c.out = jsonbytes.AppendStringNoHTML(c.out, callID)
			c.out = append(c.out, ',')
		}
		c.out = append(c.out, `"name":`...)
		c.out = jsonbytes.AppendStringNoHTML(c.out, name)
		if b.IsError {
			c.out = append(c.out, `,"response":{"error":"`...)
		} else {
			c.out = append(c.out, `,"response":{"output":"`...)
		}
		// Texts joined by newlines, as toolResultContent joins them: a
		// newline goes before a text once some text is written.
		wrote := false
		subs := c.content.Content(b)
		for n := range subs {
			if nb := &subs[n]; c.is(&nb.Type, "text") {
				if wrote {
					c.out = append(c.out, `\n`...)
				}
				wrote = wrote || len(nb.Text.Raw) > 0
				c.out = append(c.out, c.escaped(&nb.Text)...)
			}
		}
		c.out = append(c.out, `"}}}`...)
	}
	for k := range c.blocks {
		b := &c.blocks[k]
		if c.is(&b.Type, "tool_result") {
			subs := c.content.Content(b)
			for n := range subs {
				nb := &subs[n]
				if (c.is(&nb.Type, "image") || c.is(&nb.Type, "document")) && c.mediaKind(nb) != partNone {
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
