package caddymodule

import (
	"net/http"
	"strings"
)

// UpstreamRequestIDHeader is the response header that carries the upstream's
// request id to the client, whatever the upstream called it.
const UpstreamRequestIDHeader = "X-Upstream-Request-Id"

// upstreamRequestIDHeaders are the headers upstreams put their request id in,
// in order of preference.
var upstreamRequestIDHeaders = []string{
	"Request-Id",        // Anthropic
	"X-Request-Id",      // OpenAI and most compatible servers
	"Apim-Request-Id",   // Azure API Management
	"X-Amzn-Requestid",  // AWS
	"X-Goog-Request-Id", // Google front ends
}

// isRateLimitHeader reports the headers that describe the upstream
// account's rate limits (passed only with forward_rate_limit_headers).
func isRateLimitHeader(canonical string) bool {
	return strings.HasPrefix(canonical, "X-Ratelimit-") ||
		strings.HasPrefix(canonical, "Anthropic-Ratelimit-") ||
		strings.HasPrefix(canonical, "Ratelimit")
}

// filterUpstreamHeader reduces the response header a translating provider's
// upstream sent (already copied into hdr by reverse_proxy) to what may reach
// the client: Retry-After, the upstream's request id as
// UpstreamRequestIDHeader, and rate-limit headers when rateLimits is set.
// Headers that were in hdr before the upstream answered (own, the Caddy
// server's, or set by earlier handlers) keep their values from own. The
// upstream's Set-Cookie, account and organisation headers never pass: the
// client is the gateway's, not the upstream account's.
func filterUpstreamHeader(hdr, own http.Header, rateLimits bool) {
	var requestID string
	for _, k := range upstreamRequestIDHeaders {
		if _, gateway := own[k]; !gateway && requestID == "" {
			requestID = hdr.Get(k)
		}
	}
	for k := range hdr {
		if v, ok := own[k]; ok {
			hdr[k] = v
			continue
		}
		if k == "Retry-After" || rateLimits && isRateLimitHeader(k) {
			continue
		}
		delete(hdr, k)
	}
	if requestID != "" {
		if _, ok := own[UpstreamRequestIDHeader]; !ok {
			hdr.Set(UpstreamRequestIDHeader, requestID)
		}
	}
}
