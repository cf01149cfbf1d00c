package converse

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// The converter writes the Converse body from the client's bytes in one
// walk of the history (wire.HistoryReader, which reads them as
// encoding/json decodes them): each string is copied as it is, or with
// only its escapes rewritten, one block at a time, so that nothing is kept
// per block and a request costs about its body again whatever its shape.
// Only the small parts (tools, tool_choice, the inference settings and the
// family's thinking fields) are encoded from the decoded request.
// typed_test.go keeps the typed converter it replaced as the reference
// FuzzConvertMatchesTyped holds it to.

// settings are the parts of the body after the history and the system
// prompt, encoded from the decoded request.
type settings struct {
	InferenceConfig              *inferenceConfig `json:"inferenceConfig,omitempty"`
	ToolConfig                   *toolConfig      `json:"toolConfig,omitempty"`
	AdditionalModelRequestFields map[string]any   `json:"additionalModelRequestFields,omitempty"`
	OutputConfig                 *outputConfig    `json:"outputConfig,omitempty"`
	// AdditionalModelResponseFieldPaths asks Claude which stop sequence
	// matched, which Converse's stopReason does not say.
	AdditionalModelResponseFieldPaths []string `json:"additionalModelResponseFieldPaths,omitempty"`
}

type inferenceConfig struct {
	MaxTokens     int      `json:"maxTokens,omitempty"`
	Temperature   *float64 `json:"temperature,omitempty"`
	TopP          *float64 `json:"topP,omitempty"`
	StopSequences []string `json:"stopSequences,omitempty"`
}

func (ic *inferenceConfig) empty() bool {
	return ic.MaxTokens == 0 && ic.Temperature == nil && ic.TopP == nil && len(ic.StopSequences) == 0
}

type cachePointBlock struct {
	CachePoint cachePoint `json:"cachePoint"`
}

type cachePoint struct {
	Type string `json:"type"`
}

// aCachePoint is the cache breakpoint a cache_control becomes.
var aCachePoint = cachePointBlock{CachePoint: cachePoint{Type: "default"}}

// cachePointJSON is aCachePoint as the body holds it.
const cachePointJSON = `{"cachePoint":{"type":"default"}}`

type toolConfig struct {
	Tools      []any `json:"tools"`
	ToolChoice any   `json:"toolChoice,omitempty"`
}

type toolSpecBlock struct {
	ToolSpec toolSpec `json:"toolSpec"`
}

type toolSpec struct {
	Name        string      `json:"name"`
	Description string      `json:"description,omitempty"`
	InputSchema inputSchema `json:"inputSchema"`
}

type inputSchema struct {
	JSON json.RawMessage `json:"json"`
}

// emptySchema is the schema of a tool that declares none.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// conversion is what the conversion of one request knows besides its
// history.
type conversion struct {
	x      *providers.Exchange
	opts   Options
	family string
	cache  bool // cache_control becomes cachePoint
	tag    string
	// toolsAsText: no tools go upstream (none declared, or tool_choice
	// none), and Converse refuses toolUse and toolResult blocks without a
	// toolConfig: the history's tool calls and results go as text.
	toolsAsText bool
	docs        int
	// betas are the client's betas, for Claude's anthropic_beta.
	betas []string
}

func newConversion(x *providers.Exchange, opts Options, betas []string) conversion {
	c := conversion{x: x, opts: opts, family: opts.ThinkingFamily, tag: "thinking", betas: betas}
	if c.family == "" {
		c.family = familyOf(x.UpstreamModel)
	}
	switch opts.CachePoints {
	case CacheOn:
		c.cache = true
	case "", CacheAuto:
		c.cache = takesCachePoints(c.family, x.UpstreamModel)
	}
	if tags := x.Settings.Parse.Tags; len(tags) > 0 {
		c.tag = tags[0]
	}
	return c
}

// toolSettings converts the tools and tool_choice, and decides whether
// the history's tool calls go as text.
func (c *conversion) toolSettings() (*toolConfig, error) {
	req := c.x.Request
	tools, err := c.tools(req.Tools)
	if err != nil {
		return nil, err
	}
	tc, err := c.toolConfig(tools, req.ToolChoice)
	if err != nil {
		return nil, err
	}
	c.toolsAsText = tc == nil
	return tc, nil
}

