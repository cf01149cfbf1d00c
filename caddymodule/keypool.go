package caddymodule

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// The key_selection values.
const (
	keySelectionSession    = "session"
	keySelectionRoundRobin = "round_robin"
)

const (
	// defaultKeyCooldownMax bounds how long a key that answered 429 rests
	// (key_cooldown_max), whatever its Retry-After asks for.
	defaultKeyCooldownMax = time.Minute
	// keyCooldownWithoutRetryAfter is how long a key rests after a 429
	// that says nothing of when to come back.
	keyCooldownWithoutRetryAfter = 5 * time.Second
)

// keyPool is a provider's upstream keys (api_key with several keys) and
// their state: a key that answered 429 cools down until its Retry-After has
// passed; one that answered 401 or 403 is set aside until the next config
// load, which makes a new pool.
type keyPool struct {
	keys        []string // resolved; the provider was built with keys[0]
	roundRobin  bool
	cooldownMax time.Duration
	provider    string // the metrics' provider label, set by the handler
	logger      *zap.Logger

	next atomic.Uint64 // round_robin's turn

	mu        sync.Mutex
	coolUntil []time.Time
	setAside  []bool
}

func newKeyPool(keys []string, selection string, cooldownMax time.Duration) *keyPool {
	if cooldownMax <= 0 {
		cooldownMax = defaultKeyCooldownMax
	}
	return &keyPool{keys: keys, roundRobin: selection == keySelectionRoundRobin, cooldownMax: cooldownMax,
		logger: zap.NewNop(), coolUntil: make([]time.Time, len(keys)), setAside: make([]bool, len(keys))}
}

// first is the position a request starts at: with key_selection session,
// one the session's keyed id picks, so that one session keeps one key
// (and the upstream's prompt cache keeps hitting) while sessions spread
// over the keys; in turn with round_robin, or for a request the gateway
// knows no session or client of.
func (p *keyPool) first(sessionKey string) int {
	n := uint64(len(p.keys))
	if !p.roundRobin && len(sessionKey) >= 16 {
		if v, err := strconv.ParseUint(sessionKey[:16], 16, 64); err == nil {
			return int(v % n)
		}
	}
	return int((p.next.Add(1) - 1) % n)
}

// pick returns the first key from start on, in ring order, that the
// request has not tried and that is neither cooling down nor set aside;
// -1 when there is none.
func (p *keyPool) pick(start int, tried []bool, now time.Time) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for j := range p.keys {
		i := (start + j) % len(p.keys)
		if !tried[i] && !p.setAside[i] && !now.Before(p.coolUntil[i]) {
			return i
		}
	}
	return -1
}

// shortestWait is how long until the first cooling key is usable again;
// false when every key is set aside.
func (p *keyPool) shortestWait(now time.Time) (time.Duration, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	wait, any := time.Duration(0), false
	for i := range p.keys {
		if p.setAside[i] {
			continue
		}
		d := max(0, p.coolUntil[i].Sub(now))
		if !any || d < wait {
			wait, any = d, true
		}
	}
	return wait, any
}

// observe records how key i's upstream answered and reports whether the
// request should go to the next key: after a 429 the key cools down for
// its Retry-After (at most cooldownMax), after a 401 or 403 it is set
// aside, logged the first time.
func (p *keyPool) observe(i int, a *upstreamAttempt, now time.Time) bool {
	outcome := "answered"
	defer func() {
		if metrics.upstreamKeys != nil {
			metrics.upstreamKeys.WithLabelValues(p.provider, strconv.Itoa(i+1), outcome).Inc()
		}
	}()
	switch a.status {
	case http.StatusTooManyRequests:
		outcome = "rate_limited"
		d, ok := parseRetryAfter(a.retryAfter, now)
		if !ok {
			d = keyCooldownWithoutRetryAfter
		}
		d = min(d, p.cooldownMax)
		p.mu.Lock()
		if until := now.Add(d); until.After(p.coolUntil[i]) {
			p.coolUntil[i] = until
		}
		p.mu.Unlock()
		return true
	case http.StatusUnauthorized, http.StatusForbidden:
		outcome = "set_aside"
		p.mu.Lock()
		first := !p.setAside[i]
		p.setAside[i] = true
		p.mu.Unlock()
		if first {
			p.logger.Error("upstream refused an api_key; it is set aside until the next config load",
				zap.String("provider", p.provider), zap.Int("key", i+1), zap.Int("status", a.status))
		}
		return true
	}
	return false
}

