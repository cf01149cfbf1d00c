package caddymodule

import (
	"context"
	"crypto/subtle"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/thinkgate/thinkgate/internal/limitstore"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

func init() {
	caddy.RegisterModule(Clients{})
}

// Clients is the thinkgate_clients middleware: it names the client of each
// request by its key, refuses unknown keys and models outside the client's,
// and holds each client to its limits, counted in the process or in a
// store several gateways share. It runs before any matcher or handler reads
// the body, and before thinkgate, which reports each request's token usage
// back to it.
type Clients struct {
	// Clients are the named clients; each has exactly one key.
	Clients []ClientConfig `json:"clients,omitempty"`

	// Store shares the counters between gateways; without it they live in
	// the process.
	Store *StoreConfig `json:"store,omitempty"`

	clients []*client
	store   limitstore.Store
	inUse   *storeUse // closes the store once the config is gone and its last request has released
	timeout time.Duration
	deny    bool // on_store_error deny
	logger  *zap.Logger
	warned  *atomic.Int64 // unix nanos of the last store warning
}

// ClientConfig is one named client.
type ClientConfig struct {
	// Name is the client's name, in {http.thinkgate.client}, logs and
	// metric labels: letters, digits, '.', '_' and '-'.
	Name string `json:"name"`
	// Key is the key the client presents (x-api-key or Authorization:
	// Bearer). Use {env.NAME}.
	Key string `json:"key,omitempty"`
	// KeyFile names a file holding the key (surrounding space trimmed).
	KeyFile string `json:"key_file,omitempty"`
	// Models are globs of the models the client may ask for; none: all.
	Models []string `json:"models,omitempty"`

	RequestsPerMinute int64 `json:"requests_per_minute,omitempty"`
	TokensPerMinute   int64 `json:"tokens_per_minute,omitempty"`
	TokensPerDay      int64 `json:"tokens_per_day,omitempty"`
	MaxStreams        int64 `json:"max_streams,omitempty"`
}

// StoreConfig is the shared store of the counters.
type StoreConfig struct {
	// Type is the store's kind: redis (Redis or Valkey).
	Type string `json:"type"`
	// Address is host:port.
	Address  string `json:"address"`
	Password string `json:"password,omitempty"`
	// Prefix starts every key; default "thinkgate".
	Prefix string `json:"prefix,omitempty"`
	// Timeout bounds each store call on the request path; default 50ms.
	Timeout caddy.Duration `json:"timeout,omitempty"`
	// OnStoreError is allow (default) or deny: what a request gets when
	// the store does not answer in time.
	OnStoreError string `json:"on_store_error,omitempty"`
}

// client is a provisioned ClientConfig.
type client struct {
	name   string
	key    []byte
	models []string
	limits limitstore.Limits
}

const (
	defaultStoreTimeout = 50 * time.Millisecond
	defaultStorePrefix  = "thinkgate"
	// storeWarnEvery spaces the warnings of a failing store.
	storeWarnEvery = 30 * time.Second
)

// clientNamePattern keeps names fit for labels, keys and logs.
var clientNamePattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// processStore holds the counters of every thinkgate_clients without a
// store, by client name: they survive config reloads, as the process does.
var processStore = limitstore.NewMemory()

// CaddyModule returns the Caddy module information.
func (Clients) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.thinkgate_clients",
		New: func() caddy.Module { return new(Clients) },
	}
}

// Provision resolves the keys and connects the store.
func (c *Clients) Provision(ctx caddy.Context) error {
	c.logger = ctx.Logger()
	c.warned = new(atomic.Int64)
	if err := initMetrics(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("registering metrics: %v", err)
	}
	seenKeys := map[string]string{}
	for _, cc := range c.Clients {
		key := resolveSecret(cc.Key)
		if cc.KeyFile != "" {
			b, err := os.ReadFile(resolveSecret(cc.KeyFile))
			if err != nil {
				return fmt.Errorf("client %s: key_file: %v", cc.Name, err)
			}
			key = strings.TrimSpace(string(b))
		}
		if key == "" {
			return fmt.Errorf("client %s: the key is empty (unset environment variable or empty key_file?)", cc.Name)
		}
		if other, ok := seenKeys[key]; ok {
			return fmt.Errorf("client %s: has the same key as client %s; each client needs its own", cc.Name, other)
		}
		seenKeys[key] = cc.Name
		c.clients = append(c.clients, &client{name: cc.Name, key: []byte(key), models: cc.Models, limits: limitstore.Limits{
			RequestsPerMinute: cc.RequestsPerMinute, TokensPerMinute: cc.TokensPerMinute,
			TokensPerDay: cc.TokensPerDay, MaxStreams: cc.MaxStreams,
		}})
		setClientLimitMetrics(cc)
	}
	c.store, c.timeout = processStore, defaultStoreTimeout
	if s := c.Store; s != nil {
		if s.Timeout > 0 {
			c.timeout = time.Duration(s.Timeout)
		}
		prefix := s.Prefix
		if prefix == "" {
			prefix = defaultStorePrefix
		}
		rs := limitstore.NewRedis(resolveSecret(s.Address), resolveSecret(s.Password), prefix, c.timeout)
		c.store, c.inUse = rs, &storeUse{close: rs.Close}
		c.deny = s.OnStoreError == "deny"
	}
	return nil
}