// settings are the request's settings: for count_tokens only its tools.
// toolLoop reports whether the history ends answering tool calls of an
// assistant turn that does not begin with reasoning.
func (c *conversion) settings(tc *toolConfig, toolLoop bool) (settings, error) {
	out := settings{ToolConfig: tc}
	if c.x.CountTokens {
		return out, nil
	}
	req := c.x.Request
	out.InferenceConfig = &inferenceConfig{MaxTokens: req.MaxTokens, Temperature: req.Temperature,
		TopP: req.TopP, StopSequences: req.StopSequences}
	c.thinking(&out, toolLoop)
	if err := c.outputConfig(&out); err != nil {
		return out, err
	}
	if c.family == FamilyClaude && len(req.StopSequences) > 0 {
		out.AdditionalModelResponseFieldPaths = []string{"/stop_sequence"}
	}
	if out.InferenceConfig.empty() {
		out.InferenceConfig = nil
	}
	return out, nil
}

func unsupported(path, what string) error {
	return wire.InvalidRequest(fmt.Sprintf("%s: %s is not supported by Bedrock's Converse API", path, what))
}

// Framing the Converse body adds to the client's at the most: a tool's
// toolSpec (with a cachePoint after it, or the default schema of a tool
// that has none), and a message's (a string content becomes a text block
// in a content array).
const (
	toolSpecFraming  = 96
	messageFraming   = 16
	encodedRoomSlack = 4 << 10
)

// encodedRoom is the room the Converse body is written into: the client's
// body and what Converse's framing adds to its tools and messages, and to
// the tool calls that go as text. A body
// that outgrows its buffer holds the old one and one a quarter larger at
// once (2.25 times a large body). A block's own framing is smaller in
// Converse than in the client's body.
func encodedRoom(x *providers.Exchange, toolsAsText bool) int {
	n := len(x.Body) + encodedRoomSlack + toolSpecFraming*len(x.Request.Tools) + messageFraming*x.Request.MessageCount()
	if toolsAsText {
		// A tool call's input becomes text, where each quote and
		// backslash of it is escaped: the most that adds is one byte for
		// each in the body.
		n += bytes.Count(x.Body, []byte{'"'}) + bytes.Count(x.Body, []byte{'\\'})
	}
	return n
}

// hasCacheControl reports whether a block or tool, as the client sent it,
// asks for a cache breakpoint after it.
func hasCacheControl(raw []byte) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	v, typ, _, err := jsonparser.Get(raw, "cache_control")
	return err == nil && typ == jsonparser.Object && len(v) > 0
}

// tools converts client tools to toolSpecs. Server tools run only on
// Anthropic's side, except tool_search, whose job (making deferred tools
// available) is done by sending every tool in full.
func (c *conversion) tools(tools []wire.Tool) ([]any, error) {
	var out []any
	for i, t := range tools {
		if !t.IsCustom() {
			if strings.HasPrefix(t.Type, "tool_search_tool") {
				continue
			}
			return nil, unsupported(fmt.Sprintf("tools.%d", i), fmt.Sprintf("server tool %q (type %q)", t.Name, t.Type))
		}
		schema := bytes.TrimSpace(t.InputSchema)
		if len(schema) == 0 || string(schema) == "null" {
			schema = emptySchema
		}
		out = append(out, toolSpecBlock{ToolSpec: toolSpec{Name: t.Name, Description: t.Description, InputSchema: inputSchema{JSON: schema}}})
		if c.cache && hasCacheControl(t.Raw) {
			out = append(out, aCachePoint)
		}
	}
	return out, nil
}

// toolConfig builds toolConfig from the tools and tool_choice. Converse
// has no toolChoice none: none sends no tools.
func (c *conversion) toolConfig(tools []any, choice *wire.ToolChoice) (*toolConfig, error) {
	if len(tools) == 0 {
		return nil, nil
	}
	tc := &toolConfig{Tools: tools}
	if choice == nil {
		return tc, nil
	}
	switch choice.Type {
	case "auto", "":
		tc.ToolChoice = map[string]any{"auto": struct{}{}}
	case "any":
		tc.ToolChoice = map[string]any{"any": struct{}{}}
	case "tool":
		tc.ToolChoice = map[string]any{"tool": map[string]string{"name": choice.Name}}
	case "none":
		return nil, nil
	default:
		return nil, wire.InvalidRequest(fmt.Sprintf("tool_choice.type: must be auto, any, tool or none, got %q", choice.Type))
	}
	return tc, nil
}

