package caddymodule

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	caddy.RegisterModule(Fallback{})
}

// Fallback tries a request on an ordered list of steps, each a route (a
// thinkgate handler and the reverse_proxy that sends its request), until
// one answers with something other than a failure in its list. A step
// fails only before anything has gone to the client: its upstream could not
// be reached, timed out before its headers, or answered a listed status.
// The client then sees one response, from the step that answered, or the
// last step's error when every step failed.
//
// The client's body is read once, within max_request_body, and each step
// gets its own copy of the request, so each step's thinkgate converts the
// client's request afresh for its provider.
type Fallback struct {
	// On lists what makes a step fail over to the next: a status (429), a
	// class of statuses (5xx), connection_error (the upstream could not be
	// reached, or broke off a non-streaming answer) and timeout (no
	// headers in time). The statuses are the upstream's, before thinkgate
	// maps them. Default: 429 500 502 503 504 529 connection_error timeout.
	On []string `json:"on,omitempty"`

	// RetryAfterMax: a failure whose Retry-After is at most this long is
	// retried once on the same step after waiting it out; a longer or
	// absent Retry-After, or a second failure, moves to the next step at
	// once. Default 0: never wait.
	RetryAfterMax caddy.Duration `json:"retry_after_max,omitempty"`

	// MaxRequestBody caps the client's body, kept for every step. Default
	// 32 MiB.
	MaxRequestBody int64 `json:"max_request_body,omitempty"`

	// RequestBodyTimeout bounds the time to read the client's body.
	// Default 30s.
	RequestBodyTimeout caddy.Duration `json:"request_body_timeout,omitempty"`

	// Try holds the steps in order, each a list of routes like the route
	// directive's.
	Try []FallbackStep `json:"try,omitempty"`

	on     failureSet
	logger *zap.Logger
	server *caddyhttp.Server // the server the fallback runs in (keyring.go)
}

// FallbackStep is one step of a fallback: routes run as a route block.
type FallbackStep struct {
	Routes caddyhttp.RouteList `json:"routes,omitempty"`
}

// CaddyModule returns the Caddy module information.
func (Fallback) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.thinkgate_fallback",
		New: func() caddy.Module { return new(Fallback) },
	}
}

// defaultFallbackOn is what fails a step over when on is not set.
var defaultFallbackOn = []string{"429", "500", "502", "503", "504", "529", failureConnection, failureTimeout}

// Provision sets up the steps.
func (f *Fallback) Provision(ctx caddy.Context) error {
	f.logger = ctx.Logger()
	f.server = serverOf(ctx)
	on := f.On
	if len(on) == 0 {
		on = defaultFallbackOn
	}
	set, err := parseFailureSet(on)
	if err != nil {
		return err
	}
	f.on = set
	if f.MaxRequestBody == 0 {
		f.MaxRequestBody = defaultMaxRequestBody
	}
	if f.RequestBodyTimeout == 0 {
		f.RequestBodyTimeout = caddy.Duration(defaultRequestBodyTimeout)
	}
	for i := range f.Try {
		if err := f.Try[i].Routes.Provision(ctx); err != nil {
			return fmt.Errorf("try %d: %v", i+1, err)
		}
	}
	if err := initFallbackMetrics(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("registering metrics: %v", err)
	}
	return nil
}

// Validate checks the configuration.
func (f *Fallback) Validate() error {
	if len(f.Try) == 0 {
		return errors.New("try: at least one step is required")
	}
	if f.RetryAfterMax < 0 {
		return errors.New("retry_after_max: must not be negative")
	}
	if f.MaxRequestBody < 0 {
		return errors.New("max_request_body: must not be negative")
	}
	if f.RequestBodyTimeout < 0 {
		return errors.New("request_body_timeout: must not be negative")
	}
	return nil
}

