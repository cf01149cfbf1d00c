// Package caddymodule is the Caddy glue of thinkgate: the http.handlers.thinkgate
// middleware, its Caddyfile directive, the provider guest modules and the
// response writer that rewrites upstream responses into Anthropic ones.
package caddymodule

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
	"github.com/thinkgate/thinkgate/thinkparse"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// Handler is the thinkgate middleware. It accepts Anthropic Messages API
// requests, rewrites them for the configured provider's upstream, and
// rewrites the upstream's response — streamed or not — back into a
// spec-exact Anthropic response, splitting inline <thinking> spans into
// thinking blocks. The request itself is sent by the next handler, normally
// reverse_proxy.
type Handler struct {
	// The upstream's format: a module in http.handlers.thinkgate.providers
	// (one per provider, named as the Caddyfile names it) with its own
	// options.
	ProviderRaw json.RawMessage `json:"provider,omitempty" caddy:"namespace=http.handlers.thinkgate.providers inline_key=name"`

	// SplitTags splits inline thinking tags out of the model's text. The
	// default depends on the provider: on for tag-based upstreams.
	SplitTags *bool `json:"split_tags,omitempty"`

	// ThinkingBlock is "thinking" (Anthropic thinking blocks, the default) or
	// "text" (every span its own text block; see docs/thinking.md).
	ThinkingBlock string `json:"thinking_block,omitempty"`

	// Tags are the tag names recognised, default ["thinking"].
	Tags []string `json:"tags,omitempty"`

	// StartInThinking: the model's output starts inside a thinking span
	// whose opening tag the prompt template already wrote.
	StartInThinking bool `json:"start_in_thinking,omitempty"`

	// ParseInCodeFences also splits tags found inside fenced code blocks of
	// the answer (by default those are left as text).
	ParseInCodeFences bool `json:"parse_in_code_fences,omitempty"`

	// MaxTagLength bounds an opening tag with attributes; longer would-be
	// tags are released as text. Default 64 KiB.
	MaxTagLength int `json:"max_tag_length,omitempty"`

	// DefaultThinking decides requests without a thinking field: on unless
	// set to false.
	DefaultThinking *bool `json:"default_thinking,omitempty"`

	// ThinkingHint is appended to the prompt for tag-based upstreams;
	// "{budget}" becomes the request's budget_tokens (or 16000).
	ThinkingHint string `json:"thinking_hint,omitempty"`

	// Models renames client model names for the upstream; the client keeps
	// seeing the name it asked for.
	Models []providers.ModelRule `json:"models,omitempty"`

	// Keepalive sends a ping event when the upstream has been silent this
	// long. Default 10s; a negative value disables it.
	Keepalive caddy.Duration `json:"keepalive,omitempty"`

	// MaxRequestBody caps the client's request body in bytes. Default 32 MiB.
	MaxRequestBody int64 `json:"max_request_body,omitempty"`

	// RequestBodyTimeout bounds the time to read the client's request body,
	// so that a client trickling its upload cannot hold a request open.
	// Default 30s.
	RequestBodyTimeout caddy.Duration `json:"request_body_timeout,omitempty"`

	// MaxEventSize caps one event of an upstream's event stream, all its
	// data lines joined, in bytes; a larger event ends the stream with an
	// error event. Default 16 MiB.
	MaxEventSize int64 `json:"max_event_size,omitempty"`

	// SigningKey keys the HMAC signatures of the thinking blocks the gateway
	// creates. Use {env.NAME}. Without it the gateway generates a key once
	// and keeps it in Caddy's storage (thinkgate/signing_key), so that it
	// survives reloads and restarts and is shared by every instance on the
	// same storage.
	SigningKey string `json:"signing_key,omitempty"`

	// PreviousSigningKeys still verify signatures but sign nothing: after a
	// rotation, list the old key here so that running conversations keep
	// their thinking blocks. Use {env.NAME}.
	PreviousSigningKeys []string `json:"previous_signing_keys,omitempty"`

	// ClientKeys, when set, are the only keys clients may present (as
	// x-api-key or Authorization: Bearer). Use {env.NAME}. A client's key is
	// then the gateway's, and is never forwarded upstream.
	ClientKeys []string `json:"client_keys,omitempty"`

	// ClientKeysFile names a file of client keys, one per line ('#' starts a
	// comment), read at config load.
	ClientKeysFile string `json:"client_keys_file,omitempty"`

	// UpstreamIdleTimeout ends a stream with an error event, and cancels
	// the upstream request, when the upstream has sent nothing for this
	// long (keepalive pings do not count). Default 5m; negative disables.
	UpstreamIdleTimeout caddy.Duration `json:"upstream_idle_timeout,omitempty"`

	// UpstreamBodyTimeout bounds the time to read an upstream body the
	// gateway reads whole or the client did not ask to stream: an error
	// body, a non-streaming Message, a count_tokens answer. It runs from
	// the upstream's status line; an upstream that trickles such a body
	// past it is cut off, and the request fails over (thinkgate_fallback)
	// or gets a 502. Default 30s.
	UpstreamBodyTimeout caddy.Duration `json:"upstream_body_timeout,omitempty"`

	// AdvertiseModels are the model names GET /v1/models lists and
	// GET /v1/models/{id} knows, in this order. Unset, they are the names
	// the model rules spell out (patterns without wildcards); an empty list
	// leaves both to the upstream.
	AdvertiseModels *[]string `json:"advertise_models,omitempty"`

	// ModelInfo are the model cards (cards.go): what each model the site
	// serves can do, listed by GET /v1/models and held to per request. The
	// first card whose model pattern matches a client-side name is its card.
	ModelInfo []ModelCard `json:"model_info,omitempty"`

	// ForwardRateLimitHeaders passes the upstream's rate-limit headers
	// (X-Ratelimit-*, Anthropic-Ratelimit-*, Ratelimit*) to clients of
	// translating providers. Off by default: they describe the operator's
	// upstream account.
	ForwardRateLimitHeaders bool `json:"forward_rate_limit_headers,omitempty"`

	// TraceContent records the request's messages and the response's text
	// on the request's trace span (Caddy's tracing directive), as the
	// OpenTelemetry GenAI conventions' opt-in
	// gen_ai.client.inference.operation.details event: at most this many
	// bytes of text each way. 0, the default, records no content.
	TraceContent int64 `json:"trace_content,omitempty"`

	secrets [][]byte         // scrubbed from relayed upstream text
	active  *activeExchanges // for shutdown

	provider     providers.Provider
	providerName string
	scansRequest bool // the provider works from a scan (ProviderInfo.ScansRequest)
	// counter counts count_tokens requests in the gateway, for a provider
	// without an upstream counting endpoint; nil otherwise.
	counter    providers.TokenCounter
	genAIName  string // gen_ai.provider.name on trace spans
	settings   providers.Settings
	clientKeys [][]byte
	keys       *keyPool // the provider's api_key pool, nil without one
	logger     *zap.Logger
	server     *caddyhttp.Server // the server the handler runs in (keyring.go)
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.thinkgate",
		New: func() caddy.Module { return new(Handler) },
	}
}