// keyFailures are the upstream statuses that move a request to the pool's
// next key. They are the upstream's, before thinkgate maps them.
var keyFailures = func() *Fallback {
	set, _ := parseFailureSet([]string{"401", "403", "429"})
	return &Fallback{on: set}
}()

// useKey puts key i of the pool in place of the first in the upstream
// request's headers. The provider writes its credential from the key it
// was built with (keys[0]), in the header its upstream reads (Bearer,
// api-key, x-goog-api-key …); swapping the written value keeps that
// knowledge with the providers.
func (p *keyPool) useKey(h http.Header, i int) {
	if i == 0 {
		return
	}
	from, to := p.keys[0], p.keys[i]
	for k, vs := range h {
		for j, v := range vs {
			if strings.Contains(v, from) {
				h[k][j] = strings.ReplaceAll(v, from, to)
			}
		}
	}
}

// serveKeys sends a converted request with the pool's keys: each attempt
// runs next through a fallback step's writer (fallbackWriter), which keeps
// a 401, 403 or 429 from the client, so that the same request goes to the
// next usable key while nothing has reached the client. newRW makes each
// attempt's response writer; body is the converted request body. It
// returns the writer of the attempt that answered, nil when the gateway
// answered itself.
func (p *keyPool) serveKeys(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, x *providers.Exchange,
	newRW func(http.ResponseWriter) *responseWriter, body []byte, lease *bodyLease) (*responseWriter, error) {
	outer := upstreamAttemptFrom(r.Context()) // a thinkgate_fallback's, around the handler
	if r.Body != nil {
		r.Body.Close() // each attempt reads a copy of its own
	}
	tried := make([]bool, len(p.keys))
	start := p.first(x.SessionKey)
	for {
		now := time.Now()
		i := p.pick(start, tried, now)
		if i < 0 {
			return nil, p.exhausted(w, outer, now)
		}
		tried[i] = true
		a := new(upstreamAttempt)
		sr := r.Clone(withUpstreamAttempt(r.Context(), a))
		sr.Body = lease.reader(body)
		sr.GetBody = lease.getBody(body)
		sr.ContentLength = int64(len(body))
		p.useKey(sr.Header, i)
		sw := &fallbackWriter{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w},
			f: keyFailures, attempt: a, header: w.Header().Clone()}
		rw := newRW(sw)
		err := serveStep(caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
			return rw.serve(r, next)
		}), sw, sr)
		p.observe(i, a, time.Now())
		if !sw.capture || r.Context().Err() != nil {
			if outer != nil {
				*outer = *a
			}
			return rw, err
		}
		x.Logger.Warn("upstream key failed; trying the next",
			zap.Int("key", i+1), zap.Int("status", a.status))
	}
}

// exhausted answers a request no key is left for: 429 with the shortest
// wait when keys are cooling down, 502 when the upstream refused every
// key. A thinkgate_fallback around the handler sees the status.
func (p *keyPool) exhausted(w http.ResponseWriter, outer *upstreamAttempt, now time.Time) error {
	if metrics.upstreamKeysCooling != nil {
		metrics.upstreamKeysCooling.WithLabelValues(p.provider).Inc()
	}
	wait, cooling := p.shortestWait(now)
	e := &wire.Error{Status: http.StatusBadGateway, Type: "api_error",
		Message: fmt.Sprintf("the upstream refused every api_key of provider %s (401/403); they are set aside until the configuration is reloaded", p.provider)}
	if cooling {
		secs := max(1, int64((wait+time.Second-1)/time.Second))
		e = &wire.Error{Status: http.StatusTooManyRequests, Type: "rate_limit_error",
			Message:    fmt.Sprintf("every api_key of provider %s is rate limited by the upstream; retry in %ds", p.provider, secs),
			RetryAfter: strconv.FormatInt(secs, 10)}
	}
	if outer != nil {
		outer.status, outer.retryAfter = e.Status, e.RetryAfter
	}
	return writeError(w, e)
}
