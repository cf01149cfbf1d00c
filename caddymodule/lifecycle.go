package caddymodule

import (
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// defaultUpstreamIdleTimeout ends a stream whose upstream has sent nothing
// for this long. Keepalive pings would otherwise hold it open for ever.
const defaultUpstreamIdleTimeout = 5 * time.Minute

// defaultUpstreamBodyTimeout bounds the read of an upstream body the gateway
// reads whole (upstream_body_timeout): long enough for the largest body it
// takes (maxBufferedBody) over a slow link, short enough that a trickling
// error body does not hold a request that could fail over.
const defaultUpstreamBodyTimeout = 30 * time.Second

// shutdownLead is how long before the end of the server's grace period the
// open exchanges are ended, so that their error event reaches the client
// before the connection is closed. A grace period shorter than twice this
// ends them at its middle.
const shutdownLead = time.Second

// provisionResponse prepares the response side of the handler: the secrets
// to scrub from relayed text (the provider's credentials and the signing
// key), the idle bound, and the hook that ends open exchanges when the
// server's grace period runs out.
func (h *Handler) provisionResponse(ctx caddy.Context, providerSecrets []string) {
	if h.UpstreamIdleTimeout == 0 {
		h.UpstreamIdleTimeout = caddy.Duration(defaultUpstreamIdleTimeout)
	}
	if h.UpstreamBodyTimeout == 0 {
		h.UpstreamBodyTimeout = caddy.Duration(defaultUpstreamBodyTimeout)
	}
	list := append(slices.Clone(providerSecrets), resolveSecret(h.SigningKey))
	h.secrets = secretSet(list...)
	for _, m := range h.Models {
		if !hasGlobMeta(m.From) {
			registerModelLabel(m.From)
		}
	}

	h.active = &activeExchanges{set: map[*responseWriter]struct{}{}, logger: h.logger}
	if app, err := ctx.AppIfConfigured("http"); err == nil {
		if ha, ok := app.(*caddyhttp.App); ok {
			h.active.grace = time.Duration(ha.GracePeriod)
		}
	}
	if srv, ok := ctx.Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server); ok && srv != nil {
		srv.RegisterOnShutdown(h.active.shutdown)
	}
}

// activeExchanges are a handler's exchanges in progress, for shutdown.
type activeExchanges struct {
	mu       sync.Mutex
	set      map[*responseWriter]struct{}
	grace    time.Duration
	stopping bool // the grace period has run out
	logger   *zap.Logger
}

func (a *activeExchanges) add(rw *responseWriter) {
	a.mu.Lock()
	stopping := a.stopping
	a.set[rw] = struct{}{}
	a.mu.Unlock()
	if stopping {
		rw.stop(errShuttingDown)
	}
}

func (a *activeExchanges) remove(rw *responseWriter) {
	a.mu.Lock()
	delete(a.set, rw)
	a.mu.Unlock()
}

// errShuttingDown ends exchanges still open when the grace period runs out:
// overloaded_error, which clients retry.
var errShuttingDown = &wire.Error{Status: 529, Type: "overloaded_error",
	Message: "the gateway is shutting down; retry the request"}

// shutdown runs when the server begins its graceful stop. With a grace
// period, the exchanges still open shortly before it ends are ended with an
// overloaded_error (an error event in a stream) instead of being cut when
// Caddy closes their connections. With an eternal grace period they run to
// their end (a silent upstream is still bounded by upstream_idle_timeout).
func (a *activeExchanges) shutdown() {
	if a.grace <= 0 {
		return
	}
	wait := a.grace - min(shutdownLead, a.grace/2)
	time.AfterFunc(wait, func() {
		a.mu.Lock()
		a.stopping = true
		open := make([]*responseWriter, 0, len(a.set))
		for rw := range a.set {
			open = append(open, rw)
		}
		a.mu.Unlock()
		if len(open) > 0 {
			a.logger.Warn("grace period ending: ending open exchanges",
				zap.Int("exchanges", len(open)), zap.Duration("grace_period", a.grace))
		}
		for _, rw := range open {
			rw.stop(errShuttingDown)
		}
	})
}

// stop ends the exchange early with e: a stream gets e as its error event,
// an exchange that has sent nothing yet gets e as its response; the upstream
// request is cancelled either way.
func (rw *responseWriter) stop(e *wire.Error) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.done || rw.stopErr != nil {
		return
	}
	if rw.mode == nil {
		rw.endEarly(e)
		return
	}
	rw.mode.stop(e)
}
