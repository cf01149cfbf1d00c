package openai

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
)

// chatRequest is the Chat Completions request body. Field order is the order
// on the wire, which keeps logged bodies readable.
type chatRequest struct {
	Model               string               `json:"model"`
	Messages            []chatMessage        `json:"messages"`
	MaxTokens           int                  `json:"max_tokens,omitempty"`
	MaxCompletionTokens int                  `json:"max_completion_tokens,omitempty"`
	Temperature         *float64             `json:"temperature,omitempty"`
	TopP                *float64             `json:"top_p,omitempty"`
	Stop                []string             `json:"stop,omitempty"`
	Tools               []chatTool           `json:"tools,omitempty"`
	ToolChoice          any                  `json:"tool_choice,omitempty"`
	ParallelToolCalls   *bool                `json:"parallel_tool_calls,omitempty"`
	ReasoningEffort     string               `json:"reasoning_effort,omitempty"`
	Reasoning           *openRouterReasoning `json:"reasoning,omitempty"`
	User                string               `json:"user,omitempty"`
	Stream              bool                 `json:"stream,omitempty"`
	StreamOptions       *streamOptions       `json:"stream_options,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatMessage is one message. Content is a string, a []contentPart, or nil
// (JSON null: an assistant message that only calls tools).
type chatMessage struct {
	Role             string             `json:"role"`
	Content          any                `json:"content"`
	ReasoningContent *string            `json:"reasoning_content,omitempty"`
	ReasoningDetails []openRouterDetail `json:"reasoning_details,omitempty"`
	ToolCalls        []chatToolCall     `json:"tool_calls,omitempty"`
	ToolCallID       string             `json:"tool_call_id,omitempty"`
}

type contentPart struct {
	Type     string    `json:"type"` // text, image_url; thinking (Mistral)
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
	// Thinking holds a Mistral thinking chunk's text parts.
	Thinking []contentPart `json:"thinking,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function functionCall `json:"function"`
}

type functionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string      `json:"type"`
	Function functionDef `json:"function"`
}

type functionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

type namedToolChoice struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

// emptySchema is the parameters of a tool that declares none.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// ConvertRequest builds the Chat Completions body for x. Fields Anthropic
// alone understands (cache_control, thinking, context_management,
// output_config, container, service_tier, top_k …) are not forwarded.
//
// A request read by ScanRequest is converted from the client's bytes
// (byteConverter), its history never decoded; one decoded in full (by a
// request matcher's ParseRequest), or with a reasoning_history that
// rebuilds thinking blocks (mistral, openrouter), by the typed converter,
// which writes the same bytes.
func ConvertRequest(x *providers.Exchange, cfg Config) ([]byte, *State, error) {
	c := converter{x: x, cfg: cfg, state: &State{}, tag: "thinking"}
	if tags := x.Settings.Parse.Tags; len(tags) > 0 {
		c.tag = tags[0]
	}
	out, err := c.head()
	if err != nil {
		return nil, nil, err
	}
	if body, messages, system, ok := x.Request.ScannedValues(); ok && c.fromBytes() {
		b := byteConverter{converter: &c, data: body}
		upstream, err := b.convert(out, messages, system)
		switch {
		case err == nil:
			return upstream, c.state, nil
		case !errors.Is(err, providers.ErrLeftToTyped):
			return nil, nil, err
		}
		// Not reached for a body the scan checked; the typed converter
		// decodes what the byte reader does not.
	}
	if err := x.Request.Complete(); err != nil {
		return nil, nil, err
	}
	return c.typed(out)
}

