// Package openai is the provider for OpenAI-compatible Chat Completions
// upstreams (OpenAI, DeepSeek, vLLM, OpenRouter, Ollama, LM Studio …).
//
// Three stages (docs/providers/openai.md): the Anthropic request becomes a Chat
// Completions request (with the thinking hint appended to the system prompt
// when thinking is on, and history thinking blocks sent back as tags or as
// reasoning_content); the upstream's chunks become Anthropic events, with
// <thinking> tags in the content split by thinkparse and the reasoning fields
// some servers send (reasoning_content, reasoning) turned into thinking blocks
// directly; a non-streaming chat.completion becomes an Anthropic Message by
// the same code.
package openai

import (
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/thinkgate/thinkgate/providers"
)

// DefaultPath is where Chat Completions lives on an OpenAI-compatible server.
const DefaultPath = "/v1/chat/completions"

// Values of Config.ReasoningHistory.
const (
	// HistoryContent sends history thinking back as <thinking> tags at the
	// start of the assistant message's content (the default).
	HistoryContent = "content"
	// HistoryReasoningContent sends it as the assistant message's
	// reasoning_content field, which DeepSeek's thinking mode demands on
	// assistant messages that carry tool calls.
	HistoryReasoningContent = "reasoning_content"
	// HistoryOpenRouter sends the reasoning_details OpenRouter returned
	// (thinking and redacted_thinking blocks it issued) back on the
	// assistant message, in their order; other thinking goes back as with
	// HistoryContent.
	HistoryOpenRouter = "openrouter"
	// HistoryMistral sends thinking back as Mistral's thinking chunks at
	// the start of the assistant message's content array.
	HistoryMistral = "mistral"
)

// Values of Config.ThinkingMode: how the request asks for thinking.
const (
	// ModeHint appends the thinking hint to the system prompt, asking the
	// model to write its thinking in tags (the default; for models that
	// are not reasoning models).
	ModeHint = "hint"
	// ModeEffort sends reasoning_effort, from the request's budget_tokens
	// by the Efforts table, asking a reasoning model to reason.
	ModeEffort = "effort"
	// ModeBoth sends both the hint and reasoning_effort.
	ModeBoth = "both"
	// ModeOpenRouter sends OpenRouter's reasoning object: max_tokens from
	// budget_tokens, else an effort; exclude when display is "omitted".
	ModeOpenRouter = "openrouter"
	// ModeNone sends neither (models that always reason, or never).
	ModeNone = "none"
)

// Efforts reasoning_effort takes.
var chatEfforts = []string{"minimal", "low", "medium", "high"}

// Values of Config.MaxTokensField.
const (
	MaxTokens           = "max_tokens"
	MaxCompletionTokens = "max_completion_tokens"
)

// Config is the openai provider's own configuration.
type Config struct {
	// APIKey is sent as "Authorization: Bearer <key>". Empty sends no
	// Authorization header (local servers such as Ollama need none).
	APIKey string `json:"api_key,omitempty"`
	// Path is the upstream's Chat Completions path, default DefaultPath. It
	// may carry a query (Azure OpenAI's ?api-version=…).
	Path string `json:"path,omitempty"`
	// ReasoningHistory is HistoryContent (default), HistoryReasoningContent,
	// HistoryOpenRouter or HistoryMistral.
	ReasoningHistory string `json:"reasoning_history,omitempty"`
	// ThinkingMode is ModeHint (default), ModeEffort, ModeBoth,
	// ModeOpenRouter or ModeNone.
	ThinkingMode string `json:"thinking_mode,omitempty"`
	// Efforts maps budget_tokens to reasoning_effort (and to OpenRouter's
	// effort when the request has no budget); empty means
	// providers.DefaultEfforts.
	Efforts []providers.EffortStep `json:"efforts,omitempty"`
	// MaxTokensField names the field max_tokens is sent as: MaxTokens
	// (default) or MaxCompletionTokens, which OpenAI's reasoning models
	// require.
	MaxTokensField string `json:"max_tokens_field,omitempty"`
	// MaxQueued bounds, in bytes, the text, reasoning and other tool calls'
	// arguments a stream holds back while one tool call's arguments are
	// incomplete; past it the stream ends with an error event. 0 means
	// DefaultMaxQueued.
	MaxQueued int `json:"max_queued,omitempty"`
}

