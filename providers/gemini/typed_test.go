package gemini

import (
	"bytes"
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
// before the byte-level one (convert.go) handled every request; it stays
// here as the reference FuzzGeminiConvertMatchesTyped holds convert.go to.

// typedBody is the upstream body the typed converter writes for x, in
// the form form.
func typedBody(x *providers.Exchange, budget, expansion int, levels []providers.EffortStep, model string, form bodyForm) ([]byte, error) {
	if err := x.Request.Complete(); err != nil {
		return nil, err
	}
	req, err := buildRequest(x, budget, expansion, levels)
	if err != nil {
		return nil, err
	}
	var body any = req
	switch form {
	case formCountTokens:
		req.Model = "models/" + model
		body = countTokensRequest{GenerateContentRequest: req}
	case formCountContents:
		body = &generateRequest{Contents: req.Contents, SystemInstruction: req.SystemInstruction, Tools: req.Tools}
	}
	return jsonbytes.Encode(body, len(x.Body))
}

// The Gemini request body (GenerateContentRequest), only what the gateway
// sends. Field names are Gemini's REST (camelCase) names.
type generateRequest struct {
	// Model is set only inside countTokens' generateContentRequest.
	Model             string            `json:"model,omitempty"`
	Contents          []content         `json:"contents"`
	SystemInstruction *content          `json:"systemInstruction,omitempty"`
	Tools             []tool            `json:"tools,omitempty"`
	ToolConfig        *toolConfig       `json:"toolConfig,omitempty"`
	GenerationConfig  *generationConfig `json:"generationConfig,omitempty"`
}

type countTokensRequest struct {
	GenerateContentRequest *generateRequest `json:"generateContentRequest"`
}

type content struct {
	Role  string `json:"role,omitempty"`
	Parts []part `json:"parts"`
}

type part struct {
	Text             *string           `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	InlineData       *blob             `json:"inlineData,omitempty"`
	FileData         *fileData         `json:"fileData,omitempty"`
	FunctionCall     *functionCall     `json:"functionCall,omitempty"`
	FunctionResponse *functionResponse `json:"functionResponse,omitempty"`
	ThoughtSignature string            `json:"thoughtSignature,omitempty"`
}

type blob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

type fileData struct {
	MimeType string `json:"mimeType,omitempty"`
	FileURI  string `json:"fileUri"`
}

type functionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type functionResponse struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name"`
	Response resultResponse `json:"response"`
}

// resultResponse is the functionResponse.response object: {"output": …} for a
// result, {"error": …} for a tool_result with is_error.
type resultResponse struct {
	Output *string `json:"output,omitempty"`
	Error  *string `json:"error,omitempty"`
}

// typedConverter turns one Anthropic request into a Gemini one.
type typedConverter struct {
	x      *providers.Exchange
	budget int // thinking budget when the request sets none
	// levels maps budgets to thinkingLevel for a model that takes a level
	// (nil: the model takes thinkingBudget).
	levels []providers.EffortStep

	system   []part
	contents []content
	// toolNames maps every tool_use id of the history to its tool name:
	// Gemini's functionResponse needs the name, Anthropic's tool_result
	// only has the id.
	toolNames map[string]string
}

// buildRequest converts x.Request into a GenerateContentRequest; expansion
// bounds each tool's reduced schema (a multiple of its input size).
func buildRequest(x *providers.Exchange, budget, expansion int, levels []providers.EffortStep) (*generateRequest, error) {
	c := &typedConverter{x: x, budget: budget, levels: levels, toolNames: map[string]string{}}
	req := x.Request
	c.systemContent(req.System)
	for _, m := range req.Messages {
		if m.Role != "assistant" {
			continue
		}
		for _, b := range m.Content.Blocks {
			if b.Type == "tool_use" && b.ID != "" {
				c.toolNames[b.ID] = b.Name
			}
		}
	}
	for i, m := range req.Messages {
		switch m.Role {
		case "system":
			// A role:"system" message (accepted by the gateway) joins the
			// system instruction: Gemini has no system turn.
			c.systemContent(m.Content)
		case "assistant":
			c.appendTurn("model", c.modelParts(m.Content.Blocks))
		default:
			parts, err := c.userParts(i, m.Content.Blocks)
			if err != nil {
				return nil, err
			}
			c.appendTurn("user", parts)
		}
	}
	if len(c.contents) == 0 {
		return nil, wire.InvalidRequest("messages: at least one message with content is required")
	}
	for i := range c.contents {
		if c.contents[i].Role == "model" {
			c.contents[i].Parts = signModelParts(c.contents[i].Parts)
		}
	}

	out := &generateRequest{Contents: c.contents}
	if len(c.system) > 0 {
		out.SystemInstruction = &content{Parts: c.system}
	}
	decls, err := functionDeclarations(req.Tools, expansion)
	if err != nil {
		return nil, err
	}
	if len(decls) > 0 {
		out.Tools = []tool{{FunctionDeclarations: decls}}
		out.ToolConfig = toolChoice(req.ToolChoice)
	}
	if !x.CountTokens {
		out.GenerationConfig = generationConfigFor(x, c.budget, c.levels)
		if err := applyOutputConfig(x, out.GenerationConfig, c.levels); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func textPart(s string) part { return part{Text: &s} }

func (c *typedConverter) systemContent(sys wire.Content) {
	for _, b := range sys.Blocks {
		if b.Type == "text" && b.Text != "" {
			c.system = append(c.system, textPart(b.Text))
		}
	}
}

// appendTurn adds a turn, merging it into the previous one when the role is
// the same: Gemini wants user and model turns to alternate. Turns left with
// no parts (only dropped blocks) are skipped; Gemini rejects empty ones.
func (c *typedConverter) appendTurn(role string, parts []part) {
	if len(parts) == 0 {
		return
	}
	if n := len(c.contents); n > 0 && c.contents[n-1].Role == role {
		c.contents[n-1].Parts = append(c.contents[n-1].Parts, parts...)
		return
	}
	c.contents = append(c.contents, content{Role: role, Parts: parts})
}

// userParts converts a user turn. functionResponse parts go first (Anthropic
// already demands tool_result blocks first; Gemini pairs them with the calls
// of the previous model turn), then everything else in order, images that
// came inside tool_results included.
func (c *typedConverter) userParts(msgIndex int, blocks []wire.Block) ([]part, error) {
	var responses, rest []part
	for j, b := range blocks {
		switch b.Type {
		case "tool_result":
			name, ok := c.toolNames[b.ToolUseID]
			if !ok {
				return nil, wire.InvalidRequest(fmt.Sprintf(
					"messages.%d.content.%d: tool_result for tool_use_id %q has no matching tool_use block in an earlier assistant message",
					msgIndex, j, b.ToolUseID))
			}
			_, callID, _ := decodeToolID(c.x.Settings.Signer, b.ToolUseID)
			text, media := toolResultContent(b.Content)
			fr := &functionResponse{ID: callID, Name: name}
			if b.IsError {
				fr.Response.Error = &text
			} else {
				fr.Response.Output = &text
			}
			responses = append(responses, part{FunctionResponse: fr})
			rest = append(rest, media...)
		default:
			if p, ok := c.commonPart(b); ok {
				rest = append(rest, p)
			}
		}
	}
	return append(responses, rest...), nil
}

// modelParts converts an assistant turn.
func (c *typedConverter) modelParts(blocks []wire.Block) []part {
	var parts []part
	for _, b := range blocks {
		switch b.Type {
		case "thinking":
			if p, ok := c.thinkingPart(b); ok {
				parts = append(parts, p)
			}
		case "tool_use":
			sig, callID, _ := decodeToolID(c.x.Settings.Signer, b.ID)
			args := bytes.TrimSpace(b.Input)
			if len(args) == 0 || args[0] != '{' {
				args = []byte("{}")
			}
			parts = append(parts, part{
				FunctionCall:     &functionCall{ID: callID, Name: b.Name, Args: json.RawMessage(args)},
				ThoughtSignature: sig,
			})
		default:
			if p, ok := c.commonPart(b); ok {
				parts = append(parts, p)
			}
		}
	}
	return parts
}

// thinkingPart converts a history thinking block by where the gateway got it:
// a Gemini thought goes back as a thought part with its thoughtSignature; a
// span split out of <thinking> tags goes back as the tagged text the model
// wrote. Anything else (an Anthropic thinking block, one from another
// upstream, an unsigned or altered one) is dropped: its signature means
// nothing to Gemini, and earlier turns' thinking is context Gemini does not need.
func (c *typedConverter) thinkingPart(b wire.Block) (part, bool) {
	origin, foreign, ok := c.x.Settings.ThinkingOrigin(b)
	if !ok {
		return part{}, false
	}
	switch origin {
	case emit.OriginGemini:
		p := textPart(b.Thinking)
		p.Thought = true
		p.ThoughtSignature = foreign
		return p, true
	case emit.OriginTags:
		return textPart("<thinking>" + b.Thinking + "</thinking>"), true
	}
	return part{}, false
}

// commonPart converts the blocks either role may carry: text, image, document.
// Other block types (server tool blocks, redacted_thinking …) mean nothing to
// Gemini and are dropped.
func (c *typedConverter) commonPart(b wire.Block) (part, bool) {
	switch b.Type {
	case "text":
		if b.Text == "" {
			return part{}, false // Gemini rejects empty text parts
		}
		return textPart(b.Text), true
	case "image", "document":
		return mediaPart(b)
	}
	c.x.Logger.Debug("gemini: dropping a content block Gemini has no form for")
	return part{}, false
}

// mediaPart converts an image or document source: base64 data inline, a URL
// as fileData (Gemini fetches what it can and says so when it cannot), a
// plain-text document as text.
func mediaPart(b wire.Block) (part, bool) {
	s := b.Source
	if s == nil {
		return part{}, false
	}
	switch s.Type {
	case "base64":
		mt := s.MediaType
		if mt == "" && b.Type == "document" {
			mt = "application/pdf"
		}
		return part{InlineData: &blob{MimeType: mt, Data: s.Data}}, true
	case "url":
		mt := s.MediaType
		if mt == "" && b.Type == "document" {
			mt = "application/pdf"
		}
		return part{FileData: &fileData{MimeType: mt, FileURI: s.URL}}, true
	case "text":
		if s.Data == "" {
			return part{}, false
		}
		return textPart(s.Data), true
	}
	return part{}, false
}

// toolResultContent returns a tool_result's text (text blocks joined by
// newlines) and its images as parts of their own.
func toolResultContent(c *wire.Content) (string, []part) {
	if c == nil {
		return "", nil
	}
	// One text block, the usual case, is used as it is rather than copied:
	// tool outputs are most of a long conversation's bytes.
	only, texts := "", 0
	for i := range c.Blocks {
		if c.Blocks[i].Type == "text" {
			only = c.Blocks[i].Text
			texts++
		}
	}
	var text strings.Builder
	var media []part
	for _, b := range c.Blocks {
		switch b.Type {
		case "text":
			if texts == 1 {
				continue
			}
			if text.Len() > 0 {
				text.WriteByte('\n')
			}
			text.WriteString(b.Text)
		case "image", "document":
			if p, ok := mediaPart(b); ok {
				media = append(media, p)
			}
		}
	}
	if texts == 1 {
		return only, media
	}
	return text.String(), media
}

// signModelParts applies Gemini's signature rules to one model turn:
//   - a signature that sits on an empty text part belongs to the next part
//     (docs/providers/gemini.md), so it moves there;
//   - the first functionCall of the turn must carry a signature on Gemini 3,
//     so one whose signature could not be recovered gets SkipSignature.
func signModelParts(parts []part) []part {
	out := parts[:0]
	pending := ""
	for _, p := range parts {
		if p.FunctionCall == nil && p.FunctionResponse == nil && p.InlineData == nil && p.FileData == nil &&
			(p.Text == nil || *p.Text == "") && p.ThoughtSignature != "" {
			pending = p.ThoughtSignature
			continue
		}
		if pending != "" && p.ThoughtSignature == "" {
			p.ThoughtSignature = pending
		}
		pending = ""
		out = append(out, p)
	}
	if pending != "" {
		// Nothing follows: keep the signature where Gemini put it.
		empty := ""
		out = append(out, part{Text: &empty, ThoughtSignature: pending})
	}
	for i := range out {
		if out[i].FunctionCall != nil {
			if out[i].ThoughtSignature == "" {
				out[i].ThoughtSignature = SkipSignature
			}
			break
		}
	}
	return out
}
