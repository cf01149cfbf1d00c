package converse

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// The typed converter: the request decoded into Go (Request.Complete),
// converted into Go values and encoded. It was the production converter
// before the byte-level one (request.go) handled every request; it stays
// here as the reference FuzzConvertMatchesTyped holds request.go to.

// request is the Converse (and ConverseStream) request body. The model is
// in the path, not here.
type request struct {
	Messages []message `json:"messages"`
	System   []any     `json:"system,omitempty"`
	settings
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

type message struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

// Content blocks: Converse tells them apart by their one member.

type textBlock struct {
	Text string `json:"text"`
}

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

// emptyInput is a tool call's input when the history holds none.
var emptyInput = json.RawMessage(`{}`)

// typedConverter converts the decoded request.
type typedConverter struct {
	conversion
	msgs   []message
	system []any
}

// typedConvert is convert done the typed way.
func typedConvert(x *providers.Exchange, opts Options, betas []string) ([]byte, *State, error) {
	if err := x.Request.Complete(); err != nil {
		return nil, nil, err
	}
	req := x.Request
	c := typedConverter{conversion: newConversion(x, opts, betas)}
	st := &State{Family: c.family}
	tc, err := c.toolSettings()
	if err != nil {
		return nil, nil, err
	}
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
		st, err := c.settings(tc, c.toolLoopWithoutReasoning())
		if err != nil {
			return nil, nil, err
		}
		body = request{Messages: msgs, System: c.system, settings: st}
	}
	b, err := jsonbytes.Encode(body, len(x.Body))
	if err != nil {
		return nil, nil, err
	}
	return b, st, nil
}

// systemBlocks appends a system prompt's text blocks to system.
func (c *typedConverter) systemBlocks(content wire.Content, path string) error {
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
func (c *typedConverter) message(i int, m *wire.Message) error {
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
func (c *typedConverter) user(path string, m *wire.Message) ([]any, error) {
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

// media converts an image or a document whose bytes the request holds
// (base64, or a plain-text document's text). Converse takes no URLs but
// its own S3 locations, and the gateway fetches nothing.
func (c *typedConverter) media(b wire.Block, path string) (any, error) {
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
func (c *typedConverter) document(format, data string) documentBlock {
	c.docs++
	return documentBlock{Document: media{Format: format, Name: fmt.Sprintf("document-%d", c.docs), Source: mediaSource{Bytes: data}}}
}

// blank reports whether a text is empty or only white space: Converse
// refuses such a text block.
func blank(s string) bool { return strings.TrimSpace(s) == "" }

// toolResultContent converts a tool_result's content. Its status is
// Claude's alone; other models get an error as a first text part.
func (c *typedConverter) toolResultContent(path string, b wire.Block) (content []any, status string, err error) {
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
func toolResultText(b wire.Block) textBlock {
	head := "[tool result for " + b.ToolUseID
	if b.IsError {
		head += ", an error"
	}
	return textBlock{Text: head + "]"}
}

// assistant converts an assistant turn: runs of text as one text block,
// history thinking (see reasoning), tool_use blocks as toolUse blocks.
func (c *typedConverter) assistant(path string, m *wire.Message) ([]any, error) {
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
					return nil, wire.InvalidRequest(fmt.Sprintf("%s.content.%d.input: not valid JSON", path, j))
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
func (c *typedConverter) reasoning(b wire.Block) (any, bool) {
	s := c.x.Settings
	if c.family == FamilyNone {
		return nil, false
	}
	if b.Type == "thinking" {
		origin, foreign, ok := s.ThinkingOrigin(b)
		if !ok || origin != emit.OriginBedrock {
			return nil, false
		}
		return reasoningBlock{ReasoningContent: reasoningContent{ReasoningText: &reasoningText{Text: b.Thinking, Signature: foreign}}}, true
	}
	if s.Signer == nil {
		return nil, false
	}
	origin, foreign, ok := s.Signer.Open(b.Data, "")
	if !ok || origin != emit.OriginBedrock || foreign == "" {
		return nil, false
	}
	return reasoningBlock{ReasoningContent: reasoningContent{RedactedContent: foreign}}, true
}

// toolLoopWithoutReasoning reports whether the request answers tool calls
// (its last turn holds tool results) of an assistant turn that does not
// begin with a reasoning block.
func (c *typedConverter) toolLoopWithoutReasoning() bool {
	n := len(c.msgs)
	if n < 2 || c.msgs[n-1].Role != "user" || c.msgs[n-2].Role != "assistant" {
		return false
	}
	answers := false
	for _, b := range c.msgs[n-1].Content {
		if _, ok := b.(toolResultBlock); ok {
			answers = true
		}
	}
	if !answers {
		return false
	}
	_, reasoned := c.msgs[n-2].Content[0].(reasoningBlock)
	return !reasoned
}
