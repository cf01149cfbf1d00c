package openai

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
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
	ResponseFormat      *responseFormat      `json:"response_format,omitempty"`
	User                string               `json:"user,omitempty"`
	Stream              bool                 `json:"stream,omitempty"`
	StreamOptions       *streamOptions       `json:"stream_options,omitempty"`
	PromptCacheKey      string               `json:"prompt_cache_key,omitempty"`
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
	Type     string    `json:"type"` // text, image_url, file; thinking (Mistral)
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
	// File holds a file part's name and data: URL (a PDF document).
	File *fileData `json:"file,omitempty"`
	// Thinking holds a Mistral thinking chunk's text parts.
	Thinking []contentPart `json:"thinking,omitempty"`
	// CacheControl is a text part's breakpoint (OpenRouter's).
	CacheControl json.RawMessage `json:"cache_control,omitempty"`
}

type fileData struct {
	Filename string `json:"filename"`
	FileData string `json:"file_data"`
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
// alone understands (cache_control but on OpenRouter's text parts, thinking, context_management,
// container, service_tier, top_k …) are not forwarded; output_config is
// mapped (outputconfig.go).
//
// The system prompt and the messages are written from the client's bytes
// (byteConverter), however the request was read (ScanRequest, or a
// request matcher's ParseRequest) and whatever the reasoning history.
func ConvertRequest(x *providers.Exchange, cfg Config) ([]byte, *State, error) {
	c := converter{x: x, cfg: cfg, state: &State{}, tag: "thinking"}
	if tags := x.Settings.Parse.Tags; len(tags) > 0 {
		c.tag = tags[0]
	}
	out, err := c.head()
	if err != nil {
		return nil, nil, err
	}
	b := byteConverter{converter: &c}
	upstream, err := b.convert(out)
	if err != nil {
		return nil, nil, err
	}
	return upstream, c.state, nil
}

// head converts everything but the system prompt and the messages into
// out: the tools (first, so that history tool calls use the same upstream
// names), tool_choice, the thinking parameters and the small fields; it
// also decides c.hinted.
func (c *converter) head() (*chatRequest, error) {
	x, cfg, req := c.x, c.cfg, c.x.Request
	out := &chatRequest{Model: x.UpstreamModel, Temperature: req.Temperature, TopP: req.TopP, Stop: req.StopSequences}
	out.PromptCacheKey = PromptCacheKey(x, cfg.PromptCacheKey)
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
	if err := c.outputConfig(out); err != nil {
		return nil, err
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
	if x.Streaming {
		out.Stream = true
		out.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	return out, nil
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
	// hinted: the hint asked the model to write tags, so history
	// thinking may go back as tags.
	hinted bool
}

func unsupported(path, what string) error { return Unsupported("openai", path, what) }

// tools converts the client tools OfferedAsFunction keeps to functions.
func (c *converter) tools(tools []wire.Tool) ([]chatTool, error) {
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

func (c *converter) toolChoice(tc *wire.ToolChoice) (any, *bool, error) {
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