// Validate checks names, limits and globs.
func (c *Clients) Validate() error {
	if len(c.Clients) == 0 {
		return fmt.Errorf("thinkgate_clients: no client")
	}
	names := map[string]bool{}
	for _, cc := range c.Clients {
		if !clientNamePattern.MatchString(cc.Name) {
			return fmt.Errorf("client %q: a name is 1 to 64 letters, digits, '.', '_' or '-'", cc.Name)
		}
		if names[cc.Name] {
			return fmt.Errorf("client %s: defined twice", cc.Name)
		}
		names[cc.Name] = true
		if (cc.Key == "") == (cc.KeyFile == "") {
			return fmt.Errorf("client %s: needs key or key_file (one of them)", cc.Name)
		}
		for _, g := range cc.Models {
			if err := providers.CheckModelGlob(g); err != nil {
				return fmt.Errorf("client %s: models: bad pattern %q: %v", cc.Name, g, err)
			}
		}
		if cc.RequestsPerMinute < 0 || cc.TokensPerMinute < 0 || cc.TokensPerDay < 0 || cc.MaxStreams < 0 {
			return fmt.Errorf("client %s: limits must not be negative", cc.Name)
		}
	}
	if s := c.Store; s != nil {
		if s.Type != "redis" {
			return fmt.Errorf("store: unknown type %q; the store is redis", s.Type)
		}
		if s.Address == "" {
			return fmt.Errorf("store: needs an address (host:port)")
		}
		if s.OnStoreError != "" && s.OnStoreError != "allow" && s.OnStoreError != "deny" {
			return fmt.Errorf("on_store_error: must be allow or deny, got %q", s.OnStoreError)
		}
		if s.Timeout < 0 {
			return fmt.Errorf("timeout: must not be negative")
		}
	}
	return nil
}

// Cleanup closes the store's connections, once the requests still running
// on this config (a reload lets them finish) have released their counts:
// closed under them, a request's open-stream slot would stay taken in the
// shared store until its lease expires.
func (c *Clients) Cleanup() error {
	if c.inUse != nil {
		return c.inUse.shutdown()
	}
	return nil
}

// storeUse counts the requests using a store, so that it is closed after
// the last of them.
type storeUse struct {
	mu      sync.Mutex
	n       int
	closing bool
	close   func() error
}

func (u *storeUse) enter() {
	if u == nil {
		return
	}
	u.mu.Lock()
	u.n++
	u.mu.Unlock()
}

func (u *storeUse) leave() {
	if u == nil {
		return
	}
	u.mu.Lock()
	u.n--
	last := u.n == 0 && u.closing
	u.mu.Unlock()
	if last {
		_ = u.close()
	}
}

// shutdown closes the store now if no request uses it, else when the last
// one leaves.
func (u *storeUse) shutdown() error {
	u.mu.Lock()
	u.closing = true
	idle := u.n == 0
	u.mu.Unlock()
	if idle {
		return u.close()
	}
	return nil
}

// requestClient is the named client of a request, in its context: the
// thinkgate handlers of the request read its models and add the tokens the
// upstream reported.
type requestClient struct {
	*client
	mu    sync.Mutex
	usage emit.Usage
}

type requestClientKey struct{}

// clientOf returns the client thinkgate_clients named for r, or nil.
func clientOf(r *http.Request) *requestClient {
	rc, _ := r.Context().Value(requestClientKey{}).(*requestClient)
	return rc
}

// addUsage adds an exchange's usage; fallback steps add up.
func (rc *requestClient) addUsage(u emit.Usage) {
	rc.mu.Lock()
	rc.usage.InputTokens += u.InputTokens
	rc.usage.OutputTokens += u.OutputTokens
	rc.usage.CacheCreationInputTokens += u.CacheCreationInputTokens
	rc.usage.CacheReadInputTokens += u.CacheReadInputTokens
	rc.mu.Unlock()
}