const (
	defaultMaxRequestBody     = 32 << 20
	defaultKeepalive          = 10 * time.Second
	defaultRequestBodyTimeout = 30 * time.Second
)

// Provision loads the provider and prepares the shared settings.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	if h.ProviderRaw == nil {
		return errors.New("a provider is required")
	}
	raw := h.ProviderRaw // LoadModule clears ProviderRaw
	mod, err := ctx.LoadModule(h, "ProviderRaw")
	if err != nil {
		// Caddy's error names only the missing module; list the providers.
		if err := checkProviderName(inlineName(raw)); err != nil {
			return err
		}
		return fmt.Errorf("loading provider: %v", err)
	}
	pm, ok := mod.(ProviderModule)
	if !ok {
		return fmt.Errorf("module %T is not a thinkgate provider", mod)
	}
	info := pm.ProviderInfo()
	h.provider = info.Provider
	h.providerName = caddy.GetModuleName(mod)
	h.scansRequest = info.ScansRequest
	h.counter, _ = info.Provider.(providers.TokenCounter)
	h.genAIName = info.GenAIName
	if h.genAIName == "" {
		h.genAIName = h.providerName
	}
	if info.KeyPool != nil {
		h.keys = info.KeyPool
		h.keys.provider, h.keys.logger = h.providerName, h.logger
	}
	h.provisionResponse(ctx, info.Secrets)
	if err := initMetrics(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("registering metrics: %v", err)
	}
	keys, err := loadClientKeys(h.ClientKeys, h.ClientKeysFile)
	if err != nil {
		return err
	}
	h.clientKeys = keys
	h.joinServer(ctx)

	if h.MaxRequestBody == 0 {
		h.MaxRequestBody = defaultMaxRequestBody
	}
	if h.Keepalive == 0 {
		h.Keepalive = caddy.Duration(defaultKeepalive)
	}
	if h.RequestBodyTimeout == 0 {
		h.RequestBodyTimeout = caddy.Duration(defaultRequestBodyTimeout)
	}
	signer, err := h.signer(ctx)
	if err != nil {
		return err
	}
	for _, w := range modelRuleWarnings(h.Models) {
		h.logger.Warn(w)
	}
	if err := checkOneHandler(ctx); err != nil {
		return err
	}
	if w := orderWarning(ctx, h); w != "" {
		h.logger.Warn(w)
	} else if w := proxyWarning(ctx); w != "" {
		h.logger.Warn(w)
	}
	split := info.SplitTags
	if h.SplitTags != nil {
		split = *h.SplitTags
	}
	h.settings = providers.Settings{
		SplitTags:       split,
		Form:            emit.FormThinking,
		DefaultThinking: h.DefaultThinking == nil || *h.DefaultThinking,
		ThinkingHint:    h.ThinkingHint,
		Models:          h.Models,
		Signer:          signer,
		MaxEventSize:    int(h.MaxEventSize), // 0: the providers' default
		Parse: thinkparse.Options{
			Tags:              h.Tags,
			MaxTagLen:         h.MaxTagLength,
			StartInThinking:   h.StartInThinking,
			ParseInCodeFences: h.ParseInCodeFences,
		},
	}
	if h.ThinkingBlock == "text" {
		h.settings.Form = emit.FormText
	}
	return nil
}

