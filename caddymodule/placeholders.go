package caddymodule

import (
	"net/http"

	"github.com/caddyserver/caddy/v2"
)

// The placeholders a thinkgate handler sets for the directives around it
// (header, log_append, respond, a log format): {http.thinkgate.provider},
// {http.thinkgate.model} (the client's) and {http.thinkgate.upstream_model}.
const (
	placeholderProvider      = "http.thinkgate.provider"
	placeholderModel         = "http.thinkgate.model"
	placeholderUpstreamModel = "http.thinkgate.upstream_model"
	placeholderClient        = "http.thinkgate.client"
	placeholderFallbackStep  = "http.thinkgate.fallback.step"
)

// setPlaceholders sets the handler's placeholders on r: the provider's name
// and what is known of the models, an empty string for what is not (yet).
// It runs first in ServeHTTP, so that every answer the handler makes itself
// (a refused key, a wrong method, a body too large or too slow, a refused
// request, the model list) resolves them as a proxied one does: Caddy's
// header and log directives leave a placeholder that was never set as its
// literal text.
func (h *Handler) setPlaceholders(r *http.Request, model, upstreamModel string) {
	setPlaceholders(r, h.providerName, model, upstreamModel)
}

func setPlaceholders(r *http.Request, provider, model, upstreamModel string) {
	repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	if !ok {
		return
	}
	repl.Set(placeholderProvider, provider)
	repl.Set(placeholderModel, model)
	repl.Set(placeholderUpstreamModel, upstreamModel)
	// The client's name and the fallback step are set by the handlers that
	// know them (thinkgate_clients, thinkgate_fallback); without those they
	// are empty, not their literal text.
	for _, p := range []string{placeholderClient, placeholderFallbackStep} {
		if _, set := repl.Get(p); !set {
			repl.Set(p, "")
		}
	}
}

// startPlaceholders gives every thinkgate placeholder its value as
// thinkgate_clients, the first of thinkgate's handlers in a site, knows
// it: the client's name once its key is known, and empty strings for the
// rest, which the thinkgate and thinkgate_fallback handlers after it set.
// Its own answers (401, 403, 429, 503) then resolve them too.
func startPlaceholders(r *http.Request, client string) {
	if repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer); ok {
		repl.Set(placeholderClient, client)
	}
	setPlaceholders(r, "", "", "")
}
