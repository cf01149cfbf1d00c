package providers

import (
	"net/http"
	"strings"
)

// CredentialHeaders are the request headers that carry a credential or bill
// an account upstream. When the gateway supplies the upstream's credential,
// none of the client's may ride along beside it; every log line the gateway
// writes redacts them.
var CredentialHeaders = []string{
	"Authorization",
	"Proxy-Authorization",
	"X-Api-Key",
	"Api-Key",
	"X-Goog-Api-Key",
	"X-Goog-User-Project",
	"X-Amz-Security-Token",
	"Cookie",
}

// StripClientHeaders removes from the upstream request's header what the
// client sent that must not reach the upstream: every credential header
// when gatewayCredential is set (the provider then sets its own), and the
// anthropic-* protocol headers when the upstream does not speak Anthropic's
// API (they mean nothing there and name the client's betas).
func StripClientHeaders(h http.Header, gatewayCredential, anthropicHeaders bool) {
	if gatewayCredential {
		for _, k := range CredentialHeaders {
			h.Del(k)
		}
	}
	if anthropicHeaders {
		for k := range h {
			if len(k) >= 10 && strings.EqualFold(k[:10], "anthropic-") {
				delete(h, k)
			}
		}
	}
}

// ClientQuery is the part of the client's query an Anthropic-format
// upstream may see: beta=true, which the SDKs' beta namespace adds. Any
// other parameter stays at the gateway, so a client cannot steer the
// upstream request (an api-version, a key, a path trick) with the
// operator's credential attached.
func ClientQuery(raw string) string {
	for _, kv := range strings.Split(raw, "&") {
		if kv == "beta=true" {
			return kv
		}
	}
	return ""
}