// head converts everything but the system prompt and the messages into
// out: the tools (first, so that history tool calls use the same upstream
// names), tool_choice, the thinking parameters and the small fields; it
// also decides c.hinted.
func (c *converter) head() (*chatRequest, error) {
	x, cfg, req := c.x, c.cfg, c.x.Request
	out := &chatRequest{Model: x.UpstreamModel, Temperature: req.Temperature, TopP: req.TopP, Stop: req.StopSequences}
	tools, err := c.tools(req.Tools)
	if err != nil {
		return nil, err
	}
	out.Tools = tools
	if len(tools) > 0 && req.ToolChoice != nil {
		out.ToolChoice, out.ParallelToolCalls, err = c.toolChoice(req.ToolChoice)
		if err != nil {
			return nil, err
		}
	}
	mode := cfg.ThinkingMode
	c.hinted = x.Thinking && (mode == "" || mode == ModeHint || mode == ModeBoth)
	switch mode {
	case ModeEffort, ModeBoth:
		out.ReasoningEffort = providers.ReasoningEffort(x.ThinkingBudget(), x.Thinking, cfg.Efforts)
	case ModeOpenRouter:
		out.Reasoning = openRouterRequest(x, cfg.Efforts)
	}
	if req.MaxTokens > 0 {
		if cfg.MaxTokensField == MaxCompletionTokens {
			out.MaxCompletionTokens = req.MaxTokens
		} else {
			out.MaxTokens = req.MaxTokens
		}
	}
	if req.Metadata != nil {
		out.User = userID(req.Metadata.UserID)
	}
	if x.Stream {
		out.Stream = true
		out.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	return out, nil
}

// typed converts the decoded system prompt and messages into out and
// encodes it: the reference byteConverter is held to.
func (c *converter) typed(out *chatRequest) ([]byte, *State, error) {
	req := c.x.Request
	system, err := systemText(req.System, "system")
	if err != nil {
		return nil, nil, err
	}
	if c.hinted {
		if system != "" {
			system += "\n"
		}
		system += c.x.Settings.Hint(req.Thinking)
	}
	if system != "" {
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

// maxUser is the longest user OpenAI takes (OpenRouter's limit is 128).
const maxUser = 64

// userID returns the user to send for metadata.user_id. Claude Code's is a
// JSON object of about 150 characters, so a longer one is replaced by its
// SHA-256 in hex: exactly 64 characters, and still stable per user.
func userID(id string) string {
	if len(id) <= maxUser {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

type converter struct {
	x     *providers.Exchange
	cfg   Config
	state *State
	tag   string
	msgs  []chatMessage
	// hinted: the hint asked the model to write tags, so history
	// thinking may go back as tags.
	hinted bool
}

func unsupported(path, what string) error { return Unsupported("openai", path, what) }

// tools converts the client tools OfferedAsFunction keeps to functions.
func (c *converter) tools(tools []providers.Tool) ([]chatTool, error) {
	var out []chatTool
	for i, t := range tools {
		if offered, err := OfferedAsFunction(i, &t, "openai"); !offered {
			if err != nil {
				return nil, err
			}
			continue
		}
		params := t.InputSchema
		if len(bytes.TrimSpace(params)) == 0 || string(bytes.TrimSpace(params)) == "null" {
			params = emptySchema
		}
		out = append(out, chatTool{Type: "function", Function: functionDef{
			Name:        c.state.shorten(t.Name),
			Description: t.Description,
			Parameters:  params,
		}})
	}
	return out, nil
}

func (c *converter) toolChoice(tc *providers.ToolChoice) (any, *bool, error) {
	choice, parallel, err := ToolChoice(tc)
	if err != nil {
		return nil, nil, err
	}
	if choice != "function" {
		return choice, parallel, nil
	}
	var n namedToolChoice
	n.Type = "function"
	n.Function.Name = c.state.shorten(tc.Name)
	return n, parallel, nil
}

// systemText joins the text blocks of a system prompt or system message.
func systemText(c providers.Content, path string) (string, error) {
	return SystemText(c, path, "openai")
}

func (c *converter) message(i int, m *providers.Message) error {
	path := fmt.Sprintf("messages.%d", i)
	switch m.Role {
	case "system":
		// Claude Code sends one after the user turn: it stays in place.
		text, err := systemText(m.Content, path+".content")
		if err != nil {
			return err
		}
		c.msgs = append(c.msgs, chatMessage{Role: "system", Content: text})
		return nil
	case "assistant":
		return c.assistant(path, m)
	}
	return c.user(path, m)
}

// parts collects a user message's content: consecutive text blocks merge
// into one text part (joined by a newline), images become image_url parts.
type parts struct {
	list []contentPart
}

func (p *parts) text(s string) {
	if s == "" {
		return
	}
	if n := len(p.list); n > 0 && p.list[n-1].Type == "text" {
		p.list[n-1].Text += "\n" + s
		return
	}
	p.list = append(p.list, contentPart{Type: "text", Text: s})
}

func (p *parts) image(url string) {
	p.list = append(p.list, contentPart{Type: "image_url", ImageURL: &imageURL{URL: url}})
}

// content is a plain string when there are no images, the form every
// OpenAI-compatible server takes.
func (p *parts) content() any {
	if len(p.list) == 1 && p.list[0].Type == "text" {
		return p.list[0].Text
	}
	return p.list
}

func imageSource(src *providers.Source, path string) (string, error) {
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
func (c *converter) user(path string, m *providers.Message) error {
	var p parts
	var tools []chatMessage
	for j, b := range m.Content.Blocks {
		bpath := fmt.Sprintf("%s.content.%d", path, j)
		switch b.Type {
		case "text":
			p.text(b.Text)
		case "image":
			url, err := imageSource(b.Source, bpath+".source")
			if err != nil {
				return err
			}
			p.image(url)
		case "document":
			// A plain-text document is text; PDFs have no portable form.
			if b.Source == nil || b.Source.Type != "text" {
				st := "missing"
				if b.Source != nil {
					st = b.Source.Type + " " + b.Source.MediaType
				}
				return unsupported(bpath, fmt.Sprintf("document block (source %s)", strings.TrimSpace(st)))
			}
			p.text(b.Source.Data)
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
func (c *converter) toolResult(path string, b providers.Block, user *parts) (chatMessage, error) {
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
func (c *converter) assistant(path string, m *providers.Message) error {
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
					return providers.InvalidRequest(fmt.Sprintf("%s.content.%d.input: %v", path, j, err))
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
