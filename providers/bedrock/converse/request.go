package converse

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
)

// request is the Converse (and ConverseStream) request body. The model is
// in the path, not here.
type request struct {
	Messages                     []message        `json:"messages"`
	System                       []any            `json:"system,omitempty"`
	InferenceConfig              *inferenceConfig `json:"inferenceConfig,omitempty"`
	ToolConfig                   *toolConfig      `json:"toolConfig,omitempty"`
	AdditionalModelRequestFields map[string]any   `json:"additionalModelRequestFields,omitempty"`
	OutputConfig                 *outputConfig    `json:"outputConfig,omitempty"`
	// AdditionalModelResponseFieldPaths asks Claude which stop sequence
	// matched, which Converse's stopReason does not say.
	AdditionalModelResponseFieldPaths []string `json:"additionalModelResponseFieldPaths,omitempty"`
}

// countRequest is the CountTokens body: the input of a Converse request.
type countRequest struct {
	Input struct {
		Converse countInput `json:"converse"`
	} `json:"input"`
}

type countInput struct {
	Messages   []message   `json:"messages"`
	System     []any       `json:"system,omitempty"`
	ToolConfig *toolConfig `json:"toolConfig,omitempty"`
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

type message struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

// Content blocks: Converse tells them apart by their one member.

type textBlock struct {
	Text string `json:"text"`
}

type cachePointBlock struct {
	CachePoint cachePoint `json:"cachePoint"`
}

type cachePoint struct {
	Type string `json:"type"`
}

// aCachePoint is the cache breakpoint a cache_control becomes.
var aCachePoint = cachePointBlock{CachePoint: cachePoint{Type: "default"}}

type imageBlock struct {
	Image media `json:"image"`
}

type documentBlock struct {
	Document media `json:"document"`
}

type media struct {
	Format string      `json:"format"`
	Name   string      `json:"name,omitempty"`
	Source mediaSource `json:"source"`
}

// mediaSource holds the bytes, base64 as every blob is in JSON.
type mediaSource struct {
	Bytes string `json:"bytes"`
}

type toolUseBlock struct {
	ToolUse toolUse `json:"toolUse"`
}

type toolUse struct {
	ToolUseID string          `json:"toolUseId"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

type toolResultBlock struct {
	ToolResult toolResult `json:"toolResult"`
}

type toolResult struct {
	ToolUseID string `json:"toolUseId"`
	Content   []any  `json:"content"`
	Status    string `json:"status,omitempty"`
}

type reasoningBlock struct {
	ReasoningContent reasoningContent `json:"reasoningContent"`
}

type reasoningContent struct {
	ReasoningText   *reasoningText `json:"reasoningText,omitempty"`
	RedactedContent string         `json:"redactedContent,omitempty"`
}

type reasoningText struct {
	Text      string `json:"text"`
	Signature string `json:"signature,omitempty"`
}

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

// emptyInput is a tool call's input when the history holds none.
var emptyInput = json.RawMessage(`{}`)

type converter struct {
	x      *providers.Exchange
	opts   Options
	family string
	cache  bool // cache_control becomes cachePoint
	tag    string

	msgs   []message
	system []any
	// toolsAsText: no tools go upstream (none declared, or tool_choice
	// none), and Converse refuses toolUse and toolResult blocks without a
	// toolConfig: the history's tool calls and results go as text.
	toolsAsText bool
	docs        int
	// betas are the client's betas, for Claude's anthropic_beta.
	betas []string
}

func unsupported(path, what string) error {
	return providers.InvalidRequest(fmt.Sprintf("%s: %s is not supported by Bedrock's Converse API", path, what))
}

func convert(x *providers.Exchange, opts Options, betas []string) ([]byte, *State, error) {
	req := x.Request
	c := converter{x: x, opts: opts, family: opts.ThinkingFamily, tag: "thinking", betas: betas}
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
	st := &State{Family: c.family}

	tools, err := c.tools(req.Tools)
	if err != nil {
		return nil, nil, err
	}
	tc, err := c.toolConfig(tools, req.ToolChoice)
	if err != nil {
		return nil, nil, err
	}
	c.toolsAsText = tc == nil
	if err := c.systemBlocks(req.System, "system"); err != nil {
		return nil, nil, err
	}
	for i := range req.Messages {
		if err := c.message(i, &req.Messages[i]); err != nil {
			return nil, nil, err
		}
	}
	msgs := c.msgs
	if msgs == nil {
		msgs = []message{}
	}

	var body any
	if x.CountTokens {
		var cr countRequest
		cr.Input.Converse = countInput{Messages: msgs, System: c.system, ToolConfig: tc}
		body = cr
	} else {
		out := request{Messages: msgs, System: c.system, ToolConfig: tc,
			InferenceConfig: &inferenceConfig{MaxTokens: req.MaxTokens, Temperature: req.Temperature,
				TopP: req.TopP, StopSequences: req.StopSequences}}
		c.thinking(&out)
		if err := c.outputConfig(&out); err != nil {
			return nil, nil, err
		}
		if c.family == FamilyClaude && len(req.StopSequences) > 0 {
			out.AdditionalModelResponseFieldPaths = []string{"/stop_sequence"}
		}
		if out.InferenceConfig.empty() {
			out.InferenceConfig = nil
		}
		body = out
	}
	b, err := jsonbytes.Encode(body, encodedRoom(x))
	if err != nil {
		return nil, nil, err
	}
	return b, st, nil
}

// Framing the Converse body adds to the client's at the most: a tool's
// toolSpec (with a cachePoint after it, or the default schema of a tool
// that has none), and a block's (reasoningContent around a thinking
// block's text and signature, a cachePoint after it).
const (
	toolSpecFraming  = 96
	blockFraming     = 64
	encodedRoomSlack = 4 << 10
)

// encodedRoom is the room the Converse body is encoded into: the client's
// body and what Converse's framing adds to its tools and blocks. A body
// that outgrows its buffer holds the old one and one a quarter larger at
// once (2.25 times a large body), and each schema is copied as sent
// (json.RawMessage, compacted), so the room is the body's own bytes and
// the framing.
func encodedRoom(x *providers.Exchange) int {
	n := len(x.Body) + encodedRoomSlack + toolSpecFraming*len(x.Request.Tools) + blockFraming*len(x.Request.System.Blocks)
	for i := range x.Request.Messages {
		n += blockFraming * max(1, len(x.Request.Messages[i].Content.Blocks))
	}
	return n
}

// hasCacheControl reports whether a block or tool, as the client sent it,
// asks for a cache breakpoint after it.
func hasCacheControl(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	v, typ, _, err := jsonparser.Get(raw, "cache_control")
	return err == nil && typ == jsonparser.Object && len(v) > 0
}

// tools converts client tools to toolSpecs. Server tools run only on
// Anthropic's side, except tool_search, whose job (making deferred tools
// available) is done by sending every tool in full.
func (c *converter) tools(tools []providers.Tool) ([]any, error) {
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
func (c *converter) toolConfig(tools []any, choice *providers.ToolChoice) (*toolConfig, error) {
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
		return nil, providers.InvalidRequest(fmt.Sprintf("tool_choice.type: must be auto, any, tool or none, got %q", choice.Type))
	}
	return tc, nil
}

// systemBlocks appends a system prompt's text blocks to system.
func (c *converter) systemBlocks(content providers.Content, path string) error {
	for j, b := range content.Blocks {
		if b.Type != "text" {
			return unsupported(fmt.Sprintf("%s.%d", path, j), fmt.Sprintf("content block type %q in a system prompt", b.Type))
		}
		if b.Text != "" {
			c.system = append(c.system, textBlock{Text: b.Text})
		}
		if c.cache && hasCacheControl(b.Raw) && len(c.system) > 0 {
			c.system = append(c.system, aCachePoint)
		}
	}
	return nil
}

// message converts one turn. Converse wants user and assistant turns to
// alternate: a turn of the same role as the one before joins it. A system
// message (Claude Code sends them inside messages) joins the system prompt.
func (c *converter) message(i int, m *providers.Message) error {
	path := fmt.Sprintf("messages.%d", i)
	var content []any
	var err error
	switch m.Role {
	case "system":
		return c.systemBlocks(m.Content, path+".content")
	case "assistant":
		content, err = c.assistant(path, m)
	default:
		content, err = c.user(path, m)
	}
	if err != nil || len(content) == 0 {
		// A turn with nothing Converse takes is left out.
		return err
	}
	if n := len(c.msgs); n > 0 && c.msgs[n-1].Role == m.Role {
		c.msgs[n-1].Content = append(c.msgs[n-1].Content, content...)
		return nil
	}
	c.msgs = append(c.msgs, message{Role: m.Role, Content: content})
	return nil
}

// user converts a user turn's blocks in order.
func (c *converter) user(path string, m *providers.Message) ([]any, error) {
	var out []any
	for j, b := range m.Content.Blocks {
		bpath := fmt.Sprintf("%s.content.%d", path, j)
		switch b.Type {
		case "text":
			if !blank(b.Text) {
				out = append(out, textBlock{Text: b.Text})
			}
		case "image", "document":
			blk, err := c.media(b, bpath)
			if err != nil {
				return nil, err
			}
			out = append(out, blk)
		case "tool_result":
			content, status, err := c.toolResultContent(bpath, b)
			if err != nil {
				return nil, err
			}
			if c.toolsAsText {
				out = append(out, toolResultText(b))
				out = append(out, content...)
			} else {
				out = append(out, toolResultBlock{ToolResult: toolResult{ToolUseID: b.ToolUseID, Content: content, Status: status}})
			}
		default:
			return nil, unsupported(bpath, fmt.Sprintf("content block type %q in a user message", b.Type))
		}
		if c.cache && hasCacheControl(b.Raw) && len(out) > 0 {
			out = append(out, aCachePoint)
		}
	}
	return out, nil
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

// media converts an image or a document whose bytes the request holds
// (base64, or a plain-text document's text). Converse takes no URLs but
// its own S3 locations, and the gateway fetches nothing.
func (c *converter) media(b providers.Block, path string) (any, error) {
	s := b.Source
	if s == nil {
		return nil, unsupported(path+".source", b.Type+" without a source")
	}
	switch {
	case b.Type == "image" && s.Type == "base64":
		format, ok := imageFormats[s.MediaType]
		if !ok {
			return nil, unsupported(path+".source.media_type", fmt.Sprintf("image media type %q (Converse takes png, jpeg, gif and webp)", s.MediaType))
		}
		return imageBlock{Image: media{Format: format, Source: mediaSource{Bytes: s.Data}}}, nil
	case b.Type == "document" && s.Type == "base64":
		mt := s.MediaType
		if mt == "" {
			mt = "application/pdf"
		}
		format, ok := documentFormats[mt]
		if !ok {
			return nil, unsupported(path+".source.media_type", fmt.Sprintf("document media type %q", mt))
		}
		return c.document(format, s.Data), nil
	case b.Type == "document" && s.Type == "text":
		return c.document("txt", base64.StdEncoding.EncodeToString([]byte(s.Data))), nil
	}
	return nil, unsupported(path+".source", fmt.Sprintf("%s source type %q", b.Type, s.Type))
}

// document makes a document block. Converse wants each document named, by
// letters, digits, single spaces, hyphens, parentheses and brackets, and
// no two alike within a request: the names are numbered.
func (c *converter) document(format, data string) documentBlock {
	c.docs++
	return documentBlock{Document: media{Format: format, Name: fmt.Sprintf("document-%d", c.docs), Source: mediaSource{Bytes: data}}}
}

// blank reports whether a text is empty or only white space: Converse
// refuses such a text block.
func blank(s string) bool { return strings.TrimSpace(s) == "" }

// noContent is the text of a tool result that holds none: Converse refuses
// an empty text block.
const noContent = "(no content)"

// toolResultContent converts a tool_result's content. Its status is
// Claude's alone; other models get an error as a first text part.
func (c *converter) toolResultContent(path string, b providers.Block) (content []any, status string, err error) {
	content = []any{}
	if b.IsError && c.family != FamilyClaude && !c.toolsAsText {
		content = append(content, textBlock{Text: "Error:"})
	}
	if b.IsError && c.family == FamilyClaude {
		status = "error"
	}
	empty := true
	if b.Content != nil {
		for k, rb := range b.Content.Blocks {
			switch rb.Type {
			case "text":
				if !blank(rb.Text) {
					content = append(content, textBlock{Text: rb.Text})
					empty = false
				}
			case "image", "document":
				blk, err := c.media(rb, fmt.Sprintf("%s.content.%d", path, k))
				if err != nil {
					return nil, "", err
				}
				content = append(content, blk)
				empty = false
			default:
				return nil, "", unsupported(fmt.Sprintf("%s.content.%d", path, k), fmt.Sprintf("content block type %q in a tool_result", rb.Type))
			}
		}
	}
	if empty && !c.toolsAsText {
		content = append(content, textBlock{Text: noContent})
	}
	return content, status, nil
}

// toolResultText is the text that heads a tool result sent as text; its
// content follows it.
func toolResultText(b providers.Block) textBlock {
	head := "[tool result for " + b.ToolUseID
	if b.IsError {
		head += ", an error"
	}
	return textBlock{Text: head + "]"}
}

// assistant converts an assistant turn: runs of text as one text block,
// history thinking (see reasoning), tool_use blocks as toolUse blocks.
func (c *converter) assistant(path string, m *providers.Message) ([]any, error) {
	var out []any
	var text strings.Builder
	flush := func() {
		if !blank(text.String()) {
			out = append(out, textBlock{Text: text.String()})
		}
		text.Reset()
	}
	for j, b := range m.Content.Blocks {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "thinking", "redacted_thinking":
			if blk, ok := c.reasoning(b); ok {
				flush()
				out = append(out, blk)
			} else if b.Type == "thinking" && b.Thinking != "" && c.x.Thinking && c.x.Settings.SplitTags {
				// Split out of the model's text, or from elsewhere: as the
				// tags the model writes, in place.
				text.WriteString("<" + c.tag + ">" + b.Thinking + "</" + c.tag + ">")
			}
		case "tool_use":
			input := json.RawMessage(bytes.TrimSpace(b.Input))
			if len(input) == 0 || string(input) == "null" {
				input = emptyInput
			}
			if c.toolsAsText {
				var compact bytes.Buffer
				if json.Compact(&compact, input) != nil {
					return nil, providers.InvalidRequest(fmt.Sprintf("%s.content.%d.input: not valid JSON", path, j))
				}
				text.WriteString("[called tool " + b.Name + " (" + b.ID + ") with " + compact.String() + "]")
				break
			}
			flush()
			out = append(out, toolUseBlock{ToolUse: toolUse{ToolUseID: b.ID, Name: b.Name, Input: input}})
		default:
			return nil, unsupported(fmt.Sprintf("%s.content.%d", path, j), fmt.Sprintf("content block type %q in an assistant message", b.Type))
		}
		if c.cache && hasCacheControl(b.Raw) {
			flush()
			if len(out) > 0 {
				out = append(out, aCachePoint)
			}
		}
	}
	flush()
	return out, nil
}

// reasoning restores a thinking or redacted_thinking block that Bedrock
// issued (the gateway's signature, origin Bedrock, verifies) as the
// reasoningContent it came from. A model of no reasoning family gets none:
// it may refuse the block.
func (c *converter) reasoning(b providers.Block) (any, bool) {
	s := c.x.Settings
	if c.family == FamilyNone {
		return nil, false
	}
	if b.Type == "thinking" {
		origin, foreign, ok := s.ThinkingOrigin(b)
		if !ok || origin != providers.OriginBedrock {
			return nil, false
		}
		return reasoningBlock{ReasoningContent: reasoningContent{ReasoningText: &reasoningText{Text: b.Thinking, Signature: foreign}}}, true
	}
	if s.Signer == nil {
		return nil, false
	}
	origin, foreign, ok := s.Signer.Open(b.Data, "")
	if !ok || origin != providers.OriginBedrock || foreign == "" {
		return nil, false
	}
	return reasoningBlock{ReasoningContent: reasoningContent{RedactedContent: foreign}}, true
}
