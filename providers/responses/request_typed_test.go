package responses

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/openai"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// The typed converter: the reference the production converter
// (requestbytes.go) is held to, byte for byte (FuzzResponsesMatchesTyped
// and the golden cases).

// convertTyped is ConvertRequest by the typed converter.
func convertTyped(x *providers.Exchange, cfg Config) ([]byte, *State, error) {
	req := x.Request
	if len(req.StopSequences) > 0 {
		return nil, nil, unsupported("stop_sequences", "stop_sequences (the Responses API has no stop parameter)")
	}
	if err := x.Request.Complete(); err != nil {
		return nil, nil, err
	}
	c := typedConverter{converter: converter{x: x, cfg: cfg, state: new(State), tag: "thinking"}}
	if tags := x.Settings.Parse.Tags; len(tags) > 0 {
		c.tag = tags[0]
	}
	out := request{Model: x.UpstreamModel, Temperature: req.Temperature, TopP: req.TopP, Store: cfg.Store}

	// Tools first: history calls must use the same upstream names.
	tools, err := c.tools(req.Tools)
	if err != nil {
		return nil, nil, err
	}
	out.Tools = tools
	if len(tools) > 0 && req.ToolChoice != nil {
		if out.ToolChoice, out.ParallelToolCalls, err = c.toolChoice(req.ToolChoice); err != nil {
			return nil, nil, err
		}
	}
	if out.Instructions, err = systemText(req.System, "system"); err != nil {
		return nil, nil, err
	}
	for i := range req.Messages {
		if err := c.message(i, &req.Messages[i]); err != nil {
			return nil, nil, err
		}
	}
	out.Input = c.items
	if out.Input == nil {
		out.Input = []any{}
	}
	if x.Thinking {
		// Anthropic allows only temperature 1 and top_p from 0.95 with
		// thinking on, and OpenAI's reasoning models take only their
		// defaults: the sampling fields would change nothing but a 400.
		out.Temperature, out.TopP = nil, nil
		out.Reasoning = &reasoning{Effort: providers.ReasoningEffort(x.ThinkingBudget(), true, cfg.Efforts)}
		if cfg.ReasoningSummary != SummaryOff {
			out.Reasoning.Summary = cfg.ReasoningSummary
			if out.Reasoning.Summary == "" {
				out.Reasoning.Summary = SummaryAuto
			}
		}
		// The reasoning itself, encrypted, to send back with the history.
		out.Include = []string{"reasoning.encrypted_content"}
	}
	if err := c.outputConfig(&out); err != nil {
		return nil, nil, err
	}

	var body any = out
	if x.CountTokens {
		body = countRequest{Model: out.Model, Instructions: out.Instructions, Input: out.Input, Tools: out.Tools,
			ToolChoice: out.ToolChoice, ParallelToolCalls: out.ParallelToolCalls, Reasoning: out.Reasoning}
	} else {
		if req.MaxTokens > 0 {
			out.MaxOutputTokens = max(req.MaxTokens, MinOutputTokens)
		}
		out.Stream = x.Streaming
		body = out
	}
	b, err := jsonbytes.Encode(body, len(x.Body))
	if err != nil {
		return nil, nil, err
	}
	return b, c.state, nil
}

// typedConverter is one typed conversion.
type typedConverter struct {
	converter
	items []any
}

// systemText joins the text blocks of a system prompt or system message.
func systemText(c wire.Content, path string) (string, error) {
	return openai.SystemText(c, path, "responses")
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
		c.items = append(c.items, messageItem{Type: "message", Role: "system", Content: []any{inputText{Type: "input_text", Text: text}}})
		return nil
	case "assistant":
		return c.assistant(path, m)
	}
	return c.user(path, m)
}