// ServeHTTP runs the steps in order until one answers.
func (f *Fallback) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if unauthenticated(f.server, r) {
		// No step's thinkgate would serve this client: answer as they
		// would, before reading the body.
		return writeError(w, errInvalidClientKey)
	}
	lease := newBodyLease() // the body's pooled buffer, given back once the steps are done with it
	defer lease.done()
	body, err := f.readBody(w, r, lease)
	if err != nil {
		return writeError(w, bodyReadError(err, time.Duration(f.RequestBodyTimeout)))
	}
	repl, _ := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	tried, step := 0, 0
	defer func() { f.record(r, repl, step, tried) }()
	for i := range f.Try {
		step = i + 1
		last := i == len(f.Try)-1
		for retried := false; ; retried = true {
			tried++
			if repl != nil {
				repl.Delete("http.thinkgate.provider") // a step's thinkgate names its own
				// Set now for the response's header ops, which run when
				// the answering step writes its status.
				repl.Set("http.thinkgate.fallback.step", step)
				repl.Set("http.thinkgate.fallback.tried", tried)
			}
			a := new(upstreamAttempt)
			sr := r.Clone(withUpstreamAttempt(r.Context(), a))
			sr.Body = lease.reader(body)
			sr.GetBody = lease.getBody(body)
			sr.ContentLength = int64(len(body))
			sw := &fallbackWriter{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w},
				f: f, attempt: a, header: w.Header().Clone(), last: last, retried: retried}
			err := serveStep(f.Try[i].Routes.Compile(next), sw, sr)
			provider := ""
			if repl != nil {
				provider, _ = repl.GetString("http.thinkgate.provider")
			}
			if r.Context().Err() != nil {
				// The client left: nobody is waiting for another step.
				return err
			}
			fail, moveOn, wait, again := sw.fail, sw.capture, sw.wait, sw.again
			if !sw.decided && isProxyError(err) {
				// The step returned reverse_proxy's error without writing
				// (no thinkgate in it): that is an upstream that gave no
				// answer.
				fail = failure{kind: failureKind(err)}
				moveOn = f.on.has(fail, 0) && !last
			}
			if !moveOn {
				f.count(step, provider, "answered")
				traceFallbackAnswered(r, step, a)
				return err
			}
			f.count(step, provider, fail.String())
			traceFallbackStepFailed(r, step, provider, fail.String())
			f.logger.Warn("fallback step failed; trying the next",
				zap.Int("step", step), zap.String("provider", provider), zap.String("failure", fail.String()),
				zap.Bool("same_step_again", again))
			if !again {
				break
			}
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return nil
			}
		}
	}
	return nil // the last step always answers
}

// serveStep runs a step. A step whose failure was kept from the client
// and whose upstream body was then cut (it broke off, or
// upstream_body_timeout ended it) makes reverse_proxy abort the handler;
// nothing of it reached the client, so the next step still may answer.
func serveStep(h caddyhttp.Handler, sw *fallbackWriter, r *http.Request) (err error) {
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler || !sw.capture {
				panic(v)
			}
			err = nil
		}
	}()
	return h.ServeHTTP(sw, r)
}

// isProxyError reports whether a step's error is one reverse_proxy returns
// for an upstream that gave no answer (502, 503 when no upstream is
// available, 504), rather than another handler's error status.
func isProxyError(err error) bool {
	if err == nil {
		return false
	}
	var he caddyhttp.HandlerError
	if !errors.As(err, &he) {
		return true
	}
	switch he.StatusCode {
	case 0, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// readBody reads the client's body within max_request_body and
// request_body_timeout, like the thinkgate handler does.
func (f *Fallback) readBody(w http.ResponseWriter, r *http.Request, lease *bodyLease) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	return readClientBody(w, r, f.MaxRequestBody, time.Duration(f.RequestBodyTimeout), lease)
}

// retryWait says whether a failure is tried once more on the same step, and
// after how long: when its Retry-After is within retry_after_max.
func (f *Fallback) retryWait(fail failure, retried bool) (time.Duration, bool) {
	if retried || f.RetryAfterMax <= 0 || fail.retryAfter == "" {
		return 0, false
	}
	d, ok := parseRetryAfter(fail.retryAfter, time.Now())
	if !ok || d > time.Duration(f.RetryAfterMax) {
		return 0, false
	}
	return d, true
}

// parseRetryAfter reads a Retry-After in seconds or as an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
		switch {
		case n < 0:
			return 0, false
		case n > int64(math.MaxInt64/time.Second):
			return math.MaxInt64, true // longer than any bound
		}
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(0, t.Sub(now)), true
}

// record tells the access log, and the placeholders, which step answered
// and how many attempts were made.
func (f *Fallback) record(r *http.Request, repl *caddy.Replacer, step, tried int) {
	if repl != nil {
		repl.Set("http.thinkgate.fallback.step", step)
		repl.Set("http.thinkgate.fallback.tried", tried)
	}
	if extra, ok := r.Context().Value(caddyhttp.ExtraLogFieldsCtxKey).(*caddyhttp.ExtraLogFields); ok {
		extra.Set(zap.Int("thinkgate_fallback_step", step))
		extra.Set(zap.Int("thinkgate_fallback_tried", tried))
	}
}

func (f *Fallback) count(step int, provider, outcome string) {
	if fallbackMetrics.attempts != nil {
		fallbackMetrics.attempts.WithLabelValues(strconv.Itoa(step), provider, outcome).Inc()
	}
}

// failure is how one step failed: kind for an upstream that gave no
// answer, else the upstream's status.
type failure struct {
	kind       string
	status     int
	retryAfter string
}

func (f failure) String() string {
	if f.kind != "" {
		return f.kind
	}
	return strconv.Itoa(f.status)
}

// failureSet is the compiled on list.
type failureSet struct {
	status  map[int]bool
	classes [6]bool // 1xx … 5xx
	kinds   map[string]bool
}