// Validate checks the configuration.
func (c Config) Validate() error {
	if c.Path != "" && !strings.HasPrefix(c.Path, "/") {
		return fmt.Errorf("path: must start with /, got %q", c.Path)
	}
	switch c.ReasoningHistory {
	case "", HistoryContent, HistoryReasoningContent, HistoryOpenRouter, HistoryMistral:
	default:
		return fmt.Errorf("reasoning_history: must be %s, %s, %s or %s, got %q",
			HistoryContent, HistoryReasoningContent, HistoryOpenRouter, HistoryMistral, c.ReasoningHistory)
	}
	switch c.ThinkingMode {
	case "", ModeHint, ModeEffort, ModeBoth, ModeOpenRouter, ModeNone:
	default:
		return fmt.Errorf("thinking_mode: must be %s, %s, %s, %s or %s, got %q",
			ModeHint, ModeEffort, ModeBoth, ModeOpenRouter, ModeNone, c.ThinkingMode)
	}
	if err := providers.ValidateEffortSteps(c.Efforts, chatEfforts...); err != nil {
		return fmt.Errorf("efforts: %v", err)
	}
	if c.MaxQueued < 0 {
		return fmt.Errorf("max_queued: must not be negative")
	}
	switch c.MaxTokensField {
	case "", MaxTokens, MaxCompletionTokens:
	default:
		return fmt.Errorf("max_tokens_field: must be %s or %s, got %q", MaxTokens, MaxCompletionTokens, c.MaxTokensField)
	}
	return nil
}

// Provider is the OpenAI Chat Completions provider.
type Provider struct {
	cfg            Config
	path, rawQuery string
}

// New returns a provider for cfg, which must be valid.
func New(cfg Config) *Provider {
	p := &Provider{cfg: cfg, path: cfg.Path}
	if p.path == "" {
		p.path = DefaultPath
	}
	if i := strings.IndexByte(p.path, '?'); i >= 0 {
		p.path, p.rawQuery = p.path[:i], p.path[i+1:]
	}
	return p
}

// ErrCountTokens answers /v1/messages/count_tokens: Chat Completions has no
// token-counting endpoint, and an estimate would be a guess presented as a count.
var ErrCountTokens = &providers.Error{Status: http.StatusNotFound, Type: "not_found_error",
	Message: "count_tokens is not supported by the openai provider"}

// Rewrite converts the client's request into a Chat Completions request.
func (p *Provider) Rewrite(x *providers.Exchange, out *providers.Outbound) error {
	if x.CountTokens {
		return ErrCountTokens
	}
	body, state, err := ConvertRequest(x, p.cfg)
	if err != nil {
		return err
	}
	x.State = state
	out.Body = body
	out.Path, out.RawQuery = p.path, p.rawQuery
	SetHeaders(out.Header, p.cfg.APIKey)
	return nil
}

// SetHeaders removes the client's Anthropic credentials and protocol headers
// (with a key, every credential header of the client's) and sets the
// upstream's bearer key.
func SetHeaders(h http.Header, key string) {
	providers.StripClientHeaders(h, key != "", true)
	h.Del("X-Api-Key")
	h.Del("Authorization")
	h.Del("Accept-Encoding")
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
}

// TranslatesResponse: every Chat Completions response is rewritten.
func (p *Provider) TranslatesResponse(x *providers.Exchange) bool { return true }

// IsStream reports an event stream.
func (p *Provider) IsStream(x *providers.Exchange, mediaType string) bool {
	mt, _, err := mime.ParseMediaType(mediaType)
	return err == nil && mt == "text/event-stream"
}

// NewStream returns the chunk translator; it sends message_start at once.
func (p *Provider) NewStream(x *providers.Exchange, em *providers.Emitter) providers.Stream {
	s := NewStream(x, em)
	s.t.maxQueued = p.cfg.MaxQueued
	return s
}

// Message converts a chat.completion body.
func (p *Provider) Message(x *providers.Exchange, body []byte) ([]byte, error) {
	return ConvertMessage(x, body)
}

// UpstreamError maps an OpenAI-style error response.
func (p *Provider) UpstreamError(x *providers.Exchange, status int, header http.Header, body []byte) *providers.Error {
	return UpstreamError(status, header, body)
}

var _ providers.Provider = (*Provider)(nil)