// user converts a user turn: tool_result blocks become function_call_output
// items, in order, ahead of one message item with the turn's other content.
func (c *typedConverter) user(path string, m *wire.Message) error {
	var content []any
	var outputs []any
	for j, b := range m.Content.Blocks {
		bpath := fmt.Sprintf("%s.content.%d", path, j)
		switch b.Type {
		case "text":
			if b.Text != "" {
				content = append(content, inputText{Type: "input_text", Text: b.Text})
			}
		case "image", "document":
			part, err := mediaPart(b, bpath)
			if err != nil {
				return err
			}
			content = append(content, part)
		case "tool_result":
			out, err := c.toolResult(bpath, b)
			if err != nil {
				return err
			}
			outputs = append(outputs, out)
		default:
			return unsupported(bpath, fmt.Sprintf("content block type %q in a user message", b.Type))
		}
	}
	c.items = append(c.items, outputs...)
	if len(content) > 0 || len(outputs) == 0 {
		if content == nil {
			content = []any{inputText{Type: "input_text", Text: ""}}
		}
		c.items = append(c.items, messageItem{Type: "message", Role: "user", Content: content})
	}
	return nil
}

// mediaPart converts an image or a document: base64 data as a data: URL,
// a URL as it is, a plain-text document as text.
func mediaPart(b wire.Block, path string) (any, error) {
	s := b.Source
	typ := "missing"
	if s != nil {
		typ = fmt.Sprintf("%q", s.Type)
		switch {
		case b.Type == "image" && s.Type == "base64":
			return inputImage{Type: "input_image", ImageURL: "data:" + s.MediaType + ";base64," + s.Data, Detail: "auto"}, nil
		case b.Type == "image" && s.Type == "url":
			return inputImage{Type: "input_image", ImageURL: s.URL, Detail: "auto"}, nil
		case b.Type == "document" && s.Type == "text":
			return inputText{Type: "input_text", Text: s.Data}, nil
		case b.Type == "document" && s.Type == "base64":
			mt := s.MediaType
			if mt == "" {
				mt = "application/pdf"
			}
			return inputFile{Type: "input_file", Filename: "document" + fileExt(mt), FileData: "data:" + mt + ";base64," + s.Data}, nil
		case b.Type == "document" && s.Type == "url":
			return inputFile{Type: "input_file", FileURL: s.URL}, nil
		}
	}
	return nil, unsupported(path+".source", b.Type+" source type "+typ)
}

// toolResult converts one tool_result: its text as the output string, or,
// with images or files in it, a list of input parts.
func (c *typedConverter) toolResult(path string, b wire.Block) (any, error) {
	var parts []any
	var text strings.Builder
	media := false
	if b.Content != nil {
		for k, rb := range b.Content.Blocks {
			switch rb.Type {
			case "text":
				if rb.Text == "" {
					continue
				}
				if text.Len() > 0 {
					text.WriteByte('\n')
				}
				text.WriteString(rb.Text)
				parts = append(parts, inputText{Type: "input_text", Text: rb.Text})
			case "image", "document":
				p, err := mediaPart(rb, fmt.Sprintf("%s.content.%d", path, k))
				if err != nil {
					return nil, err
				}
				parts = append(parts, p)
				media = true
			default:
				return nil, unsupported(fmt.Sprintf("%s.content.%d", path, k), fmt.Sprintf("content block type %q in a tool_result", rb.Type))
			}
		}
	}
	item := functionCallOutputItem{Type: "function_call_output", CallID: b.ToolUseID}
	switch {
	case media && b.IsError:
		item.Output = append([]any{inputText{Type: "input_text", Text: "Error:"}}, parts...)
	case media:
		item.Output = parts
	case b.IsError:
		item.Output = "Error: " + text.String()
	default:
		item.Output = text.String()
	}
	return item, nil
}

