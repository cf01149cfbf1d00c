package amazonq

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// The typed converter: the request decoded into Go (Request.Complete),
// converted into Go values and encoded. It was the production converter
// before the byte-level one (convert.go) handled every request; it stays
// here as the reference FuzzAmazonQConvertMatchesTyped holds convert.go
// to.

// The generateAssistantResponse request body. Field order follows the
// official client's serialisation.
// The generateAssistantResponse request body. Field order follows the
// official client's serialisation.
type wireRequest struct {
	ConversationState conversationState `json:"conversationState"`
	ProfileArn        string            `json:"profileArn,omitempty"`
}

type conversationState struct {
	ChatTriggerType string         `json:"chatTriggerType"`
	ConversationID  string         `json:"conversationId"`
	CurrentMessage  currentMessage `json:"currentMessage"`
	History         []historyEntry `json:"history,omitempty"`
}

type currentMessage struct {
	UserInputMessage userInputMessage `json:"userInputMessage"`
}

// historyEntry holds exactly one of the two.
type historyEntry struct {
	UserInputMessage         *userInputMessage         `json:"userInputMessage,omitempty"`
	AssistantResponseMessage *assistantResponseMessage `json:"assistantResponseMessage,omitempty"`
}

type userInputMessage struct {
	Content                 string                   `json:"content"`
	ModelID                 string                   `json:"modelId"`
	Origin                  string                   `json:"origin"`
	Images                  []wireImage              `json:"images,omitempty"`
	UserInputMessageContext *userInputMessageContext `json:"userInputMessageContext,omitempty"`
}

type userInputMessageContext struct {
	Tools       []wireTool       `json:"tools,omitempty"`
	ToolResults []wireToolResult `json:"toolResults,omitempty"`
}

type wireToolResult struct {
	ToolUseID string        `json:"toolUseId"`
	Content   []textContent `json:"content"`
	Status    string        `json:"status"`
}

type textContent struct {
	Text string `json:"text"`
}

type wireImage struct {
	Format string      `json:"format"`
	Source imageSource `json:"source"`
}

type imageSource struct {
	Bytes string `json:"bytes"`
}

type assistantResponseMessage struct {
	Content  string        `json:"content"`
	ToolUses []wireToolUse `json:"toolUses,omitempty"`
}