// Validate checks the configuration.
func (h *Handler) Validate() error {
	switch h.ThinkingBlock {
	case "", "thinking", "text":
	default:
		return fmt.Errorf("thinking_block: must be thinking or text, got %q", h.ThinkingBlock)
	}
	if h.MaxRequestBody < 0 {
		return fmt.Errorf("max_request_body: must not be negative")
	}
	if h.RequestBodyTimeout < 0 {
		return fmt.Errorf("request_body_timeout: must not be negative")
	}
	if h.UpstreamBodyTimeout < 0 {
		return fmt.Errorf("upstream_body_timeout: must not be negative")
	}
	if h.MaxEventSize < 0 {
		return fmt.Errorf("max_event_size: must not be negative")
	}
	if h.TraceContent < 0 || h.TraceContent > maxTraceContent {
		return fmt.Errorf("trace_content: must be between 0 and %d bytes", maxTraceContent)
	}
	if h.MaxTagLength < 0 {
		return fmt.Errorf("max_tag_length: must not be negative")
	}
	for _, m := range h.Models {
		if err := checkModelRule(m); err != nil {
			return err
		}
	}
	for i := range h.ModelInfo {
		if err := h.ModelInfo[i].check(); err != nil {
			return err
		}
	}
	if err := h.settings.Parse.Validate(); err != nil {
		return fmt.Errorf("tags: %v", err)
	}
	return nil
}

// ServeHTTP converts the request, hands it to next, and converts the
// response. A request whose trace span records (Caddy's tracing directive)
// gets the exchange's attributes on it.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	tc := newExchangeTrace(r, h.TraceContent)
	if tc == nil {
		return h.serve(w, r, next, nil)
	}
	err := h.serve(w, r, next, tc)
	tc.finish(h, r)
	return err
}

