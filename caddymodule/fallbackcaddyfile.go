package caddymodule

import (
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("thinkgate_fallback", parseFallbackCaddyfile)
	// Where thinkgate sits: inside encode, ahead of reverse_proxy.
	httpcaddyfile.RegisterDirectiveOrder("thinkgate_fallback", httpcaddyfile.After, "encode")
}

// parseFallbackCaddyfile sets up a fallback from Caddyfile tokens. Syntax:
//
//	thinkgate_fallback [<matcher>] {
//	    on <status|4xx|5xx|connection_error|timeout>...  # what fails a step over (default: 429 500 502 503 504 529 connection_error timeout)
//	    retry_after_max <duration>      # a Retry-After up to this long is waited out and the step tried once more (default 0: never)
//	    max_request_body <size>         # the client's body, kept for every step (default 32MiB)
//	    request_body_timeout <duration> # time to read the client's body (default 30s)
//	    try {
//	        thinkgate <provider> { … }
//	        reverse_proxy <upstream> { … }
//	    }
//	    try { … }                       # the next step; repeatable, in order
//	}
//
// Each try block is parsed like a handle block: it may hold any handler
// directive and matchers, and its directives are sorted in Caddy's
// directive order, so thinkgate runs before reverse_proxy whatever the order
// written (use route inside it for an order of your own). The statuses in
// on are the upstream's own, before thinkgate maps them.
func parseFallbackCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	f := new(Fallback)
	h.Next() // directive name
	if h.NextArg() {
		return nil, h.ArgErr()
	}
	for h.NextBlock(0) {
		switch opt := h.Val(); opt {
		case "on":
			vals := h.RemainingArgs()
			if len(vals) == 0 {
				return nil, missingArg(h.Dispenser)
			}
			if _, err := parseFailureSet(vals); err != nil {
				return nil, h.Err(err.Error())
			}
			f.On = append(f.On, vals...)
		case "retry_after_max":
			v, err := ParseStringOption(h.Dispenser)
			if err != nil {
				return nil, err
			}
			d, err := caddy.ParseDuration(v)
			if err != nil || d < 0 {
				return nil, h.Errf("retry_after_max: %q is not a duration; write e.g. 5s or 0", v)
			}
			f.RetryAfterMax = caddy.Duration(d)
		case "max_request_body":
			n, err := parseSize(h.Dispenser)
			if err != nil {
				return nil, err
			}
			if n <= 0 {
				return nil, h.Errf("max_request_body: must be positive")
			}
			f.MaxRequestBody = n
		case "request_body_timeout":
			v, err := ParseStringOption(h.Dispenser)
			if err != nil {
				return nil, err
			}
			d, err := caddy.ParseDuration(v)
			if err != nil || d <= 0 {
				return nil, h.Errf("request_body_timeout: %q is not a positive duration; write e.g. 30s or 2m", v)
			}
			f.RequestBodyTimeout = caddy.Duration(d)
		case "try":
			handler, err := httpcaddyfile.ParseSegmentAsSubroute(h.WithDispenser(h.NewFromNextSegment()))
			if err != nil {
				return nil, err
			}
			sr, ok := handler.(*caddyhttp.Subroute)
			if !ok {
				return nil, h.Errf("try: the block did not parse as routes")
			}
			f.Try = append(f.Try, FallbackStep{Routes: sr.Routes})
		default:
			return nil, h.Errf("unknown option %q; valid: on, retry_after_max, max_request_body, request_body_timeout, try", opt)
		}
	}
	if len(f.Try) == 0 {
		return nil, h.Errf("thinkgate_fallback: at least one try block is required")
	}
	return f, nil
}
