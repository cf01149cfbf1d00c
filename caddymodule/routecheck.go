package caddymodule

import (
	"encoding/json"
	"errors"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// routePos is a route list around the handler being provisioned and the
// index of the route that holds it (the first whose handlers are still
// being loaded: Caddy provisions a list's routes in order and clears each
// route's raw handlers once they are loaded).
type routePos struct {
	routes  caddyhttp.RouteList
	current int
}

// enclosingRoutes are the route lists around the handler being
// provisioned, innermost first: a subroute's (handle, route), a
// thinkgate_fallback step's, the server's.
func enclosingRoutes(ctx caddy.Context) []routePos {
	var out []routePos
	add := func(routes caddyhttp.RouteList) bool {
		for i, r := range routes {
			if len(r.HandlersRaw) > 0 {
				out = append(out, routePos{routes, i})
				return true
			}
		}
		return false
	}
	mods := ctx.Modules()
	for i := len(mods) - 1; i >= 0; i-- {
		switch m := mods[i].(type) {
		case *caddyhttp.Subroute:
			add(m.Routes)
		case *Fallback:
			for _, step := range m.Try {
				if add(step.Routes) {
					break
				}
			}
		case *caddyhttp.App:
			if srv := serverOf(ctx); srv != nil {
				add(srv.Routes)
			}
		}
	}
	return out
}

// handlerName is the module name of a raw handler.
func handlerName(raw json.RawMessage) string {
	var v struct {
		Handler string `json:"handler"`
	}
	_ = json.Unmarshal(raw, &v)
	return v.Handler
}

// errTwoHandlers refuses a route list with two thinkgate handlers.
var errTwoHandlers = errors.New("two thinkgate handlers in one route: a request would pass through both, " +
	"the second seeing the first's converted request (or passing it on untouched), so only the first would serve; " +
	"give each its own handle block with a matcher (see docs/routing.md), or use thinkgate_fallback")

// checkOneHandler refuses a second thinkgate handler in the route list
// that holds the one being provisioned.
func checkOneHandler(ctx caddy.Context) error {
	lists := enclosingRoutes(ctx)
	if len(lists) == 0 {
		return nil
	}
	pos := lists[0]
	n := 0
	for _, raw := range pos.routes[pos.current].HandlersRaw {
		if handlerName(raw) == "thinkgate" {
			n++
		}
	}
	for _, r := range pos.routes[:pos.current] {
		for _, hd := range r.Handlers {
			if _, ok := hd.(*Handler); ok {
				n++
			}
		}
	}
	if n > 1 {
		return errTwoHandlers
	}
	return nil
}

// noProxyWarning is logged for a thinkgate that nothing after it sends
// upstream.
const noProxyWarning = "thinkgate has no reverse_proxy after it in its route, so nothing sends its request " +
	"upstream and every Messages request gets 502 'nothing answered the request': " +
	"add reverse_proxy <upstream> after thinkgate, in the same route"

// proxyWarning reports a thinkgate handler with no reverse_proxy after it
// in any route list around it (a request that thinkgate converts goes on
// to the rest of its own list, then to the rest of the enclosing ones).
func proxyWarning(ctx caddy.Context) string {
	lists := enclosingRoutes(ctx)
	if len(lists) == 0 {
		return "" // provisioned outside a server: nothing to tell
	}
	for k, pos := range lists {
		cur := pos.routes[pos.current]
		after := cur.HandlersRaw
		if k == 0 {
			// After this thinkgate in its own route.
			for i, raw := range cur.HandlersRaw {
				if handlerName(raw) == "thinkgate" {
					after = cur.HandlersRaw[i+1:]
					break
				}
			}
		}
		for _, raw := range after {
			if rawProxies(raw) {
				return ""
			}
		}
		if routesProxy(pos.routes[pos.current+1:]) {
			return ""
		}
	}
	return noProxyWarning
}

// routesProxy reports whether a route list holds a reverse_proxy, nested
// ones included.
func routesProxy(routes caddyhttp.RouteList) bool {
	for _, r := range routes {
		for _, raw := range r.HandlersRaw {
			if rawProxies(raw) {
				return true
			}
		}
		for _, hd := range r.Handlers {
			switch h := hd.(type) {
			case *caddyhttp.Subroute:
				if routesProxy(h.Routes) {
					return true
				}
			case *Fallback:
				for _, step := range h.Try {
					if routesProxy(step.Routes) {
						return true
					}
				}
			default:
				if caddy.GetModuleName(hd) == "reverse_proxy" {
					return true
				}
			}
		}
	}
	return false
}

// rawProxies reports whether a raw handler is, or holds, a reverse_proxy.
func rawProxies(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	return holdsProxy(v)
}

func holdsProxy(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		if t["handler"] == "reverse_proxy" {
			return true
		}
		for _, e := range t {
			if holdsProxy(e) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if holdsProxy(e) {
				return true
			}
		}
	}
	return false
}
