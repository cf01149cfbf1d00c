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
	"net/http"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
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

// Provider is the OpenAI Chat Completions provider.
type Provider struct {
	cfg            Config
	path, rawQuery string
}

// New returns a provider for cfg, which must be valid.
func New(cfg Config) *Provider {
	p := &Provider{cfg: cfg}
	p.path, p.rawQuery = UpstreamPath(cfg.Path, DefaultPath)
	return p
}

// ErrCountTokens is Rewrite's answer to /v1/messages/count_tokens: Chat
// Completions has no token-counting endpoint, so the gateway answers it
// with CountTokens (providers.TokenCounter) and never sends it upstream.
var ErrCountTokens = &wire.Error{Status: http.StatusNotFound, Type: "not_found_error",
	Message: "count_tokens is not supported by the openai provider"}

// Rewrite converts the client's request into a Chat Completions request.
func (p *Provider) Rewrite(x *providers.Exchange, out *providers.Outbound) (providers.Translator, error) {
	if x.CountTokens {
		return nil, ErrCountTokens
	}
	body, state, err := ConvertRequest(x, p.cfg)
	if err != nil {
		return nil, err
	}
	out.Body = body
	out.Path, out.RawQuery = p.path, p.rawQuery
	SetHeaders(out.Header, p.cfg.APIKey)
	return NewTranslator(x, state, p.cfg.MaxQueued), nil
}

// SetHeaders removes the client's Anthropic credentials and protocol headers
// (with a key, every credential header of the client's) and sets the
// upstream's bearer key.
func SetHeaders(h http.Header, key string) {
	providers.StripClientHeaders(h, key != "", true)
	h.Del("X-Api-Key")
	h.Del("Authorization")
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
}

// Translator is the request's providers.Translator: it holds what the
// response needs to know about the request (the shortened tool names) and
// the stream's bound, and makes the answerTranslator the body goes through.
type Translator struct {
	x         *providers.Exchange
	state     *State
	maxQueued int
}

// NewTranslator returns the translator of x's response. st is what
// ConvertRequest returned (nil: no tool name was shortened); maxQueued is
// Config.MaxQueued.
func NewTranslator(x *providers.Exchange, st *State, maxQueued int) *Translator {
	return &Translator{x: x, state: st, maxQueued: maxQueued}
}

// Handle translates every response: an event stream as it flows, a
// chat.completion whole, an error into Anthropic's shape.
func (t *Translator) Handle(status int, header http.Header) providers.Handling {
	switch {
	case status >= 300:
		return providers.Handling{Error: UpstreamError}
	case t.x.Streaming && emit.IsSSE(header.Get("Content-Type")):
		return providers.Handling{NewStream: t.NewStream}
	}
	return providers.Handling{Body: t.Message}
}

// Interface guards
var (
	_ providers.Provider   = (*Provider)(nil)
	_ providers.Translator = (*Translator)(nil)
)