// serve is ServeHTTP; tc, when not nil, is told what the span needs.
func (h *Handler) serve(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, tc *exchangeTrace) error {
	h.setPlaceholders(r, "", "")
	// Client keys guard every request the handler sees, Messages API or not.
	var client string
	named := clientOf(r) // thinkgate_clients has checked and removed the key
	if named != nil {
		client = "client:" + named.name
	} else if len(h.clientKeys) > 0 {
		if !h.clientKeyOK(r.Header) {
			return writeError(w, errInvalidClientKey)
		}
		client = clientID(r.Header)
		// The client's key is the gateway's own: it never goes upstream.
		r.Header.Del("X-Api-Key")
		r.Header.Del("Authorization")
	}
	countTokens := strings.HasSuffix(r.URL.Path, "/messages/count_tokens")
	if !countTokens && !strings.HasSuffix(r.URL.Path, "/messages") {
		if ok, err := h.serveModels(w, r, named); ok {
			return err
		}
		// Not a Messages API call: not ours to translate, but held to the
		// same edge rules (no redirect, no upstream cookie).
		return next.ServeHTTP(newPassthroughWriter(w, h, r), r)
	}
	m := &exchangeMetrics{provider: h.providerName, start: time.Now()}
	if named != nil {
		m.client = named.name
	}
	defer m.record()
	if tc != nil {
		tc.m, tc.client = m, client
	}
	fail := func(e *wire.Error) error {
		if tc != nil {
			tc.errType = e.Type
		}
		m.status = e.Status
		m.firstByte = time.Now()
		return writeError(w, e)
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return fail(&wire.Error{Status: http.StatusMethodNotAllowed, Type: "invalid_request_error",
			Message: "method " + r.Method + " not allowed; use POST"})
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return fail(&wire.Error{Status: http.StatusUnsupportedMediaType, Type: "invalid_request_error",
				Message: "content-type must be application/json, got " + ct})
		}
	}

	// The pooled buffers of the client's body and the upstream's go back
	// when this handler has returned and the transport has closed every
	// reader of them.
	lease := newBodyLease()
	defer lease.done()
	body, parsed, err := h.readBodyOnce(w, r, lease) // a thinkgate matcher's read and parse, if one ran
	if err != nil {
		return fail(bodyReadError(err, time.Duration(h.RequestBodyTimeout)))
	}
	req, err := parsed.parseFor(h.scansRequest)
	if err != nil {
		return fail(wire.AsError(err))
	}
	cardBody := lease.alloc
	if ParsedRequestOf(r) != nil {
		// A matcher's parse outlives this handler (a fallback's next
		// attempt reads it): what the card changes must not be in a
		// buffer that goes back to the pool when this handler returns.
		cardBody = func(n int) []byte { return make([]byte, 0, n) }
	}
	body, e := h.applyCard(req, body, cardBody)
	if e != nil {
		return fail(e)
	}
	x := providers.NewExchange(&h.settings, req, body, providers.ExchangeOptions{
		Path:       r.URL.Path,
		RawQuery:   r.URL.RawQuery,
		ClientID:   client,
		SessionKey: sessionKeyOf(h.settings.Signer, req, r.Header, client),
		MapErrors:  len(h.secrets) > 0, // to scrub the upstream's credential from them
		Logger:     h.requestLogger(r),
		NewBody:    lease.alloc,
	})
	h.setPlaceholders(r, x.ClientModel, x.UpstreamModel)
	m.model = x.ClientModel
	if tc != nil {
		tc.x = x
	}
	if e := h.checkAnthropicRules(x); e != nil {
		return fail(e)
	}

	if h.counter != nil && x.CountTokens {
		return answerCountTokens(w, h.counter, x, m, fail)
	}

	out := &providers.Outbound{Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header, ProxyHost: proxyHost(r)}
	// The gateway must read the upstream's bytes, not a compressed form of
	// them: the client's Accept-Encoding is dropped here, for every
	// provider (the transport asks for gzip itself and decompresses).
	r.Header.Del("Accept-Encoding")
	// Upstreams take JSON unless the provider says otherwise.
	r.Header.Set("Content-Type", "application/json")
	tr, err := h.provider.Rewrite(x, out)
	if err != nil {
		return fail(wire.AsError(err))
	}
	setBody(r, out, lease)

	if c := x.Logger.Check(zap.DebugLevel, "converted request"); c != nil {
		c.Write(zap.String("path", out.Path),
			zap.String("query", out.RawQuery),
			zap.Bool("stream", x.Streaming),
			zap.Bool("thinking", x.Thinking),
			zap.Object("headers", redactedHeader(r.Header)),
			zap.Int("body_size", len(out.Body)),
			zap.ByteString("body", out.Body[:min(len(out.Body), maxLoggedBody)]))
	}

	newRW := func(w http.ResponseWriter) *responseWriter {
		rw := newResponseWriter(w, h, x, tr, m)
		rw.trace = tc
		if named != nil {
			rw.cut = &cutUsage{x: x}
		}
		return rw
	}
	if named != nil {
		// What the client's token limits count: the final usage, or what a
		// cut stream had reported (serve then panics with
		// http.ErrAbortHandler, hence the defer).
		defer func() { named.addUsage(x.Usage) }()
	}
	if h.keys != nil {
		rw, err := h.keys.serveKeys(w, r, next, x, newRW, out.Body, lease)
		if rw != nil {
			h.logExchange(r, x, rw)
		}
		return err
	}
	rw := newRW(w)
	err = rw.serve(r, next)
	h.logExchange(r, x, rw)
	return err
}