type wireToolUse struct {
	ToolUseID string          `json:"toolUseId"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

// turn is one merged conversation turn on its way to the wire form.
type turn struct {
	assistant bool
	text      []string
	images    []wireImage
	results   []wireToolResult
	// resultImages counts the images each result moved to the message.
	resultImages []int
	uses         []wireToolUse
}

// convertTyped builds the upstream body from the decoded request.
func (p *Provider) convertTyped(x *providers.Exchange) ([]byte, *state, error) {
	if err := checkOutputConfig(x); err != nil {
		return nil, nil, err
	}
	if err := x.Request.Complete(); err != nil {
		return nil, nil, err
	}
	c := &converter{p: p, x: x, st: &state{}}
	req := x.Request
	if s := joinText(req.System); s != "" {
		c.system = append(c.system, s)
	}

	var turns []*turn
	for _, m := range req.Messages {
		if m.Role == "system" {
			if s := joinText(m.Content); s != "" {
				c.system = append(c.system, s)
			}
			continue
		}
		assistant := m.Role == "assistant"
		var t *turn
		if n := len(turns); n > 0 && turns[n-1].assistant == assistant {
			t = turns[n-1] // same role twice: merge, so the history alternates
		} else {
			t = &turn{assistant: assistant}
			turns = append(turns, t)
		}
		if assistant {
			c.addAssistant(t, m.Content)
		} else {
			c.addUser(t, m.Content)
		}
	}
	if len(turns) == 0 {
		return nil, nil, wire.InvalidRequest("messages: at least one user message is required")
	}
	if turns[0].assistant {
		turns = append([]*turn{{}}, turns...) // history must start with a user turn
	}
	if turns[len(turns)-1].assistant {
		turns = append(turns, &turn{text: []string{continuePrompt}})
	}

	cur := turns[len(turns)-1]
	tools := c.tools()
	uim := userInputMessage{
		Content: c.currentContent(cur),
		ModelID: x.UpstreamModel,
		Origin:  p.cfg.Origin,
		Images:  cur.images,
	}
	if len(tools) > 0 || len(cur.results) > 0 {
		uim.UserInputMessageContext = &userInputMessageContext{Tools: tools, ToolResults: finishResults(cur)}
	}
	history := make([]historyEntry, 0, len(turns)-1)
	for _, t := range turns[:len(turns)-1] {
		if t.assistant {
			history = append(history, historyEntry{AssistantResponseMessage: c.assistantMessage(t)})
		} else {
			history = append(history, historyEntry{UserInputMessage: c.userMessage(t)})
		}
	}

	body := wireRequest{
		ConversationState: conversationState{
			ChatTriggerType: "MANUAL",
			ConversationID:  ConversationID(x),
			CurrentMessage:  currentMessage{UserInputMessage: uim},
			History:         history,
		},
		ProfileArn: p.cfg.ProfileARN,
	}
	// HTML characters unescaped: the prompt's tags stay readable in debug logs.
	// The template and tool documentation make the body a little larger than
	// the client's; room for them spares growing a copy of the whole.
	out, err := jsonbytes.Encode(body, len(x.Body)+len(x.Body)/8)
	if err != nil {
		return nil, nil, wire.InvalidRequest("converting the request for Amazon Q: " + err.Error())
	}
	if len(c.st.toolNames) == 0 {
		c.st = nil
	}
	return out, c.st, nil
}

// addUser adds a user message's blocks to t.
func (c *converter) addUser(t *turn, content wire.Content) {
	for _, b := range content.Blocks {
		switch b.Type {
		case "text":
			if b.Text != "" {
				t.text = append(t.text, b.Text)
			}
		case "image":
			if img, ok := convertImage(b.Source); ok {
				t.images = append(t.images, img)
			} else {
				t.text = append(t.text, omitted(b))
			}
		case "document":
			if b.Source != nil && b.Source.Type == "text" && b.Source.Data != "" {
				t.text = append(t.text, b.Source.Data)
			} else {
				t.text = append(t.text, omitted(b))
			}
		case "tool_result":
			c.addToolResult(t, b)
		}
		// thinking, redacted_thinking and server-tool blocks in a user turn
		// carry nothing Amazon Q can take.
	}
}

// addToolResult converts a tool_result block; results for the same id
// merge. Empty results get their placeholder in finishResults.
func (c *converter) addToolResult(t *turn, b wire.Block) {
	var texts []textContent
	images := 0
	if b.Content != nil {
		for _, cb := range b.Content.Blocks {
			switch cb.Type {
			case "text":
				if cb.Text != "" {
					texts = append(texts, textContent{Text: cb.Text})
				}
			case "image":
				if img, ok := convertImage(cb.Source); ok {
					t.images = append(t.images, img)
					images++
				} else {
					texts = append(texts, textContent{Text: omitted(cb)})
				}
			case "document":
				if cb.Source != nil && cb.Source.Type == "text" && cb.Source.Data != "" {
					texts = append(texts, textContent{Text: cb.Source.Data})
				} else {
					texts = append(texts, textContent{Text: omitted(cb)})
				}
			default:
				texts = append(texts, textContent{Text: omitted(cb)})
			}
		}
	}
	status := "success"
	if b.IsError {
		status = "error"
	}
	for i := range t.results {
		if t.results[i].ToolUseID == b.ToolUseID {
			t.results[i].Content = append(t.results[i].Content, texts...)
			t.resultImages[i] += images
			if b.IsError {
				t.results[i].Status = "error"
			}
			return
		}
	}
	t.results = append(t.results, wireToolResult{ToolUseID: b.ToolUseID, Content: texts, Status: status})
	t.resultImages = append(t.resultImages, images)
}

// finishResults gives every result without text a placeholder: Amazon Q
// wants at least one content item.
func finishResults(t *turn) []wireToolResult {
	for i := range t.results {
		r := &t.results[i]
		if len(r.Content) > 0 {
			continue
		}
		if t.resultImages[i] > 0 {
			r.Content = []textContent{{Text: placeholderImageOutput}}
		} else {
			r.Content = []textContent{{Text: placeholderNoOutput}}
		}
	}
	return t.results
}

// addAssistant adds an assistant message's blocks to t. Thinking blocks go
// back as <thinking> tags, where they stood, when thinking is on: Amazon Q
// has no field for them and ignores signatures, so every origin's text is
// kept the same way.
func (c *converter) addAssistant(t *turn, content wire.Content) {
	for _, b := range content.Blocks {
		switch b.Type {
		case "text":
			if b.Text != "" {
				t.text = append(t.text, b.Text)
			}
		case "thinking":
			if c.x.Thinking && b.Thinking != "" {
				t.text = append(t.text, "<thinking>"+b.Thinking+"</thinking>")
			}
		case "tool_use":
			input := json.RawMessage(bytes.TrimSpace(b.Input))
			if len(input) == 0 || input[0] != '{' || !json.Valid(input) {
				input = json.RawMessage("{}")
			}
			t.uses = append(t.uses, wireToolUse{ToolUseID: b.ID, Name: c.toolName(b.Name), Input: input})
		}
		// redacted_thinking and server-tool blocks have no Amazon Q form.
	}
}

func (c *converter) userMessage(t *turn) *userInputMessage {
	content := strings.Join(t.text, "\n")
	if strings.TrimSpace(content) == "" {
		if len(t.results) > 0 {
			content = placeholderToolResults
		} else {
			content = placeholderUser
		}
	}
	m := &userInputMessage{Content: content, ModelID: c.x.UpstreamModel, Origin: c.p.cfg.Origin, Images: t.images}
	if len(t.results) > 0 {
		m.UserInputMessageContext = &userInputMessageContext{ToolResults: finishResults(t)}
	}
	return m
}

func (c *converter) assistantMessage(t *turn) *assistantResponseMessage {
	// The model wrote its thinking and text as one stream: join them as it did.
	content := strings.Join(t.text, "")
	if strings.TrimSpace(content) == "" {
		if len(t.uses) > 0 {
			content = placeholderToolUse
		} else {
			content = placeholderAssistant
		}
	}
	return &assistantResponseMessage{Content: content, ToolUses: t.uses}
}

// currentContent is the template (docs/providers/amazonq.md) around the last user turn, with the
// system prompt and any long tool descriptions in front, and the thinking
// hint appended twice when thinking is on.
func (c *converter) currentContent(t *turn) string {
	var b strings.Builder
	if len(c.system) > 0 {
		b.WriteString("--- SYSTEM PROMPT BEGIN ---\n")
		b.WriteString(strings.Join(c.system, "\n"))
		b.WriteString("\n--- SYSTEM PROMPT END ---\n\n")
	}
	if len(c.toolDocs) > 0 {
		b.WriteString("--- TOOL DOCUMENTATION BEGIN ---\n")
		b.WriteString(strings.Join(c.toolDocs, "\n"))
		b.WriteString("--- TOOL DOCUMENTATION END ---\n\n")
	}
	b.WriteString("--- CONTEXT ENTRY BEGIN ---\nCurrent time: ")
	b.WriteString(c.p.cfg.Now().Format("Monday, 2006-01-02T15:04:05.000-07:00"))
	b.WriteString("\n--- CONTEXT ENTRY END ---\n\n--- USER MESSAGE BEGIN ---\n")
	prompt := strings.Join(t.text, "\n")
	b.WriteString(prompt)
	if c.x.Thinking {
		if prompt != "" {
			b.WriteByte('\n')
		}
		hint := c.x.Settings.Hint(c.x.Request.Thinking)
		b.WriteString(hint)
		b.WriteString(hint)
	}
	b.WriteString("\n--- USER MESSAGE END ---")
	return b.String()
}

// convertImage turns a base64 image source into Amazon Q's form; the format
// is the media type's subtype (png, jpeg, gif, webp).
func convertImage(src *wire.Source) (wireImage, bool) {
	if src == nil || src.Type != "base64" || src.Data == "" {
		return wireImage{}, false
	}
	format := src.MediaType
	if i := strings.LastIndexByte(format, '/'); i >= 0 {
		format = format[i+1:]
	}
	if format == "" {
		return wireImage{}, false
	}
	return wireImage{Format: format, Source: imageSource{Bytes: src.Data}}, true
}

// omitted is the text that stands for a block Amazon Q cannot take (an image
// by URL, a PDF …), so the model knows something was there.
func omitted(b wire.Block) string {
	what := b.Type
	if b.Source != nil {
		switch {
		case b.Source.URL != "":
			what += " " + b.Source.URL
		case b.Source.MediaType != "":
			what += " (" + b.Source.MediaType + ")"
		}
	}
	return "[" + what + " omitted: not supported by Amazon Q]"
}

// joinText joins the text blocks of a system prompt or system message, one
// per line (Claude Code sends its system prompt as several blocks).
func joinText(c wire.Content) string {
	var parts []string
	for _, b := range c.Blocks {
		if b.Type == "text" && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ConversationID is the conversation id of x from its decoded request.
func ConversationID(x *providers.Exchange) string {
	return conversationIDOf(x, func() (system, first string) {
		req := x.Request
		for _, m := range req.Messages {
			if m.Role == "user" {
				first = m.Content.Text()
				break
			}
		}
		return joinText(req.System), first
	})
}
