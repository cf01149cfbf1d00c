package gemini

import (
	"fmt"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// A long conversation is mostly text the client already escaped as the
// upstream body needs it: decoding every string into Go strings and
// escaping them again cost more than the rest of the request's way
// upstream. The converter writes the body from the client's bytes in one
// walk of the history (wire.HistoryReader, which reads them as
// encoding/json decodes them): each string is copied as it is, or with only
// its escapes rewritten (jsonbytes.AppendCanonicalBody), one block at a
// time, so that nothing is kept per block; only the small parts (tools,
// tool_choice, the generation settings) are encoded from the decoded
// request. It handles every request the request parse accepts, however
// the handler read it; typed_test.go keeps the typed converter it replaced
// as the reference FuzzGeminiConvertMatchesTyped holds it to.

// ScansRequest: the converter reads the client's bytes, so the request is
// read with ScanRequest and its history is never decoded into Go strings.
func (p *Provider) ScansRequest() bool { return true }

// bodyForm is which body the converter writes.
type bodyForm int

const (
	formGenerate      bodyForm = iota // generateContent, streamGenerateContent
	formCountTokens                   // Gemini API countTokens: {"generateContentRequest":{…}}
	formCountContents                 // Vertex AI countTokens: contents, systemInstruction, tools
)

// requestBody returns the upstream body for x.
func (p *Provider) requestBody(x *providers.Exchange, model string) ([]byte, error) {
	form := formGenerate
	if x.CountTokens {
		form = formCountTokens
	}
	return writeRequest(x, p.cfg.ThinkingBudget, p.cfg.SchemaExpansion, p.levelsFor(model), model, form)
}

// converter writes one request's upstream body.
type converter struct {
	x     *providers.Exchange
	h     *wire.HistoryReader
	out   []byte
	sys   []byte // systemInstruction's parts, written after the contents
	nsys  int
	stage []byte    // a string rewritten as the escaper writes it
	buf   [2][]byte // decoded text, when a string has escapes
	// block and sub are the block being written and a block of its own
	// content.
	block, sub wire.HistoryBlock

	// toolNames maps every tool_use id of the history to its tool's name
	// (the last tool_use of an id names it): Gemini's functionResponse
	// needs the name, Anthropic's tool_result only has the id.
	toolNames map[string]wire.RawString
	opener    *emit.Opener

	// The turn being written: role "" when none is open.
	role     string
	turns    int
	parts    int
	pending  string // a signature waiting for the model turn's next part
	callSeen bool   // the model turn's first functionCall is written
}

// writeRequest writes the upstream body of form for x.
func writeRequest(x *providers.Exchange, budget, expansion int, levels []providers.EffortStep, model string, form bodyForm) ([]byte, error) {
	h, err := wire.NewHistoryReader(x.Body)
	if err != nil {
		return nil, wire.InvalidRequest("invalid request: " + err.Error())
	}
	c := &converter{x: x, h: h, out: x.NewBody(bodyRoom(x)), toolNames: map[string]wire.RawString{}}
	if err := c.collectToolNames(); err != nil {
		return nil, err
	}
	if form == formCountTokens {
		c.out = append(c.out, `{"generateContentRequest":{"model":`...)
		c.out = jsonbytes.AppendStringNoHTML(c.out, "models/"+model)
		c.out = append(c.out, `,"contents":[`...)
	} else {
		c.out = append(c.out, `{"contents":[`...)
	}
	if err := h.EachBlock(h.System(), &c.block, c.systemPart); err != nil {
		return nil, err
	}
	if err := h.EachMessage(c.message); err != nil {
		return nil, err
	}
	c.closeTurn()
	if c.turns == 0 {
		return nil, wire.InvalidRequest("messages: at least one message with content is required")
	}
	c.out = append(c.out, ']')
	if c.nsys > 0 {
		c.out = append(c.out, `,"systemInstruction":{"parts":[`...)
		c.out = append(c.out, c.sys...)
		c.out = append(c.out, "]}"...)
	}

	// The tools, a declaration at a time, each schema reduced from its
	// bytes straight into the body (schema_bytes.go), so the reduced
	// schemas are never held apart, nor encoded and copied.
	req := x.Request
	decls := 0
	if c.out, decls, err = appendFunctionDeclarations(c.out, req.Tools, expansion); err != nil {
		return nil, err
	}

	// The small parts, typed, encoded into the body: their object's
	// braces become the comma before them, or go.
	var tail struct {
		ToolConfig       *toolConfig       `json:"toolConfig,omitempty"`
		GenerationConfig *generationConfig `json:"generationConfig,omitempty"`
	}
	if decls > 0 && form != formCountContents {
		tail.ToolConfig = toolChoice(req.ToolChoice)
	}
	if form == formGenerate {
		tail.GenerationConfig = generationConfigFor(x, budget, levels)
		if err := applyOutputConfig(x, tail.GenerationConfig, levels); err != nil {
			return nil, err
		}
	}
	at := len(c.out)
	if c.out, err = jsonbytes.AppendEncode(c.out, &tail); err != nil {
		return nil, err
	}
	if len(c.out)-at > 2 {
		c.out[at] = ','
		c.out = c.out[:len(c.out)-1]
	} else {
		c.out = c.out[:at]
	}
	c.out = append(c.out, '}')
	if form == formCountTokens {
		c.out = append(c.out, '}')
	}
	return c.out, nil
}

// bodyRoom is the room the upstream body is written into: the client's
// body, whose strings the contents copy, and what Gemini's framing adds
// to it: a turn's parts list and a role of its own, a function call's
// thought signature, a thirty-second for the rest. A body that
// outgrows its room is copied into one a quarter larger while the old is
// still held: on a hundred thousand short turns that was 2.25 times the
// body.
func bodyRoom(x *providers.Exchange) int {
	return len(x.Body) + len(x.Body)/32 + 32*x.Request.MessageCount() + 256
}

// collectToolNames fills toolNames from the assistant turns' tool_use
// blocks: a tool_result may come before the tool_use it answers, and the
// last tool_use of an id names every result for it.
func (c *converter) collectToolNames() error {
	return c.h.EachMessage(func(_ int, m *wire.HistoryMessage) error {
		if !m.Role.Is("assistant") {
			return nil
		}
		return c.h.EachBlock(m.Content, &c.block, func(_ int, b *wire.HistoryBlock) error {
			if len(b.ID.Raw) > 0 && b.Type.Is("tool_use") {
				c.toolNames[string(c.text(&b.ID, 0))] = b.Name
			}
			return nil
		})
	})
}

// text returns f's text, decoded into buf n unless its bytes are the text.
func (c *converter) text(f *wire.RawString, n int) []byte {
	return f.TextInto(&c.buf[n])
}

// escaped returns f's escaped form, without quotes: its bytes as they are
// when they are what the escaper writes, which is almost always; else
// rewritten into the stage, valid until the next call.
func (c *converter) escaped(f *wire.RawString) []byte {
	if f.Canonical {
		return f.Raw
	}
	c.stage, _ = jsonbytes.AppendCanonicalBody(c.stage[:0], f.Raw)
	return c.stage
}

// systemPart adds a text block of the system prompt, or of a role
// "system" message (Gemini has no system turn), to the system
// instruction.
func (c *converter) systemPart(_ int, b *wire.HistoryBlock) error {
	if !b.Type.Is("text") || len(b.Text.Raw) == 0 {
		return nil
	}
	if c.nsys > 0 {
		c.sys = append(c.sys, ',')
	}
	c.nsys++
	c.sys = append(c.sys, `{"text":"`...)
	c.sys = append(c.sys, c.escaped(&b.Text)...)
	c.sys = append(c.sys, `"}`...)
	return nil
}

// message converts message i.
func (c *converter) message(i int, m *wire.HistoryMessage) error {
	switch {
	case m.Role.Is("system"):
		return c.h.EachBlock(m.Content, &c.block, c.systemPart)
	case m.Role.Is("assistant"):
		return c.h.EachBlock(m.Content, &c.block, c.modelPart)
	}
	return c.userParts(i, m.Content)
}

// openTurn starts a part of a turn of role, in a new turn unless the open
// one has that role (Gemini wants the roles to alternate; a turn left with
// no parts is never opened, Gemini rejects empty ones).
func (c *converter) openTurn(role string) {
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
func (c *converter) beginPart(role string) {
	c.openTurn(role)
	if c.parts > 0 {
		c.out = append(c.out, ',')
	}
	c.parts++
	c.out = append(c.out, '{')
}

// endModelPart closes a model part with its signature, applying Gemini's
// signature rules as the parts go by: a signature on an empty part
// belongs to the next part (docs/providers/gemini.md), and the first
// functionCall of a turn must carry one on Gemini 3, so one whose
// signature could not be recovered gets SkipSignature.
func (c *converter) endModelPart(sig string, call bool) {
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
func (c *converter) closeTurn() {
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
func (c *converter) textField(f *wire.RawString) {
	c.out = append(c.out, `"text":"`...)
	c.out = append(c.out, c.escaped(f)...)
	c.out = append(c.out, '"')
}

// modelPart converts a block of an assistant turn.
func (c *converter) modelPart(_ int, b *wire.HistoryBlock) error {
	switch {
	case b.Type.Is("tool_use"):
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
	case b.Type.Is("thinking"):
		c.thinkingPart(b)
	default:
		if c.commonKind(&b.RawBlock) != partNone {
			c.beginPart("model")
			c.commonFields(&b.RawBlock)
			c.endModelPart("", false)
		}
	}
	return nil
}

// thinkingPart converts a history thinking block by where the gateway got
// it: a Gemini thought goes back as a thought part with its
// thoughtSignature; a span split out of <thinking> tags goes back as the
// tagged text the model wrote. Anything else (an Anthropic thinking block,
// one from another upstream, an unsigned or altered one) is dropped: its
// signature means nothing to Gemini.
func (c *converter) thinkingPart(b *wire.HistoryBlock) {
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
	case emit.OriginGemini:
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
	case emit.OriginTags:
		c.beginPart("model")
		c.out = append(c.out, `"text":"<thinking>`...)
		c.out = append(c.out, c.escaped(&b.Thinking)...)
		c.out = append(c.out, `</thinking>"`...)
		c.endModelPart("", false)
	}
}

// What a block becomes.
const (
	partNone = iota
	partText
	partInline
	partFile
	partSourceText
)

// commonKind is what a block either role may carry becomes: text, image,
// document. Other block types (server tool blocks, redacted_thinking …)
// mean nothing to Gemini and are dropped.
func (c *converter) commonKind(b *wire.RawBlock) int {
	switch {
	case b.Type.Is("text"):
		if len(b.Text.Raw) == 0 {
			return partNone // Gemini rejects empty text parts
		}
		return partText
	case b.Type.Is("image"), b.Type.Is("document"):
		return mediaKind(b)
	}
	c.x.Logger.Debug("gemini: dropping a content block Gemini has no form for")
	return partNone
}

// mediaKind is what an image or document source becomes: base64 data
// inline, a URL as fileData (Gemini fetches what it can and says so when
// it cannot), a plain-text document as text.
func mediaKind(b *wire.RawBlock) int {
	s := &b.Source
	if !s.Present || s.IsString {
		return partNone
	}
	switch {
	case s.Type.Is("base64"):
		return partInline
	case s.Type.Is("url"):
		return partFile
	case s.Type.Is("text"):
		if len(s.Data.Raw) == 0 {
			return partNone
		}
		return partSourceText
	}
	return partNone
}

// commonFields writes the fields of the part commonKind makes of b.
func (c *converter) commonFields(b *wire.RawBlock) {
	if b.Type.Is("text") {
		c.textField(&b.Text)
		return
	}
	c.mediaFields(b)
}

// mediaFields writes the fields of the part mediaKind makes of b.
func (c *converter) mediaFields(b *wire.RawBlock) {
	s := &b.Source
	mimeType := func() {
		if len(s.MediaType.Raw) == 0 && b.Type.Is("document") {
			c.out = append(c.out, "application/pdf"...)
		} else {
			c.out = append(c.out, c.escaped(&s.MediaType)...)
		}
	}
	switch mediaKind(b) {
	case partInline:
		c.out = append(c.out, `"inlineData":{"mimeType":"`...)
		mimeType()
		c.out = append(c.out, `","data":"`...)
		c.out = append(c.out, c.escaped(&s.Data)...)
		c.out = append(c.out, `"}`...)
	case partFile:
		c.out = append(c.out, `"fileData":{`...)
		if len(s.MediaType.Raw) > 0 || b.Type.Is("document") {
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

// userParts converts user message i, whose content is content.
// functionResponse parts go first (Anthropic already demands tool_result
// blocks first; Gemini pairs them with the calls of the previous model
// turn), then everything else in order, images that came inside
// tool_results included: two walks of the content's bytes.
func (c *converter) userParts(i int, content []byte) error {
	h := c.h
	err := h.EachBlock(content, &c.block, func(j int, b *wire.HistoryBlock) error {
		if !b.Type.Is("tool_result") {
			return nil
		}
		id := c.text(&b.ToolUseID, 0)
		name, ok := c.toolNames[string(id)]
		if !ok {
			return wire.InvalidRequest(fmt.Sprintf(
				"messages.%d.content.%d: tool_result for tool_use_id %q has no matching tool_use block in an earlier assistant message",
				i, j, id))
		}
		_, callID, _ := decodeToolID(c.x.Settings.Signer, string(id))
		c.beginPart("user")
		c.out = append(c.out, `"functionResponse":{`...)
		if callID != "" {
			c.out = append(c.out, `"id":`...)
			c.out = jsonbytes.AppendStringNoHTML(c.out, callID)
			c.out = append(c.out, ',')
		}
		c.out = append(c.out, `"name":"`...)
		c.out = append(c.out, c.escaped(&name)...)
		if b.IsError {
			c.out = append(c.out, `","response":{"error":"`...)
		} else {
			c.out = append(c.out, `","response":{"output":"`...)
		}
		// Texts joined by newlines: a newline goes before a text once
		// some text is written.
		wrote := false
		if err := h.EachBlock(b.ContentRaw, &c.sub, func(_ int, nb *wire.HistoryBlock) error {
			if nb.Type.Is("text") {
				if wrote {
					c.out = append(c.out, `\n`...)
				}
				wrote = wrote || len(nb.Text.Raw) > 0
				c.out = append(c.out, c.escaped(&nb.Text)...)
			}
			return nil
		}); err != nil {
			return err
		}
		c.out = append(c.out, `"}}}`...)
		return nil
	})
	if err != nil {
		return err
	}
	return h.EachBlock(content, &c.block, func(_ int, b *wire.HistoryBlock) error {
		if b.Type.Is("tool_result") {
			return h.EachBlock(b.ContentRaw, &c.sub, func(_ int, nb *wire.HistoryBlock) error {
				if (nb.Type.Is("image") || nb.Type.Is("document")) && mediaKind(&nb.RawBlock) != partNone {
					c.beginPart("user")
					c.mediaFields(&nb.RawBlock)
					c.out = append(c.out, '}')
				}
				return nil
			})
		}
		if c.commonKind(&b.RawBlock) != partNone {
			c.beginPart("user")
			c.commonFields(&b.RawBlock)
			c.out = append(c.out, '}')
		}
		return nil
	})
}
