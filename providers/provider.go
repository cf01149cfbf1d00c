package providers

import (
	"crypto/rand"
	"net/http"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
	"github.com/thinkgate/thinkgate/thinkparse"
)

// Provider converts between the client's Anthropic dialect and one upstream
// format. It holds only configuration: what one request needs lives in the
// Exchange and in the Translator that Rewrite returns.
type Provider interface {
	// Rewrite converts the client's request for the upstream (body, path,
	// query and headers; out.Header is the upstream request's, edited in
	// place) and returns the translator of the upstream's response.
	Rewrite(x *Exchange, out *Outbound) (Translator, error)
}

// Translator turns the upstream's response to one request into the
// client's. It is the provider's own per-request value, holding whatever
// the response needs (tool-name maps and such).
type Translator interface {
	// Handle is asked once, when the upstream's final status and headers
	// arrive, how the body is handled. Informational (1xx) and redirect
	// (3xx) responses never reach it: the gateway answers those itself.
	// The header stays valid after the call.
	Handle(status int, header http.Header) Handling
}

// Handling says what handles one upstream response. At most one of
// NewStream, Body and Error is set; none passes the response through as it is.
type Handling struct {
	// NewStream makes the translator of a 2xx stream, which translates it
	// as it arrives into the emitter the gateway made for the response
	// (NewStreamEmitter, whose sink is the client).
	NewStream func(em *emit.Emitter) StreamTranslator
	// Body translates a complete 2xx body into the client's Message (or
	// count_tokens answer) JSON.
	Body func(body []byte) ([]byte, error)
	// Error maps a complete non-2xx body into the client's error.
	Error func(status int, header http.Header, body []byte) *wire.Error
	// UpstreamHeader lets the upstream's own response headers reach the
	// client (its cookies and body framing excepted): the upstream is
	// Anthropic's API, whose headers are the client's. Otherwise only
	// Retry-After, the upstream's request id and (where configured) its
	// rate limits pass.
	UpstreamHeader bool
}

// StreamTranslator translates one streamed upstream body into the emitter
// it was made for. It is the part of a provider's translator that reads
// the upstream's stream format. The gateway flushes the emitter after every
// Write and Close, and ends the stream with Emitter.Abort when one fails.
type StreamTranslator interface {
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
	Form emit.BlockForm
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
	Signer *emit.Signer
	// MaxEventSize bounds one upstream event-stream event (its data lines
	// joined); 0 means DefaultMaxEvent.
	MaxEventSize int
}

// defaultThinkingHint is the hint of docs/thinking.md; {budget} becomes the budget.
const defaultThinkingHint = "<thinking_mode>interleaved</thinking_mode><max_thinking_length>{budget}</max_thinking_length>"

// DefaultHintBudget is the hint's length when the request sets no budget.
const DefaultHintBudget = 16000