// countedTokens are the tokens a request counts against token limits:
// input, output and cache creation, as the upstream reported them.
func (rc *requestClient) countedTokens() int64 {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.usage.InputTokens + rc.usage.OutputTokens + rc.usage.CacheCreationInputTokens
}

// allowsModel reports whether the client may use model.
func (cl *client) allowsModel(model string) bool {
	return len(cl.models) == 0 || anyGlob(cl.models, model)
}

// find returns the client whose key was presented. Every key is compared,
// in constant time, so the time taken tells nothing about which matched.
func (c *Clients) find(hdr http.Header) *client {
	presented := []byte(presentedKey(hdr))
	var found *client
	for _, cl := range c.clients {
		if subtle.ConstantTimeCompare(presented, cl.key) == 1 {
			found = cl
		}
	}
	if len(presented) == 0 {
		return nil
	}
	return found
}

// ServeHTTP names the client, checks its model and limits, and counts the
// request's tokens when it ends.
func (c *Clients) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	cl := c.find(r.Header)
	if cl == nil {
		startPlaceholders(r, "")
		return writeError(w, &wire.Error{Status: http.StatusUnauthorized, Type: "authentication_error", Message: "invalid x-api-key"})
	}
	// The key is the gateway's: it never goes upstream.
	r.Header.Del("X-Api-Key")
	r.Header.Del("Authorization")
	startPlaceholders(r, cl.name)
	if extra, ok := r.Context().Value(caddyhttp.ExtraLogFieldsCtxKey).(*caddyhttp.ExtraLogFields); ok {
		extra.Set(zap.String("thinkgate_client", cl.name))
	}
	rc := &requestClient{client: cl}
	r = r.WithContext(context.WithValue(r.Context(), requestClientKey{}, rc))

	messages := r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/messages")
	if len(cl.models) > 0 && r.Method == http.MethodPost &&
		(messages || strings.HasSuffix(r.URL.Path, "/messages/count_tokens")) && jsonContent(r.Header) {
		// The one read and parse every thinkgate matcher and handler of the
		// request shares; a body that does not parse is the handler's to
		// refuse.
		req := parseBody(r, defaultMaxRequestBody, defaultRequestBodyTimeout).Request
		if req != nil {
			setPlaceholders(r, "", req.Model, "")
		}
		if req != nil && !cl.allowsModel(req.Model) {
			c.peekRateLimits(w, r, rc)
			return writeError(w, &wire.Error{Status: http.StatusForbidden, Type: "permission_error",
				Message: fmt.Sprintf("model %s: not available to client %s", req.Model, cl.name)})
		}
	}
	if !messages {
		// Every answer carries the client's windows (GET /v1/models,
		// count_tokens, errors), counted by Messages calls alone.
		if !c.peekRateLimits(w, r, rc) {
			return next.ServeHTTP(w, r)
		}
		return next.ServeHTTP(&rateLimitHeaderWriter{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w}, own: w.Header().Clone()}, r)
	}
	return c.serveMessages(w, r, next, rc)
}

// serveMessages runs a Messages call within the client's limits, if it has
// any, and counts it among the client's open requests.
func (c *Clients) serveMessages(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, rc *requestClient) error {
	var (
		d     limitstore.Decision
		lease = limitstore.Lease{Client: rc.name}
		err   error
	)
	c.inUse.enter()
	defer c.inUse.leave() // after the release below
	if rc.limits.Any() {
		ctx, cancel := context.WithTimeout(r.Context(), c.timeout)
		d, lease, err = c.store.Acquire(ctx, rc.name, rc.limits, time.Now())
		cancel()
	}
	if err != nil {
		c.storeFailed("acquire", err)
		if c.deny {
			return writeError(w, &wire.Error{Status: http.StatusServiceUnavailable, Type: "api_error",
				Message: "the gateway cannot check the client's limits now; retry shortly", RetryAfter: "1"})
		}
		lease = limitstore.Lease{Client: rc.name}
	} else {
		setRateLimitHeaders(w.Header(), d)
	}
	if d.Refused != "" {
		metrics.clientRefusals.WithLabelValues(rc.name, d.Refused).Inc()
		secs := int64((d.RetryAfter + time.Second - 1) / time.Second)
		return writeError(w, &wire.Error{Status: http.StatusTooManyRequests, Type: "rate_limit_error",
			Message:    fmt.Sprintf("client %s is over its %s limit; retry in %ds", rc.name, refusalLimit(d.Refused, rc.limits), secs),
			RetryAfter: strconv.FormatInt(secs, 10)})
	}
	gauge := metrics.clientStreams.WithLabelValues(rc.name)
	gauge.Inc()
	defer func() {
		// Counted whatever became of the request (a cut stream counts what
		// the upstream had reported), on a context of its own: the
		// client's may be gone.
		if rc.limits.Any() {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), c.timeout)
			if err := c.store.Release(ctx, lease, rc.countedTokens(), time.Now()); err != nil {
				c.storeFailed("release", err)
			}
			cancel()
		}
		gauge.Dec()
	}()
	return next.ServeHTTP(&rateLimitHeaderWriter{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w}, own: w.Header().Clone()}, r)
}

