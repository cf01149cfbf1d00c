package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// The typed converter: the reference the production converter
// (requestbytes.go) is held to. It decodes the request's history into
// wire.Message values and converts those, the plain way; the tests
// compare the two byte for byte (FuzzOpenAIFastMatchesTyped and the
// golden cases).

// convertTyped is ConvertRequest by the typed converter.
func convertTyped(x *providers.Exchange, cfg Config) ([]byte, *State, error) {
	c := typedConverter{converter: converter{x: x, cfg: cfg, state: &State{}, tag: "thinking"}}
	if tags := x.Settings.Parse.Tags; len(tags) > 0 {
		c.tag = tags[0]
	}
	out, err := c.head()
	if err != nil {
		return nil, nil, err
	}
	if err := x.Request.Complete(); err != nil {
		return nil, nil, err
	}
	return c.typed(out)
}

// typedConverter is one typed conversion.
type typedConverter struct {
	converter
	msgs []chatMessage
}

// typed converts the decoded system prompt and messages into out and
// encodes it: the reference byteConverter is held to.
func (c *typedConverter) typed(out *chatRequest) ([]byte, *State, error) {
	req := c.x.Request
	system, err := systemText(req.System, "system")
	if err != nil {
		return nil, nil, err
	}
	hint := ""
	if c.hinted {
		hint = c.x.Settings.Hint(req.Thinking)
		if system != "" {
			system += "\n"
		}
		system += hint
	}
	if p := c.systemParts(req.System, hint); p != nil {
		c.msgs = append(c.msgs, chatMessage{Role: "system", Content: p})
	} else if system != "" {
		c.msgs = append(c.msgs, chatMessage{Role: "system", Content: system})
	}
	for i := range req.Messages {
		if err := c.message(i, &req.Messages[i]); err != nil {
			return nil, nil, err
		}
	}
	out.Messages = c.msgs
	if out.Messages == nil {
		out.Messages = []chatMessage{}
	}

	// HTML characters unescaped: <thinking> and the hint's tags stay
	// readable in logs and upstream dumps.
	body, err := jsonbytes.Encode(out, len(c.x.Body))
	if err != nil {
		return nil, nil, err
	}
	return body, c.state, nil
}

// systemText joins the text blocks of a system prompt or system message.
func systemText(c wire.Content, path string) (string, error) {
	return SystemText(c, path, "openai")
}

func (c *typedConverter) message(i int, m *wire.Message) error {
	path := fmt.Sprintf("messages.%d", i)
	switch m.Role {
	case "system":
		// Claude Code sends one after the user turn: it stays in place.
		text, err := systemText(m.Content, path+".content")
		if err != nil {
			return err
		}
		if p := c.systemParts(m.Content, ""); p != nil {
			c.msgs = append(c.msgs, chatMessage{Role: "system", Content: p})
			return nil
		}
		c.msgs = append(c.msgs, chatMessage{Role: "system", Content: text})
		return nil
	case "assistant":
		return c.assistant(path, m)
	}
	return c.user(path, m)
}

// systemParts is the content of a system prompt or message (its texts
// known to be text) as text parts, the hint last, when one of its texts
// carries a breakpoint the upstream takes; else nil.
func (c *typedConverter) systemParts(content wire.Content, hint string) []contentPart {
	var p parts
	marked := false
	for _, b := range content.Blocks {
		cc := c.breakpoint(b.Raw)
		marked = marked || (cc != nil && b.Text != "")
		p.text(b.Text, cc)
	}
	if !marked {
		return nil
	}
	p.text(hint, nil)
	return p.list
}

// parts collects a message's content: consecutive text blocks merge into
// one text part (joined by a newline) up to one with a breakpoint, images
// become image_url parts.
type parts struct {
	list []contentPart
}

func (p *parts) text(s string, cc json.RawMessage) {
	if s == "" {
		return
	}
	if n := len(p.list); n > 0 && p.list[n-1].Type == "text" && p.list[n-1].CacheControl == nil {
		p.list[n-1].Text += "\n" + s
		p.list[n-1].CacheControl = cc
		return
	}
	p.list = append(p.list, contentPart{Type: "text", Text: s, CacheControl: cc})
}