// assistant converts an assistant turn into items in the order of its
// blocks: runs of text as one output_text message, history thinking as
// reasoning items (see thinking), tool_use blocks as function_call items.
func (c *typedConverter) assistant(path string, m *wire.Message) error {
	start := len(c.items)
	var text strings.Builder
	flush := func() {
		if text.Len() == 0 {
			return
		}
		c.items = append(c.items, messageItem{Type: "message", Role: "assistant",
			Content: []any{outputText{Type: "output_text", Text: text.String(), Annotations: []any{}}}})
		text.Reset()
	}
	for j, b := range m.Content.Blocks {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "thinking", "redacted_thinking":
			if item, ok := c.reasoningItem(b); ok {
				flush()
				c.items = append(c.items, item)
			} else if b.Type == "thinking" && c.x.Thinking && b.Thinking != "" {
				// Thinking from elsewhere, as the tags the model would
				// write: context, not the upstream's own reasoning.
				text.WriteString("<" + c.tag + ">" + b.Thinking + "</" + c.tag + ">")
			}
		case "tool_use":
			args := "{}"
			if in := bytes.TrimSpace(b.Input); len(in) > 0 && string(in) != "null" {
				var buf bytes.Buffer
				if err := json.Compact(&buf, in); err != nil {
					return wire.InvalidRequest(fmt.Sprintf("%s.content.%d.input: %v", path, j, err))
				}
				args = buf.String()
			}
			flush()
			c.items = append(c.items, functionCallItem{Type: "function_call", CallID: b.ID, Name: c.state.Shorten(b.Name), Arguments: args})
		default:
			return unsupported(fmt.Sprintf("%s.content.%d", path, j), fmt.Sprintf("content block type %q in an assistant message", b.Type))
		}
	}
	flush()
	// The API refuses a reasoning item that nothing of its turn follows
	// (a turn cut short while the model reasoned): it is left out.
	for n := len(c.items); n > start; n-- {
		if _, ok := c.items[n-1].(reasoningItem); !ok {
			break
		}
		c.items = c.items[:n-1]
	}
	return nil
}

// reasoningItem restores a thinking or redacted_thinking block that a
// Responses upstream issued (the gateway's signature, origin Responses,
// verifies) as the reasoning item it came from: the summary is the
// thinking text, id and encrypted_content come from the signature. Without
// encrypted_content the item can only be found by id in the upstream's
// store, so it goes back only with store on.
func (c *typedConverter) reasoningItem(b wire.Block) (reasoningItem, bool) {
	var origin emit.Origin
	var foreign string
	var ok bool
	if b.Type == "thinking" {
		origin, foreign, ok = c.x.Settings.ThinkingOrigin(b)
	} else if c.x.Settings.Signer != nil {
		origin, foreign, ok = c.x.Settings.Signer.Open(b.Data, "")
	}
	if !ok || origin != emit.OriginResponses {
		return reasoningItem{}, false
	}
	id, enc := splitForeign(foreign)
	if id == "" || (enc == "" && !c.cfg.Store) {
		return reasoningItem{}, false
	}
	item := reasoningItem{Type: "reasoning", ID: id, Summary: []summaryText{}, EncryptedContent: enc}
	if b.Thinking != "" {
		item.Summary = append(item.Summary, summaryText{Type: "summary_text", Text: b.Thinking})
	}
	return item, true
}

// Input items.

type messageItem struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type inputText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type inputImage struct {
	Type     string `json:"type"`
	ImageURL string `json:"image_url"`
	Detail   string `json:"detail"`
}

type inputFile struct {
	Type     string `json:"type"`
	Filename string `json:"filename,omitempty"`
	FileData string `json:"file_data,omitempty"`
	FileURL  string `json:"file_url,omitempty"`
}

type outputText struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations []any  `json:"annotations"`
}

type functionCallItem struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type functionCallOutputItem struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output any    `json:"output"` // a string, or input_text/input_image parts
}

type reasoningItem struct {
	Type             string        `json:"type"`
	ID               string        `json:"id"`
	Summary          []summaryText `json:"summary"`
	EncryptedContent string        `json:"encrypted_content,omitempty"`
}

type summaryText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}