// peekRateLimits sets the client's rate-limit headers on an answer that
// counts nothing, and reports whether it did (the client has limits and
// the store answered in time).
func (c *Clients) peekRateLimits(w http.ResponseWriter, r *http.Request, rc *requestClient) bool {
	if !rc.limits.Any() || rc.limits.RequestsPerMinute == 0 && rc.limits.TokensPerMinute == 0 && rc.limits.TokensPerDay == 0 {
		return false
	}
	c.inUse.enter()
	defer c.inUse.leave()
	ctx, cancel := context.WithTimeout(r.Context(), c.timeout)
	d, err := c.store.Peek(ctx, rc.name, rc.limits, time.Now())
	cancel()
	if err != nil {
		c.storeFailed("peek", err)
		return false
	}
	setRateLimitHeaders(w.Header(), d)
	return true
}

// refusalLimit spells a refused limit with its value.
func refusalLimit(name string, l limitstore.Limits) string {
	v := map[string]int64{
		limitstore.LimitRequestsPerMinute: l.RequestsPerMinute,
		limitstore.LimitTokensPerMinute:   l.TokensPerMinute,
		limitstore.LimitTokensPerDay:      l.TokensPerDay,
		limitstore.LimitMaxStreams:        l.MaxStreams,
	}[name]
	return fmt.Sprintf("%s %d", name, v)
}

// storeFailed counts a store failure and warns, at most every storeWarnEvery.
func (c *Clients) storeFailed(op string, err error) {
	metrics.clientStoreErrors.WithLabelValues(op).Inc()
	now := time.Now().UnixNano()
	last := c.warned.Load()
	if now-last < int64(storeWarnEvery) || !c.warned.CompareAndSwap(last, now) {
		return
	}
	policy := "allowed"
	if c.deny {
		policy = "refused"
	}
	c.logger.Warn("limit store unreachable: requests are "+policy+" (on_store_error)",
		zap.String("op", op), zap.Error(err), zap.Duration("timeout", c.timeout))
}

// setRateLimitHeaders writes the client's windows as Anthropic does.
func setRateLimitHeaders(h http.Header, d limitstore.Decision) {
	set := func(kind string, win limitstore.Window) {
		if win.Limit == 0 {
			return
		}
		h.Set("Anthropic-Ratelimit-"+kind+"-Limit", strconv.FormatInt(win.Limit, 10))
		h.Set("Anthropic-Ratelimit-"+kind+"-Remaining", strconv.FormatInt(win.Remaining, 10))
		h.Set("Anthropic-Ratelimit-"+kind+"-Reset", win.Reset.Format(time.RFC3339))
	}
	set("Requests", d.Requests)
	set("Tokens", d.Tokens)
}

// rateLimitHeaderWriter keeps the client's rate-limit headers over any an
// upstream sends (an Anthropic upstream's describe the operator's account).
type rateLimitHeaderWriter struct {
	*caddyhttp.ResponseWriterWrapper
	own       http.Header
	committed bool
}

// ReadFrom goes through Write, so that the headers are settled first.
func (w *rateLimitHeaderWriter) ReadFrom(r io.Reader) (int64, error) {
	if !w.committed {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriterWrapper.ReadFrom(r)
}

func (w *rateLimitHeaderWriter) WriteHeader(status int) {
	if !w.committed && status >= 200 {
		w.committed = true
		h := w.Header()
		for k := range h {
			if strings.HasPrefix(k, "Anthropic-Ratelimit-") {
				delete(h, k)
			}
		}
		for k, v := range w.own {
			if strings.HasPrefix(k, "Anthropic-Ratelimit-") {
				h[k] = v
			}
		}
	}
	w.ResponseWriterWrapper.WriteHeader(status)
}

func (w *rateLimitHeaderWriter) Write(p []byte) (int, error) {
	if !w.committed {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriterWrapper.Write(p)
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Clients)(nil)
	_ caddy.Validator             = (*Clients)(nil)
	_ caddy.CleanerUpper          = (*Clients)(nil)
	_ caddyhttp.MiddlewareHandler = (*Clients)(nil)
)