func (p *parts) image(url string) {
	p.list = append(p.list, contentPart{Type: "image_url", ImageURL: &imageURL{URL: url}})
}

// content is a plain string when there are no images, the form every
// OpenAI-compatible server takes.
func (p *parts) content() any {
	if len(p.list) == 1 && p.list[0].Type == "text" && p.list[0].CacheControl == nil {
		return p.list[0].Text
	}
	return p.list
}

func imageSource(src *wire.Source, path string) (string, error) {
	if src != nil {
		switch src.Type {
		case "base64":
			return "data:" + src.MediaType + ";base64," + src.Data, nil
		case "url":
			return src.URL, nil
		}
	}
	typ := "missing"
	if src != nil {
		typ = fmt.Sprintf("%q", src.Type)
	}
	return "", unsupported(path, "image source type "+typ)
}

// user converts a user turn. Its tool_result blocks become role "tool"
// messages, in order, ahead of the message with the turn's other content:
// OpenAI wants a tool call's answer right after the assistant message that
// made it.
func (c *typedConverter) user(path string, m *wire.Message) error {
	var p parts
	var tools []chatMessage
	for j, b := range m.Content.Blocks {
		bpath := fmt.Sprintf("%s.content.%d", path, j)
		switch b.Type {
		case "text":
			p.text(b.Text, c.breakpoint(b.Raw))
		case "image":
			url, err := imageSource(b.Source, bpath+".source")
			if err != nil {
				return err
			}
			p.image(url)
		case "document":
			// A plain-text document is text, a base64 PDF a file part.
			switch src := b.Source; {
			case src != nil && src.Type == "text":
				p.text(src.Data, c.breakpoint(b.Raw))
			case src != nil && src.Type == "base64" && src.MediaType == "application/pdf":
				p.list = append(p.list, contentPart{Type: "file", File: &fileData{Filename: "document.pdf", FileData: "data:application/pdf;base64," + src.Data}})
			case src != nil && src.Type == "url":
				return unsupported(bpath, "document block with a url source (the gateway fetches nothing: send the document as base64 data or text)")
			default:
				st := "missing"
				if src != nil {
					st = src.Type + " " + src.MediaType
				}
				return unsupported(bpath, fmt.Sprintf("document block (source %s)", strings.TrimSpace(st)))
			}
		case "tool_result":
			msg, err := c.toolResult(bpath, b, &p)
			if err != nil {
				return err
			}
			tools = append(tools, msg)
		default:
			return unsupported(bpath, fmt.Sprintf("content block type %q in a user message", b.Type))
		}
	}
	c.msgs = append(c.msgs, tools...)
	if len(p.list) > 0 {
		c.msgs = append(c.msgs, chatMessage{Role: "user", Content: p.content()})
	} else if len(tools) == 0 {
		c.msgs = append(c.msgs, chatMessage{Role: "user", Content: ""})
	}
	return nil
}

// toolResult converts one tool_result. A tool message takes only text, so
// images the tool returned go to the user message that follows.
func (c *typedConverter) toolResult(path string, b wire.Block, user *parts) (chatMessage, error) {
	// One non-empty text, the usual case, is used as it is rather than
	// copied: tool outputs are most of a long conversation's bytes.
	only, texts := "", 0
	if b.Content != nil {
		for _, rb := range b.Content.Blocks {
			if rb.Type == "text" && rb.Text != "" {
				only = rb.Text
				texts++
			}
		}
	}
	var text strings.Builder
	images := 0
	if b.Content != nil {
		for k, rb := range b.Content.Blocks {
			switch rb.Type {
			case "text":
				if rb.Text == "" || texts == 1 {
					continue
				}
				if text.Len() > 0 {
					text.WriteByte('\n')
				}
				text.WriteString(rb.Text)
			case "image":
				url, err := imageSource(rb.Source, fmt.Sprintf("%s.content.%d.source", path, k))
				if err != nil {
					return chatMessage{}, err
				}
				user.image(url)
				images++
			default:
				return chatMessage{}, unsupported(fmt.Sprintf("%s.content.%d", path, k), fmt.Sprintf("content block type %q in a tool_result", rb.Type))
			}
		}
	}
	s := text.String()
	if texts == 1 {
		s = only
	}
	if images > 0 && s == "" {
		s = "(the tool returned an image; it follows in the next user message)"
	}
	if b.IsError {
		s = "Error: " + s
	}
	return chatMessage{Role: "tool", ToolCallID: b.ToolUseID, Content: s}, nil
}

