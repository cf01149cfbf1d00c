package providers

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"path"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/thinkgate/thinkgate/thinkparse"
)

// Provider converts between the client's Anthropic dialect and one upstream
// format. Implementations hold only configuration; per-request state lives in
// the Exchange and in the Stream they return.
type Provider interface {
	// Rewrite converts the client's request for the upstream: body, path,
	// query and headers (out.Header is the upstream request's, edited in place).
	Rewrite(x *Exchange, out *Outbound) error

	// TranslatesResponse reports whether the 2xx response must be rewritten;
	// false leaves it to flow through untouched.
	TranslatesResponse(x *Exchange) bool

	// IsStream reports whether a 2xx response of this media type is the
	// upstream's streaming format.
	IsStream(x *Exchange, mediaType string) bool

	// NewStream returns the translator for a streamed 2xx body; it writes
	// Anthropic events through em.
	NewStream(x *Exchange, em *Emitter) Stream

	// Message converts a complete 2xx non-streaming body into an Anthropic
	// Message JSON.
	Message(x *Exchange, body []byte) ([]byte, error)

	// UpstreamError converts a non-2xx upstream response into an Anthropic error.
	UpstreamError(x *Exchange, status int, header http.Header, body []byte) *Error
}

// ErrorTranslator is implemented by providers whose 2xx responses pass
// through untouched (TranslatesResponse false) but whose upstream's error
// responses still need mapping into Anthropic errors.
type ErrorTranslator interface {
	TranslatesErrors(x *Exchange) bool
}

// Stream translates one streamed upstream body.
type Stream interface {
	// Write takes upstream bytes as they arrive, split anywhere.
	Write(p []byte) error
	// Close is called when the upstream body ended without a transport error.
	// It finishes the message, or returns an error if the stream was incomplete.
	Close() error
}

// Settings are the options every provider shares.
type Settings struct {
	// SplitTags splits inline thinking tags out of the model's text.
	SplitTags bool
	// Form is how thinking reaches the client.
	Form BlockForm
	// Parse configures thinkparse.
	Parse thinkparse.Options
	// DefaultThinking decides a request that does not say whether thinking is on.
	DefaultThinking bool
	// ThinkingHint is appended for tag-based upstreams; {budget} is replaced
	// by the request's budget_tokens or DefaultHintBudget.
	ThinkingHint string
	// Models rename client model names for the upstream, first match wins.
	Models []ModelRule
	// Signer signs the thinking blocks the gateway creates.
	Signer *Signer
	// MaxEventSize bounds one upstream event-stream event (its data lines
	// joined); 0 means DefaultMaxEvent.
	MaxEventSize int
}

// DefaultThinkingHint is the hint of docs/thinking.md; {budget} becomes the budget.
const DefaultThinkingHint = "<thinking_mode>interleaved</thinking_mode><max_thinking_length>{budget}</max_thinking_length>"

// DefaultHintBudget is the hint's length when the request sets no budget.
const DefaultHintBudget = 16000

// Hint returns the thinking hint for a request.
func (s *Settings) Hint(t ThinkingParam) string {
	h := s.ThinkingHint
	if h == "" {
		h = DefaultThinkingHint
	}
	n := t.BudgetTokens
	if n <= 0 {
		n = DefaultHintBudget
	}
	return strings.ReplaceAll(h, "{budget}", itoa(n))
}

func itoa(n int) string {
	var b [20]byte
	return string(strconv.AppendInt(b[:0], int64(n), 10))
}

// ModelRule renames models matching From (a path.Match glob) to To.
type ModelRule struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// MapModel returns the upstream model name for a client model name.
func (s *Settings) MapModel(name string) string {
	for _, r := range s.Models {
		if ok, _ := path.Match(r.From, name); ok {
			return r.To
		}
	}
	return name
}

// Exchange is the state of one client request as it crosses the gateway.
type Exchange struct {
	Settings *Settings
	Request  *Request
	// Body is the client's body exactly as received.
	Body []byte
	// Path and RawQuery are the client's.
	Path, RawQuery string
	// CountTokens is set for /v1/messages/count_tokens.
	CountTokens bool
	// ClientModel is the name the client asked for and sees in responses;
	// UpstreamModel is the name sent upstream.
	ClientModel, UpstreamModel string
	Stream                     bool
	// Thinking is on for this request.
	Thinking bool
	// MessageID is the msg_ id of a message the gateway makes itself.
	MessageID string
	// State is the provider's per-request state (tool-name maps and such).
	State any
	// ClientID identifies the client where the gateway authenticates it
	// (with client_keys, a hash of the key it presented); empty otherwise.
	// State the gateway derives from client input is scoped by it, so one
	// client cannot reach another's (Amazon Q's conversationId).
	ClientID string
	// Usage is filled by the translator as it learns it, for logs and metrics.
	Usage  Usage
	Logger *zap.Logger
}

// NewExchange prepares an exchange for a parsed request.
func NewExchange(s *Settings, req *Request, body []byte, logger *zap.Logger) *Exchange {
	if logger == nil {
		logger = zap.NewNop()
	}
	return &Exchange{
		Settings:      s,
		Request:       req,
		Body:          body,
		ClientModel:   req.Model,
		UpstreamModel: s.MapModel(req.Model),
		Stream:        req.Stream,
		Thinking:      req.Thinking.Enabled(s.DefaultThinking),
		MessageID:     NewID("msg_"),
		Logger:        logger,
	}
}

// Outbound is the upstream request being built.
type Outbound struct {
	Body     []byte
	Path     string
	RawQuery string
	Header   http.Header
}

const idAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewID returns prefix followed by 24 random base62 characters, the shape of
// Anthropic's msg_ and toolu_ ids.
func NewID(prefix string) string {
	var r [24]byte
	_, _ = rand.Read(r[:])
	b := make([]byte, len(prefix), len(prefix)+24)
	copy(b, prefix)
	for _, c := range r {
		b = append(b, idAlphabet[int(c)%len(idAlphabet)])
	}
	return string(b)
}

// DefaultUpstreamError maps a non-2xx upstream response: an Anthropic-shaped
// or OpenAI/Gemini-shaped error body keeps its message, anything else is
// quoted (truncated); the type follows the status. Retry-After is kept.
func DefaultUpstreamError(status int, header http.Header, body []byte) *Error {
	e := &Error{Status: status, Type: ErrorTypeForStatus(status)}
	var shaped struct {
		Type  string `json:"type"`
		Error json.RawMessage
	}
	if json.Unmarshal(body, &shaped) == nil && len(shaped.Error) > 0 {
		var inner struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(shaped.Error, &inner) == nil && inner.Message != "" {
			e.Message = inner.Message
			if shaped.Type == "error" && inner.Type != "" {
				e.Type = inner.Type
			}
		} else {
			var s string
			if json.Unmarshal(shaped.Error, &s) == nil {
				e.Message = s
			}
		}
	}
	if e.Message == "" {
		msg := bytes.TrimSpace(body)
		if len(msg) > 512 {
			msg = msg[:512]
		}
		text := http.StatusText(status)
		if text == "" {
			text = "status " + itoa(status)
		}
		e.Message = "upstream returned " + text
		if len(msg) > 0 {
			e.Message += ": " + strings.ToValidUTF8(string(msg), "\uFFFD")
		}
	}
	if header != nil {
		e.RetryAfter = header.Get("Retry-After")
	}
	return e
}