// Hint returns the thinking hint for a request.
func (s *Settings) Hint(t wire.ThinkingParam) string {
	h := s.ThinkingHint
	if h == "" {
		h = defaultThinkingHint
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

// ModelRule renames models matching From (a model-name glob, see
// MatchModel) to To. Each '*' in To stands for what the '*' of the same
// rank in From matched, so a rule can keep part of the client's name:
// From "openrouter,*" To "*" sends "openrouter,x/y" upstream as "x/y".
type ModelRule struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// mapModel returns the upstream model name for a client model name.
func (s *Settings) mapModel(name string) string {
	for _, r := range s.Models {
		if stars, ok := MatchModel(r.From, name); ok {
			return r.Expand(stars)
		}
	}
	return name
}

// Exchange is one client request as it crosses the gateway. NewExchange
// fills it; nothing changes it afterwards but Usage.
type Exchange struct {
	Settings *Settings
	Request  *wire.Request
	// Body is the client's body exactly as received. Like the buffers of
	// NewBody, it may be the gateway's to reuse once the request is done.
	Body []byte
	// Path and RawQuery are the client's.
	Path, RawQuery string
	// CountTokens is set for /v1/messages/count_tokens.
	CountTokens bool
	// ClientModel is the name the client asked for and sees in responses;
	// UpstreamModel is the name sent upstream.
	ClientModel, UpstreamModel string
	// Streaming: the client asked for an event stream (never for count_tokens).
	Streaming bool
	// Thinking is on for this request.
	Thinking bool
	// MessageID is the msg_ id of a message the gateway makes itself.
	MessageID string
	// ClientID identifies the client where the gateway authenticates it
	// (with client_keys, a hash of the key it presented); empty otherwise.
	// State the gateway derives from client input is scoped by it, so one
	// client cannot reach another's (Amazon Q's conversationId).
	ClientID string
	// SessionKey is the client session's keyed id (hex, no session id or
	// key in clear), empty when the gateway knows no session or client.
	// Upstreams with a prompt-cache routing key send it (prompt_cache_key).
	SessionKey string
	// MapErrors: every upstream error is read and mapped, never passed on
	// as it is (the gateway scrubs the upstream's credential from it).
	MapErrors bool
	// Usage is the one field the translator fills, as it learns it, for
	// logs and metrics.
	Usage  emit.Usage
	Logger *zap.Logger

	newBody func(size int) []byte
}

// ExchangeOptions are what an Exchange needs besides the parsed request.
type ExchangeOptions struct {
	// Path and RawQuery are the client's; a path ending in
	// /messages/count_tokens makes a count_tokens exchange.
	Path, RawQuery string
	// ClientID, SessionKey, MapErrors: see Exchange.
	ClientID   string
	SessionKey string
	MapErrors  bool
	// Logger is the exchange's logger; nil logs nothing. NewExchange adds
	// the client's model and the upstream's (model, upstream_model) to it.
	Logger *zap.Logger
	// NewBody, when set, gives the buffers the upstream's body is written
	// into (see Exchange.NewBody).
	NewBody func(size int) []byte
}

// NewExchange prepares an exchange for a parsed request.
func NewExchange(s *Settings, req *wire.Request, body []byte, o ExchangeOptions) *Exchange {
	// The model is mapped here once per request; the caller reads
	// UpstreamModel for its placeholders and logs.
	upstreamModel := s.mapModel(req.Model)
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	} else {
		o.Logger = o.Logger.With(zap.String("model", req.Model), zap.String("upstream_model", upstreamModel))
	}
	countTokens := strings.HasSuffix(o.Path, "/messages/count_tokens")
	return &Exchange{
		Settings:      s,
		Request:       req,
		Body:          body,
		Path:          o.Path,
		RawQuery:      o.RawQuery,
		CountTokens:   countTokens,
		ClientModel:   req.Model,
		UpstreamModel: upstreamModel,
		Streaming:     req.Stream && !countTokens,
		Thinking:      req.Thinking.Enabled(s.DefaultThinking),
		MessageID:     NewID("msg_"),
		ClientID:      o.ClientID,
		SessionKey:    o.SessionKey,
		MapErrors:     o.MapErrors,
		Logger:        o.Logger,
		newBody:       o.NewBody,
	}
}

// NewBody returns an empty buffer with room for size bytes, for the
// upstream's body. The gateway gives it from a pool and takes it back when
// the request is done: its room may hold an earlier request's bytes, so a
// provider sends only what it wrote there, and it keeps no part of it, nor
// of Body, past the request.
func (x *Exchange) NewBody(size int) []byte {
	if x.newBody != nil {
		return x.newBody(size)
	}
	return make([]byte, 0, size)
}

// Outbound is the upstream request being built.
type Outbound struct {
	Body []byte
	Path string
	// RawPath, when set, is Path's escaped form (as url.URL.RawPath), for a
	// path whose segments hold escaped bytes (a Bedrock ARN's '/').
	RawPath  string
	RawQuery string
	Header   http.Header
	// Host, when set, replaces the client's Host on the upstream request:
	// the host a signature covers. reverse_proxy sends it to a plain-HTTP
	// upstream; to an https one it sends the upstream's host:port unless a
	// header_up Host says otherwise.
	Host string
	// ProxyHost, set by the gateway, reports the host:port reverse_proxy
	// dialled, once the upstream has answered; "" when unknown.
	ProxyHost func() string
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

// RequestScanner is a Provider that works from ScanRequest's findings: its
// Rewrite calls Complete before it reads Messages or System.
type RequestScanner interface {
	ScansRequest() bool
}

// ParseRequestFor reads body for p: with ScanRequest when p works from a
// scan, else with ParseRequest. Both return the same errors.
func ParseRequestFor(p any, body []byte) (*wire.Request, error) {
	if s, ok := p.(RequestScanner); ok && s.ScansRequest() {
		return wire.ScanRequest(body)
	}
	return wire.ParseRequest(body)
}

// MarshalRequest is x.Request's MarshalFieldsWith (messages may be nil),
// written into a buffer of x.NewBody's.
func (x *Exchange) MarshalRequest(messages func(dst []byte) ([]byte, error)) (body, encodedMessages []byte, err error) {
	return x.Request.MarshalFieldsInto(messages, x.NewBody)
}

// ThinkingOrigin classifies a history thinking block by its signature:
// ok is false for a block the gateway did not sign (an upstream's own, or
// none); otherwise origin says where the gateway got it and foreign is the
// upstream signature it wrapped.
func (s *Settings) ThinkingOrigin(b wire.Block) (origin emit.Origin, foreign string, ok bool) {
	if b.Type != "thinking" || s.Signer == nil {
		return 0, "", false
	}
	return s.Signer.Open(b.Signature, b.Thinking)
}