// assistant converts an assistant turn: text and history thinking (as tags
// in place, or as reasoning_content) become the content, tool_use blocks the
// tool_calls.
func (c *typedConverter) assistant(path string, m *wire.Message) error {
	var content, reasoning strings.Builder
	hasReasoning := false
	var calls []chatToolCall
	asReasoning := c.cfg.ReasoningHistory == HistoryReasoningContent
	asMistral := c.cfg.ReasoningHistory == HistoryMistral
	asOpenRouter := c.cfg.ReasoningHistory == HistoryOpenRouter
	var chunks mistralChunks
	var details []openRouterDetail
	for j, b := range m.Content.Blocks {
		if asOpenRouter {
			// OpenRouter's own details go back as they came, in order.
			if d, ok := c.openRouterHistory(b); ok {
				details = append(details, d)
				continue
			}
		}
		switch b.Type {
		case "text":
			// The model's own output, split by the gateway, rejoins exactly.
			content.WriteString(b.Text)
			chunks.text(b.Text)
		case "thinking":
			switch {
			case asMistral:
				// Mistral's own form, in place; like reasoning_content
				// it is protocol, sent whether or not thinking is on.
				chunks.thinking(b.Thinking)
			case asReasoning:
				// The field is the upstream's protocol, not a prompt, so
				// it goes back whether or not thinking is on.
				if hasReasoning && b.Thinking != "" {
					reasoning.WriteString("\n\n")
				}
				reasoning.WriteString(b.Thinking)
				hasReasoning = true
			case c.hinted && b.Thinking != "":
				content.WriteString("<" + c.tag + ">")
				content.WriteString(b.Thinking)
				content.WriteString("</" + c.tag + ">")
			}
			// Thinking off, or asked for without the hint: history
			// thinking is dropped, so the model is not shown a format it
			// was not asked for.
		case "redacted_thinking":
			// Encrypted for Anthropic alone: nothing an OpenAI model can read.
		case "tool_use":
			args := "{}"
			if in := bytes.TrimSpace(b.Input); len(in) > 0 && string(in) != "null" {
				var buf bytes.Buffer
				if err := json.Compact(&buf, in); err != nil {
					return wire.InvalidRequest(fmt.Sprintf("%s.content.%d.input: %v", path, j, err))
				}
				args = buf.String()
			}
			calls = append(calls, chatToolCall{ID: b.ID, Type: "function",
				Function: functionCall{Name: c.state.shorten(b.Name), Arguments: args}})
		default:
			return unsupported(fmt.Sprintf("%s.content.%d", path, j), fmt.Sprintf("content block type %q in an assistant message", b.Type))
		}
	}
	if content.Len() == 0 && len(calls) == 0 {
		// Nothing an upstream accepts (only thinking, dropped): leave the turn out.
		return nil
	}
	msg := chatMessage{Role: "assistant", ToolCalls: calls}
	if content.Len() > 0 {
		msg.Content = content.String()
	}
	if chunks.hasThinking {
		msg.Content = chunks.list
	}
	msg.ReasoningDetails = details
	if asReasoning && (hasReasoning || len(calls) > 0) {
		// DeepSeek rejects a tool-calling assistant message without the field.
		r := reasoning.String()
		msg.ReasoningContent = &r
	}
	c.msgs = append(c.msgs, msg)
	return nil
}

// mistralChunks builds an assistant message's content in Mistral's chunk
// form: thinking chunks where the thinking blocks were, text between them
// joined as it was.
type mistralChunks struct {
	list        []contentPart
	hasThinking bool
}

func (m *mistralChunks) text(s string) {
	if s == "" {
		return
	}
	if n := len(m.list); n > 0 && m.list[n-1].Type == "text" {
		m.list[n-1].Text += s
		return
	}
	m.list = append(m.list, contentPart{Type: "text", Text: s})
}

func (m *mistralChunks) thinking(s string) {
	if s == "" {
		return
	}
	m.hasThinking = true
	m.list = append(m.list, contentPart{Type: "thinking", Thinking: []contentPart{{Type: "text", Text: s}}})
}