// maxLoggedBody caps the converted body in the debug log: its start tells
// what was sent, and a large request's whole body would be megabytes per line.
const maxLoggedBody = 4 << 10

// readBody reads the client's body within max_request_body and
// request_body_timeout (readClientBody), into a buffer of lease's.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request, lease *bodyLease) ([]byte, error) {
	return readClientBody(w, r, h.MaxRequestBody, time.Duration(h.RequestBodyTimeout), lease)
}

// requestLogger is the logger of one exchange: every line thinkgate writes
// about it carries the request's id (the access log's uuid field; the
// placeholder {http.request.uuid} adds it there), the client's address, and
// the provider; NewExchange adds the models.
func (h *Handler) requestLogger(r *http.Request) *zap.Logger {
	id := ""
	if repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer); ok {
		id, _ = repl.GetString("http.request.uuid")
	}
	return h.logger.With(
		zap.String("request_id", id),
		zap.String("remote_addr", r.RemoteAddr),
		zap.String("provider", h.providerName))
}

func (h *Handler) logExchange(r *http.Request, x *providers.Exchange, rw *responseWriter) {
	extra, ok := r.Context().Value(caddyhttp.ExtraLogFieldsCtxKey).(*caddyhttp.ExtraLogFields)
	if !ok {
		return
	}
	extra.Set(zap.String("thinkgate_provider", h.providerName))
	extra.Set(zap.String("thinkgate_upstream_model", x.UpstreamModel))
	extra.Set(zap.Int64("thinkgate_input_tokens", x.Usage.InputTokens))
	extra.Set(zap.Int64("thinkgate_output_tokens", x.Usage.OutputTokens))
	if rw.madeMessage() {
		extra.Set(zap.Int("thinkgate_thinking_blocks", rw.m.thinkingBlocks))
	}
}

// inlineName is the provider's name as the JSON config writes it.
func inlineName(raw json.RawMessage) string {
	var v struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(raw, &v)
	return v.Name
}

// setBody replaces the request body and target with the converted ones.
// The body's readers hold lease, whose buffers it may be in.
func setBody(r *http.Request, out *providers.Outbound, lease *bodyLease) {
	body := out.Body
	r.Body = lease.reader(body)
	r.GetBody = lease.getBody(body)
	r.ContentLength = int64(len(body))
	r.Header.Set("Content-Length", fmt.Sprint(len(body)))
	r.TransferEncoding = nil
	if out.Path != r.URL.Path || out.RawPath != "" {
		r.URL.Path, r.URL.RawPath = out.Path, out.RawPath
	}
	r.URL.RawQuery = out.RawQuery
	if out.Host != "" {
		r.Host = out.Host
	}
}

// proxyHost reports the upstream reverse_proxy dialled for r, once it has.
func proxyHost(r *http.Request) func() string {
	return func() string {
		repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
		if !ok {
			return ""
		}
		s, _ := repl.GetString("http.reverse_proxy.upstream.hostport")
		return s
	}
}

// writeError writes an Anthropic error body with its status.
func writeError(w http.ResponseWriter, e *wire.Error) error {
	body := e.Body()
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", fmt.Sprint(len(body)))
	if e.RetryAfter != "" {
		h.Set("Retry-After", e.RetryAfter)
	}
	if e.Status >= 500 || e.Status == 429 || e.Status == 408 {
		h.Set("X-Should-Retry", "true")
	}
	w.WriteHeader(e.Status)
	_, err := w.Write(body)
	return err
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