// imageFormats maps an image's media type to Converse's format.
var imageFormats = map[string]string{
	"image/png":  "png",
	"image/jpeg": "jpeg",
	"image/gif":  "gif",
	"image/webp": "webp",
}

// documentFormats maps a document's media type to Converse's format.
var documentFormats = map[string]string{
	"application/pdf":    "pdf",
	"text/plain":         "txt",
	"text/csv":           "csv",
	"text/html":          "html",
	"text/markdown":      "md",
	"application/msword": "doc",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
	"application/vnd.ms-excel": "xls",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
}

// noContent is the text of a tool result that holds none: Converse refuses
// an empty text block.
const noContent = "(no content)"

// converter writes one request's Converse body.
type converter struct {
	conversion
	h   *wire.HistoryReader
	out []byte
	sys []byte // the system prompt's blocks, written after the messages
	// nsys counts the system prompt's text blocks.
	nsys int
	// block and sub are the block being written and a block of its own
	// content.
	block, sub wire.HistoryBlock
	stage      []byte    // a string rewritten as the escaper writes it
	buf        [2][]byte // decoded text, when a string has escapes
	opener     *emit.Opener

	// The turn being written: role is empty when none is open.
	role  []byte
	turns int
	// The open turn's and the one before's: whether the first block is
	// reasoning, whether a block is a toolResult, the role.
	cur, prev turnFacts
	// msg is the index of the message being converted, -1 for the
	// system prompt.
	msg int
	// blocks counts the blocks the message being converted has written,
	// inner those of the toolResult being written.
	blocks, inner int
	// run is an assistant message's run of text, written into out as it
	// comes and taken back if it is all white space (see addText).
	run runState
}

// runState is where a run of text began, to take it back.
type runState struct {
	open, blank   bool
	mark          int
	turns, blocks int
	cur, prev     turnFacts
	role          []byte
}

// turnFacts is what toolLoopWithoutReasoning asks of a turn.
type turnFacts struct {
	user, assistant, reasoned, answers bool
}

// convert writes the Converse (or count-tokens) body of x's request.
func convert(x *providers.Exchange, opts Options, betas []string) ([]byte, *State, error) {
	h, err := wire.NewHistoryReader(x.Body)
	if err != nil {
		return nil, nil, wire.InvalidRequest("invalid request: " + err.Error())
	}
	c := &converter{conversion: newConversion(x, opts, betas), h: h, msg: -1}
	tc, err := c.toolSettings()
	if err != nil {
		return nil, nil, err
	}
	c.out = x.NewBody(encodedRoom(x, c.toolsAsText))
	if x.CountTokens {
		c.out = append(c.out, `{"input":{"converse":{"messages":[`...)
	} else {
		c.out = append(c.out, `{"messages":[`...)
	}
	if err := c.systemBlocks(h.System()); err != nil {
		return nil, nil, err
	}
	if err := h.EachMessage(c.message); err != nil {
		return nil, nil, err
	}
	if c.turns > 0 {
		c.out = append(c.out, "]}"...)
	}
	c.out = append(c.out, ']')
	if c.nsys > 0 {
		c.out = append(c.out, `,"system":[`...)
		c.out = append(c.out, c.sys...)
		c.out = append(c.out, ']')
	}
	// The settings, typed, encoded into the body: their object's braces
	// become the comma before them, or go.
	tail, err := c.settings(tc, c.toolLoopWithoutReasoning())
	if err != nil {
		return nil, nil, err
	}
	at := len(c.out)
	if c.out, err = jsonbytes.AppendEncode(c.out, &tail); err != nil {
		return nil, nil, err
	}
	if len(c.out)-at > 2 {
		c.out[at] = ','
		c.out = c.out[:len(c.out)-1]
	} else {
		c.out = c.out[:at]
	}
	c.out = append(c.out, '}')
	if x.CountTokens {
		c.out = append(c.out, "}}"...)
	}
	return c.out, &State{Family: c.family}, nil
}

