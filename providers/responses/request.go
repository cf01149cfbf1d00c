package responses

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/openai"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// request is the Responses request body, fields in wire order.
type request struct {
	Model             string      `json:"model"`
	Instructions      string      `json:"instructions,omitempty"`
	Input             []any       `json:"input"`
	Tools             []tool      `json:"tools,omitempty"`
	ToolChoice        any         `json:"tool_choice,omitempty"`
	ParallelToolCalls *bool       `json:"parallel_tool_calls,omitempty"`
	MaxOutputTokens   int         `json:"max_output_tokens,omitempty"`
	Temperature       *float64    `json:"temperature,omitempty"`
	TopP              *float64    `json:"top_p,omitempty"`
	Reasoning         *reasoning  `json:"reasoning,omitempty"`
	Include           []string    `json:"include,omitempty"`
	Text              *textConfig `json:"text,omitempty"`
	Store             bool        `json:"store"`
	Stream            bool        `json:"stream,omitempty"`
	PromptCacheKey    string      `json:"prompt_cache_key,omitempty"`
}

// countRequest is the body of POST /v1/responses/input_tokens: the fields
// that decide the input, none that shape the output.
type countRequest struct {
	Model             string     `json:"model"`
	Instructions      string     `json:"instructions,omitempty"`
	Input             []any      `json:"input"`
	Tools             []tool     `json:"tools,omitempty"`
	ToolChoice        any        `json:"tool_choice,omitempty"`
	ParallelToolCalls *bool      `json:"parallel_tool_calls,omitempty"`
	Reasoning         *reasoning `json:"reasoning,omitempty"`
}

type reasoning struct {
	Effort  string `json:"effort"`
	Summary string `json:"summary,omitempty"`
}

type tool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

type namedToolChoice struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// emptySchema is the parameters of a tool that declares none.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// MinOutputTokens is the smallest max_output_tokens the Responses API
// takes; a smaller max_tokens (Claude Code's quota probe sends 1) is raised
// to it rather than refused.
const MinOutputTokens = 16

// ConvertRequest builds the Responses body for x. Fields only Anthropic
// understands (cache_control, context_management, container,
// service_tier, top_k, metadata …) are not forwarded; output_config is
// mapped (outputconfig.go).
//
// The system prompt and the messages are written from the client's bytes
// (requestbytes.go), however the request was read.
func ConvertRequest(x *providers.Exchange, cfg Config) ([]byte, *State, error) {
	c := converter{x: x, cfg: cfg, state: new(State), tag: "thinking"}
	if tags := x.Settings.Parse.Tags; len(tags) > 0 {
		c.tag = tags[0]
	}
	out, err := c.head()
	if err != nil {
		return nil, nil, err
	}
	b := byteConverter{converter: &c}
	body, err := b.convert(out)
	if err != nil {
		return nil, nil, err
	}
	return body, c.state, nil
}

// head converts everything but the system prompt and the messages into
// out: stop_sequences (refused), the tools (first: history calls must use
// the same upstream names), tool_choice, the reasoning parameters and the
// small fields.
func (c *converter) head() (*request, error) {
	x, cfg, req := c.x, c.cfg, c.x.Request
	if len(req.StopSequences) > 0 {
		return nil, unsupported("stop_sequences", "stop_sequences (the Responses API has no stop parameter)")
	}
	out := &request{Model: x.UpstreamModel, Temperature: req.Temperature, TopP: req.TopP, Store: cfg.Store}
	out.PromptCacheKey = openai.PromptCacheKey(x, cfg.PromptCacheKey)
	tools, err := c.tools(req.Tools)
	if err != nil {
		return nil, err
	}
	out.Tools = tools
	if len(tools) > 0 && req.ToolChoice != nil {
		if out.ToolChoice, out.ParallelToolCalls, err = c.toolChoice(req.ToolChoice); err != nil {
			return nil, err
		}
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
	if err := c.outputConfig(out); err != nil {
		return nil, err
	}
	if !x.CountTokens {
		if req.MaxTokens > 0 {
			out.MaxOutputTokens = max(req.MaxTokens, MinOutputTokens)
		}
		out.Stream = x.Streaming
	}
	return out, nil
}

type converter struct {
	x     *providers.Exchange
	cfg   Config
	state *State
	tag   string
}

func unsupported(path, what string) error {
	return openai.Unsupported("responses", path, what)
}

// tools converts the client tools openai.OfferedAsFunction keeps to
// function tools.
func (c *converter) tools(tools []wire.Tool) ([]tool, error) {
	var out []tool
	for i, t := range tools {
		if offered, err := openai.OfferedAsFunction(i, &t, "responses"); !offered {
			if err != nil {
				return nil, err
			}
			continue
		}
		params := bytes.TrimSpace(t.InputSchema)
		if len(params) == 0 || string(params) == "null" {
			params = emptySchema
		}
		// strict false: Anthropic schemas need not meet strict mode's rules
		// (every property required, additionalProperties false).
		out = append(out, tool{Type: "function", Name: c.state.Shorten(t.Name), Description: t.Description, Parameters: params})
	}
	return out, nil
}

func (c *converter) toolChoice(tc *wire.ToolChoice) (any, *bool, error) {
	choice, parallel, err := openai.ToolChoice(tc)
	if err != nil {
		return nil, nil, err
	}
	if choice != "function" {
		return choice, parallel, nil
	}
	return namedToolChoice{Type: "function", Name: c.state.Shorten(tc.Name)}, parallel, nil
}

// fileExt names a file by its media type: OpenAI reads a file's type from
// its name.
func fileExt(mediaType string) string {
	switch mediaType {
	case "application/pdf":
		return ".pdf"
	case "text/plain":
		return ".txt"
	}
	return ""
}

// joinForeign is the foreign part of a Responses thinking block's
// signature: the reasoning item's id, a newline (no id holds one), and its
// encrypted_content.
func joinForeign(id, encrypted []byte) []byte {
	b := make([]byte, 0, len(id)+1+len(encrypted))
	b = append(b, id...)
	b = append(b, '\n')
	return append(b, encrypted...)
}

func splitForeign(f string) (id, encrypted string) {
	id, encrypted, _ = strings.Cut(f, "\n")
	return id, encrypted
}
