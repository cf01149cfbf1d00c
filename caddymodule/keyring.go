package caddymodule

import (
	"net/http"
	"sync"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// serverHandlers are the thinkgate handlers of one Caddy server (a
// listener's sites), so that what runs before any of them — a thinkgate
// matcher, a thinkgate_fallback — can tell a client none of them would
// serve, and leave its body unread (see docs/security.md, "Client keys").
type serverHandlers struct {
	mu       sync.RWMutex
	handlers map[*Handler]struct{}
}

// serversHandlers holds each server's handlers while its config runs: a
// handler joins at Provision and leaves at Cleanup, and the entry goes
// with the server's last handler.
var serversHandlers sync.Map // *caddyhttp.Server → *serverHandlers

// serverOf is the server a module is provisioned in, nil outside a server
// (a module provisioned on its own, in a test).
func serverOf(ctx caddy.Context) *caddyhttp.Server {
	if ctx.Context == nil {
		return nil
	}
	srv, _ := ctx.Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	return srv
}

// joinServer registers h with the server it is provisioned in.
func (h *Handler) joinServer(ctx caddy.Context) {
	srv := serverOf(ctx)
	if srv == nil {
		return
	}
	v, _ := serversHandlers.LoadOrStore(srv, &serverHandlers{handlers: map[*Handler]struct{}{}})
	sh := v.(*serverHandlers)
	sh.mu.Lock()
	sh.handlers[h] = struct{}{}
	sh.mu.Unlock()
	h.server = srv
}

// Cleanup takes the handler off its server's list.
func (h *Handler) Cleanup() error {
	if h.server == nil {
		return nil
	}
	v, ok := serversHandlers.Load(h.server)
	if !ok {
		return nil
	}
	sh := v.(*serverHandlers)
	sh.mu.Lock()
	delete(sh.handlers, h)
	if len(sh.handlers) == 0 {
		serversHandlers.CompareAndDelete(h.server, sh)
	}
	sh.mu.Unlock()
	return nil
}

// unauthenticated reports whether every thinkgate handler of srv has client
// keys and none of them accepts the key r presents: a request no handler
// of the server would serve, whose body nothing needs to read. A server
// with no thinkgate handler, or with one that takes every client (no
// client_keys), refuses nothing here.
func unauthenticated(srv *caddyhttp.Server, r *http.Request) bool {
	if srv == nil {
		return false
	}
	v, ok := serversHandlers.Load(srv)
	if !ok {
		return false
	}
	sh := v.(*serverHandlers)
	sh.mu.RLock()
	defer sh.mu.RUnlock()
	if len(sh.handlers) == 0 {
		return false
	}
	for h := range sh.handlers {
		if len(h.clientKeys) == 0 || h.clientKeyOK(r.Header) {
			return false
		}
	}
	return true
}

// errInvalidClientKey is the answer to a request without a valid client key.
var errInvalidClientKey = &wire.Error{Status: http.StatusUnauthorized, Type: "authentication_error", Message: "invalid x-api-key"}

var _ caddy.CleanerUpper = (*Handler)(nil)