// toolLoopWithoutReasoning reports whether the request answers tool calls
// (its last turn holds tool results) of an assistant turn that does not
// begin with a reasoning block.
func (c *converter) toolLoopWithoutReasoning() bool {
	return c.turns >= 2 && c.cur.user && c.prev.assistant && c.cur.answers && !c.prev.reasoned
}

// textOf returns f's text, decoded into buf n unless its bytes are the
// text.
func (c *converter) textOf(f *wire.RawString, n int) []byte {
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

// blank reports whether f's text is empty or only white space: Converse
// refuses such a text block.
func (c *converter) blank(f *wire.RawString) bool {
	return blankText(c.textOf(f, 0))
}

// blankText is strings.TrimSpace(string(p)) == "" without the string.
func blankText(p []byte) bool {
	for len(p) > 0 {
		if p[0] < utf8.RuneSelf {
			if !unicode.IsSpace(rune(p[0])) {
				return false
			}
			p = p[1:]
			continue
		}
		r, n := utf8.DecodeRune(p)
		if !unicode.IsSpace(r) {
			return false
		}
		p = p[n:]
	}
	return true
}

// where names block j of the message being converted, and its block k
// (-1: the block itself), as an error names them.
func (c *converter) where(j, k int) string {
	s := "system"
	if c.msg >= 0 {
		s = "messages." + strconv.Itoa(c.msg) + ".content"
	}
	s += "." + strconv.Itoa(j)
	if k >= 0 {
		s += ".content." + strconv.Itoa(k)
	}
	return s
}

// typeName is b's type as an error names it.
func typeName(b *wire.HistoryBlock) string { return strconv.Quote(b.Type.TextString()) }

// systemBlocks appends a system prompt's text blocks to the system.
func (c *converter) systemBlocks(content []byte) error {
	return c.h.EachBlock(content, &c.block, func(j int, b *wire.HistoryBlock) error {
		if !b.Type.Is("text") {
			return unsupported(c.where(j, -1), "content block type "+typeName(b)+" in a system prompt")
		}
		if len(b.Text.Raw) > 0 {
			c.sysBlock()
			c.sys = append(c.sys, `{"text":"`...)
			c.sys = append(c.sys, c.escaped(&b.Text)...)
			c.sys = append(c.sys, `"}`...)
		}
		if c.cache && c.nsys > 0 && hasCacheControl(b.Raw) {
			c.sysBlock()
			c.sys = append(c.sys, cachePointJSON...)
		}
		return nil
	})
}

// sysBlock starts a block of the system prompt.
func (c *converter) sysBlock() {
	if c.nsys > 0 {
		c.sys = append(c.sys, ',')
	}
	c.nsys++
}

// message converts one turn. Converse wants user and assistant turns to
// alternate: a turn of the same role as the one before joins it. A system
// message (Claude Code sends them inside messages) joins the system prompt.
func (c *converter) message(i int, m *wire.HistoryMessage) error {
	c.msg, c.blocks = i, 0
	switch {
	case m.Role.Is("system"):
		return c.systemBlocks(m.Content)
	case m.Role.Is("assistant"):
		return c.assistant(m)
	}
	return c.user(m)
}

// beginBlock starts a block of message m's turn: in a new turn unless the
// open one has m's role (a message with nothing Converse takes opens
// none).
func (c *converter) beginBlock(m *wire.HistoryMessage) {
	c.blocks++
	role := c.textOf(&m.Role, 1)
	if c.turns > 0 && bytes.Equal(role, c.role) {
		c.out = append(c.out, ',')
		return
	}
	if c.turns > 0 {
		c.out = append(c.out, "]},"...)
	}
	c.turns++
	c.role = append(c.role[:0], role...)
	c.prev = c.cur
	c.cur = turnFacts{user: string(role) == "user", assistant: string(role) == "assistant"}
	c.out = append(c.out, `{"role":"`...)
	c.out = jsonbytes.AppendStringBodyNoHTML(c.out, role)
	c.out = append(c.out, `","content":[`...)
}

// begin starts a block of message m, or, m nil, of the content of the
// toolResult being written.
func (c *converter) begin(m *wire.HistoryMessage) {
	if m != nil {
		c.beginBlock(m)
		return
	}
	if c.inner > 0 {
		c.out = append(c.out, ',')
	}
	c.inner++
}

// textBlock writes a text block of text, escaped, in m (see begin).
func (c *converter) textBlock(m *wire.HistoryMessage, escaped []byte) {
	c.begin(m)
	c.out = append(c.out, `{"text":"`...)
	c.out = append(c.out, escaped...)
	c.out = append(c.out, `"}`...)
}

// cachePoint writes a cache breakpoint after the message's last block.
func (c *converter) cachePoint(m *wire.HistoryMessage) {
	c.beginBlock(m)
	c.out = append(c.out, cachePointJSON...)
}

// user converts a user turn's blocks in order.
func (c *converter) user(m *wire.HistoryMessage) error {
	return c.h.EachBlock(m.Content, &c.block, func(j int, b *wire.HistoryBlock) error {
		switch {
		case b.Type.Is("text"):
			if !c.blank(&b.Text) {
				c.textBlock(m, c.escaped(&b.Text))
			}
		case b.Type.Is("image"), b.Type.Is("document"):
			if err := c.media(m, &b.RawBlock, j, -1); err != nil {
				return err
			}
		case b.Type.Is("tool_result"):
			if err := c.toolResult(m, b, j); err != nil {
				return err
			}
		default:
			return unsupported(c.where(j, -1), "content block type "+typeName(b)+" in a user message")
		}
		if c.cache && c.blocks > 0 && hasCacheControl(b.Raw) {
			c.cachePoint(m)
		}
		return nil
	})
}

// media converts an image or a document whose bytes the request holds
// (base64, or a plain-text document's text) into a block of m (see
// begin). Converse takes no URLs but its own S3 locations, and the
// gateway fetches nothing.
func (c *converter) media(m *wire.HistoryMessage, b *wire.RawBlock, j, k int) error {
	s := &b.Source
	image := b.Type.Is("image")
	kind := "document"
	if image {
		kind = "image"
	}
	if !s.Present {
		return unsupported(c.where(j, k)+".source", kind+" without a source")
	}
	base64Source := !s.IsString && s.Type.Is("base64")
	switch {
	case image && base64Source:
		mt := s.MediaType.TextString()
		format, ok := imageFormats[mt]
		if !ok {
			return unsupported(c.where(j, k)+".source.media_type", fmt.Sprintf("image media type %q (Converse takes png, jpeg, gif and webp)", mt))
		}
		c.begin(m)
		c.out = append(c.out, `{"image":{"format":"`...)
		c.out = append(c.out, format...)
		c.out = append(c.out, `","source":{"bytes":"`...)
		c.out = append(c.out, c.escaped(&s.Data)...)
		c.out = append(c.out, `"}}}`...)
		return nil
	case !image && base64Source:
		mt := "application/pdf"
		if len(s.MediaType.Raw) > 0 {
			mt = s.MediaType.TextString()
		}
		format, ok := documentFormats[mt]
		if !ok {
			return unsupported(c.where(j, k)+".source.media_type", fmt.Sprintf("document media type %q", mt))
		}
		c.document(m, format)
		c.out = append(c.out, c.escaped(&s.Data)...)
		c.out = append(c.out, `"}}}`...)
		return nil
	case !image && !s.IsString && s.Type.Is("text"):
		c.document(m, "txt")
		c.out = base64.StdEncoding.AppendEncode(c.out, c.textOf(&s.Data, 0))
		c.out = append(c.out, `"}}}`...)
		return nil
	}
	sourceType := "string"
	if !s.IsString {
		sourceType = s.Type.TextString()
	}
	return unsupported(c.where(j, k)+".source", fmt.Sprintf("%s source type %q", kind, sourceType))
}

// document begins a document block of m (see begin), up to its bytes.
// Converse wants each document named, by letters, digits, single spaces,
// hyphens, parentheses and brackets, and no two alike within a request:
// the names are numbered.
func (c *converter) document(m *wire.HistoryMessage, format string) {
	c.docs++
	c.begin(m)
	c.out = append(c.out, `{"document":{"format":"`...)
	c.out = append(c.out, format...)
	c.out = append(c.out, `","name":"document-`...)
	c.out = strconv.AppendInt(c.out, int64(c.docs), 10)
	c.out = append(c.out, `","source":{"bytes":"`...)
}

// toolResult converts a tool_result: a toolResult block, or, when the
// tools go as text, a text that heads its content. Its status is Claude's
// alone; other models get an error as a first text part.
func (c *converter) toolResult(m *wire.HistoryMessage, b *wire.HistoryBlock, j int) error {
	c.beginBlock(m)
	if c.toolsAsText {
		c.out = append(c.out, `{"text":"[tool result for `...)
		c.out = append(c.out, c.escaped(&b.ToolUseID)...)
		if b.IsError {
			c.out = append(c.out, ", an error"...)
		}
		c.out = append(c.out, `]"}`...)
		return c.toolResultContent(m, b, j)
	}
	c.cur.answers = true
	c.out = append(c.out, `{"toolResult":{"toolUseId":"`...)
	c.out = append(c.out, c.escaped(&b.ToolUseID)...)
	c.out = append(c.out, `","content":[`...)
	c.inner = 0
	if b.IsError && c.family != FamilyClaude {
		c.textBlock(nil, []byte("Error:"))
	}
	prefix := c.inner // "Error:" is not the result's content
	if err := c.toolResultContent(nil, b, j); err != nil {
		return err
	}
	if c.inner == prefix {
		c.textBlock(nil, []byte(noContent))
	}
	c.out = append(c.out, ']')
	if b.IsError && c.family == FamilyClaude {
		c.out = append(c.out, `,"status":"error"`...)
	}
	c.out = append(c.out, "}}"...)
	return nil
}

// toolResultContent converts a tool_result's content blocks into blocks
// of m (see begin).
func (c *converter) toolResultContent(m *wire.HistoryMessage, b *wire.HistoryBlock, j int) error {
	return c.h.EachBlock(b.ContentRaw, &c.sub, func(k int, rb *wire.HistoryBlock) error {
		switch {
		case rb.Type.Is("text"):
			if !c.blank(&rb.Text) {
				c.textBlock(m, c.escaped(&rb.Text))
			}
			return nil
		case rb.Type.Is("image"), rb.Type.Is("document"):
			return c.media(m, &rb.RawBlock, j, k)
		}
		return unsupported(c.where(j, k), "content block type "+typeName(rb)+" in a tool_result")
	})
}

// assistant converts an assistant turn: runs of text as one text block,
// history thinking (see reasoning), tool_use blocks as toolUse blocks.
func (c *converter) assistant(m *wire.HistoryMessage) error {
	err := c.h.EachBlock(m.Content, &c.block, func(j int, b *wire.HistoryBlock) error {
		switch {
		case b.Type.Is("text"):
			c.addText(m, &b.Text)
		case b.Type.Is("thinking"), b.Type.Is("redacted_thinking"):
			if !c.reasoning(m, b) && b.Type.Is("thinking") && len(b.Thinking.Raw) > 0 && c.x.Thinking && c.x.Settings.SplitTags {
				// Split out of the model's text, or from elsewhere: as the
				// tags the model writes, in place.
				c.openRun(m)
				c.out = append(c.out, '<')
				c.out = jsonbytes.AppendStringBodyNoHTML(c.out, []byte(c.tag))
				c.out = append(c.out, '>')
				c.addText(m, &b.Thinking)
				c.out = append(c.out, "</"...)
				c.out = jsonbytes.AppendStringBodyNoHTML(c.out, []byte(c.tag))
				c.out = append(c.out, '>')
				c.run.blank = false
			}
		case b.Type.Is("tool_use"):
			input := bytes.TrimSpace(b.Input)
			if len(input) == 0 || string(input) == "null" {
				input = []byte("{}")
			}
			if c.toolsAsText {
				c.openRun(m)
				c.out = append(c.out, "[called tool "...)
				c.out = append(c.out, c.escaped(&b.Name)...)
				c.out = append(c.out, " ("...)
				c.out = append(c.out, c.escaped(&b.ID)...)
				c.out = append(c.out, ") with "...)
				c.out = jsonbytes.AppendCompactStringBody(c.out, input)
				c.out = append(c.out, ']')
				c.run.blank = false
				break
			}
			c.flush()
			c.beginBlock(m)
			c.out = append(c.out, `{"toolUse":{"toolUseId":"`...)
			c.out = append(c.out, c.escaped(&b.ID)...)
			c.out = append(c.out, `","name":"`...)
			c.out = append(c.out, c.escaped(&b.Name)...)
			c.out = append(c.out, `","input":`...)
			c.out = jsonbytes.AppendCompact(c.out, input)
			c.out = append(c.out, "}}"...)
		default:
			return unsupported(c.where(j, -1), "content block type "+typeName(b)+" in an assistant message")
		}
		if c.cache && hasCacheControl(b.Raw) {
			c.flush()
			if c.blocks > 0 {
				c.cachePoint(m)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.flush()
	return nil
}

// openRun begins a text block for a run of text of m, unless one is open:
// the run's texts are written into it as they come, and flush ends it, or
// takes it back when it is all white space (Converse refuses blank text).
func (c *converter) openRun(m *wire.HistoryMessage) {
	if c.run.open {
		return
	}
	c.run = runState{open: true, blank: true, mark: len(c.out), turns: c.turns, blocks: c.blocks,
		cur: c.cur, prev: c.prev, role: append(c.run.role[:0], c.role...)}
	c.textBlock(m, nil)
	c.out = c.out[:len(c.out)-len(`"}`)]
}

// addText adds f's text to the run of text of m.
func (c *converter) addText(m *wire.HistoryMessage, f *wire.RawString) {
	c.openRun(m)
	if c.run.blank && !c.blank(f) {
		c.run.blank = false
	}
	c.out = append(c.out, c.escaped(f)...)
}

// flush ends the run of text: a text block, or nothing when it is blank.
func (c *converter) flush() {
	r := &c.run
	if !r.open {
		return
	}
	r.open = false
	if !r.blank {
		c.out = append(c.out, `"}`...)
		return
	}
	c.out = c.out[:r.mark]
	c.turns, c.blocks, c.cur, c.prev = r.turns, r.blocks, r.cur, r.prev
	c.role = append(c.role[:0], r.role...)
}

// reasoning writes a thinking or redacted_thinking block that Bedrock
// issued (the gateway's signature, origin Bedrock, verifies) as the
// reasoningContent it came from, and reports whether it did. A model of
// no reasoning family gets none: it may refuse the block.
func (c *converter) reasoning(m *wire.HistoryMessage, b *wire.HistoryBlock) bool {
	s := c.x.Settings
	if c.family == FamilyNone || s.Signer == nil {
		return false
	}
	if c.opener == nil {
		c.opener = s.Signer.NewOpener()
	}
	thinking := b.Type.Is("thinking")
	var (
		origin  emit.Origin
		foreign []byte
		ok      bool
	)
	if thinking {
		origin, foreign, ok = c.opener.Open(c.textOf(&b.Signature, 1), c.textOf(&b.Thinking, 0))
	} else {
		origin, foreign, ok = c.opener.Open(c.textOf(&b.Data, 1), nil)
	}
	if !ok || origin != emit.OriginBedrock || (!thinking && len(foreign) == 0) {
		return false
	}
	c.flush()
	c.beginBlock(m)
	if c.out[len(c.out)-1] == '[' {
		c.cur.reasoned = true // the turn's first block
	}
	if !thinking {
		c.out = append(c.out, `{"reasoningContent":{"redactedContent":"`...)
		c.out = jsonbytes.AppendStringBodyNoHTML(c.out, foreign)
		c.out = append(c.out, `"}}`...)
		return true
	}
	c.out = append(c.out, `{"reasoningContent":{"reasoningText":{"text":"`...)
	c.out = append(c.out, c.escaped(&b.Thinking)...)
	c.out = append(c.out, '"')
	if len(foreign) > 0 {
		c.out = append(c.out, `,"signature":"`...)
		c.out = jsonbytes.AppendStringBodyNoHTML(c.out, foreign)
		c.out = append(c.out, '"')
	}
	c.out = append(c.out, "}}}"...)
	return true
}
