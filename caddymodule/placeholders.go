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
)

// setPlaceholders sets the handler's placeholders on r: the provider's name
// and what is known of the models, an empty string for what is not (yet).
// It runs first in ServeHTTP, so that every answer the handler makes itself
// (a refused key, a wrong method, a body too large or too slow, a refused
// request, the model list) resolves them as a proxied one does: Caddy's
// header and log directives leave a placeholder that was never set as its
// literal text.
func (h *Handler) setPlaceholders(r *http.Request, model, upstreamModel string) {
	repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	if !ok {
		return
	}
	repl.Set(placeholderProvider, h.providerName)
	repl.Set(placeholderModel, model)
	repl.Set(placeholderUpstreamModel, upstreamModel)
}