func parseFailureSet(on []string) (failureSet, error) {
	s := failureSet{status: map[int]bool{}, kinds: map[string]bool{}}
	for _, v := range on {
		switch {
		case v == failureConnection || v == failureTimeout:
			s.kinds[v] = true
		case len(v) == 3 && v[1:] == "xx" && v[0] >= '4' && v[0] <= '5':
			s.classes[v[0]-'0'] = true
		default:
			n, err := strconv.Atoi(v)
			if err != nil || n < 400 || n > 599 {
				return s, fmt.Errorf("on: %q is not a status from 400 to 599, 4xx, 5xx, connection_error or timeout", v)
			}
			s.status[n] = true
		}
	}
	return s, nil
}

// has reports whether a failure is in the set; status is the client-facing
// status, used when the step has no thinkgate to tell the upstream's.
func (s failureSet) has(f failure, status int) bool {
	if f.kind != "" {
		return s.kinds[f.kind]
	}
	if f.status != 0 {
		status = f.status
	}
	return s.status[status] || status >= 100 && status < 600 && s.classes[status/100]
}

// fallbackWriter is one step's response writer. The step's status decides
// it: a failure another attempt will replace is kept from the client (and
// dropped), anything else goes to the client as it comes.
type fallbackWriter struct {
	*caddyhttp.ResponseWriterWrapper
	f       *Fallback
	attempt *upstreamAttempt
	header  http.Header // the step's own, copied to the client's when it answers
	last    bool        // the last step: nothing comes after it
	retried bool        // the step's second attempt

	decided bool // the step's status has been written
	capture bool // the step failed and another attempt follows
	fail    failure
	// again: the failure is retried on the same step after wait.
	again bool
	wait  time.Duration
}

// Header returns the step's header.
func (sw *fallbackWriter) Header() http.Header { return sw.header }

// WriteHeader decides whether the step answered or failed.
func (sw *fallbackWriter) WriteHeader(status int) {
	if sw.decided || status < 200 {
		return // informational statuses are not passed: another step may answer
	}
	sw.decided = true
	a := sw.attempt
	sw.fail = failure{kind: a.failure, status: a.status, retryAfter: a.retryAfter}
	if sw.fail.kind == "" && a.status == 0 {
		// No thinkgate in the step: what it wrote is the upstream's.
		sw.fail.status, sw.fail.retryAfter = status, sw.header.Get("Retry-After")
	}
	if sw.f.on.has(sw.fail, status) {
		sw.wait, sw.again = sw.f.retryWait(sw.fail, sw.retried)
		if !sw.last || sw.again {
			sw.capture = true
			return
		}
	}
	dst := sw.ResponseWriterWrapper.Header()
	for k := range dst {
		delete(dst, k)
	}
	for k, v := range sw.header {
		dst[k] = v
	}
	sw.ResponseWriterWrapper.WriteHeader(status)
}

// Write passes the body of a step that answered and drops a failed one's.
func (sw *fallbackWriter) Write(p []byte) (int, error) {
	if !sw.decided {
		sw.WriteHeader(http.StatusOK)
	}
	if sw.capture {
		return len(p), nil
	}
	return sw.ResponseWriterWrapper.Write(p)
}

// ReadFrom hides the wrapped writer's io.ReaderFrom, so that a failed
// step's body goes through Write.
func (sw *fallbackWriter) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(writerOnly{sw}, r)
}

// FlushError flushes an answering step's response; a failed one has
// nothing for the client.
func (sw *fallbackWriter) FlushError() error {
	if !sw.decided || sw.capture {
		return nil
	}
	return http.NewResponseController(sw.ResponseWriterWrapper).Flush()
}

// Flush is FlushError for callers that use http.Flusher.
func (sw *fallbackWriter) Flush() { _ = sw.FlushError() }

// The attempts counter is made once per process, like the handler's.
var fallbackMetrics struct {
	once     sync.Once
	attempts *prometheus.CounterVec
}

func initFallbackMetrics(registry *prometheus.Registry) error {
	fallbackMetrics.once.Do(func() {
		fallbackMetrics.attempts = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "caddy", Subsystem: "thinkgate", Name: "fallback_attempts_total",
			Help: "Attempts of thinkgate_fallback steps, by step (1-based), provider and outcome: answered, or the failure that moved on (a status, connection_error, timeout).",
		}, []string{"step", "provider", "outcome"})
	})
	if err := registry.Register(fallbackMetrics.attempts); err != nil && !errors.As(err, &prometheus.AlreadyRegisteredError{}) {
		return err
	}
	return nil
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Fallback)(nil)
	_ caddy.Validator             = (*Fallback)(nil)
	_ caddyhttp.MiddlewareHandler = (*Fallback)(nil)
	_ io.ReaderFrom               = (*fallbackWriter)(nil)
)
