package caddymodule

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// minRedactedSecret is the shortest secret replaced in relayed text: a
// shorter one would match ordinary words of a message.
const minRedactedSecret = 8

// redactedSecret replaces a configured secret in relayed text.
const redactedSecret = "[redacted]"

// secretSet collects the secrets worth redacting: each in its raw form and,
// where it differs, as it appears inside a JSON string.
func secretSet(list ...string) [][]byte {
	var out [][]byte
	seen := map[string]bool{}
	add := func(b []byte) {
		if len(b) >= minRedactedSecret && !seen[string(b)] {
			seen[string(b)] = true
			out = append(out, b)
		}
	}
	for _, s := range list {
		add([]byte(s))
		if q := jsonbytes.AppendString(nil, s); len(q) >= 2 {
			add(q[1 : len(q)-1])
		}
	}
	return out
}

// redact returns p with every secret replaced; p itself when none occurs.
func redact(p []byte, secrets [][]byte) []byte {
	for _, s := range secrets {
		if bytes.Contains(p, s) {
			p = bytes.ReplaceAll(p, s, []byte(redactedSecret))
		}
	}
	return p
}

// redactError scrubs an error's message and raw body.
func redactError(e *wire.Error, secrets [][]byte) *wire.Error {
	if len(secrets) == 0 {
		return e
	}
	msg := redact([]byte(e.Message), secrets)
	raw := e.Raw
	if raw != nil {
		raw = redact(raw, secrets)
	}
	if string(msg) == e.Message && bytes.Equal(raw, e.Raw) {
		return e
	}
	c := *e
	c.Message, c.Raw = string(msg), raw
	return &c
}

// sentCredentialHeaders are the request headers whose values are scrubbed
// from relayed upstream text: the credential headers of
// providers.CredentialHeaders but a project id and the client's cookies,
// which the gateway never sets.
var sentCredentialHeaders = []string{
	"Authorization",
	"Proxy-Authorization",
	"X-Api-Key",
	"Api-Key",
	"X-Goog-Api-Key",
	"X-Amz-Security-Token",
}

// sentCredentials are the credentials an upstream request carries: each
// credential header's value whole and, of an Authorization header, the
// token after its scheme, or a SigV4 signature's access key id and
// signature. The session token rides in X-Amz-Security-Token. They hold the
// credentials made per request (an access token, a signature), which no
// configuration names.
func sentCredentials(h http.Header) []string {
	var out []string
	for _, k := range sentCredentialHeaders {
		for _, v := range h.Values(k) {
			out = append(out, v)
			if k != "Authorization" && k != "Proxy-Authorization" {
				continue
			}
			scheme, rest, ok := strings.Cut(strings.TrimSpace(v), " ")
			if !ok {
				continue
			}
			rest = strings.TrimSpace(rest)
			if !strings.EqualFold(scheme, "AWS4-HMAC-SHA256") {
				out = append(out, rest)
				continue
			}
			for _, kv := range strings.Split(rest, ",") {
				name, val, _ := strings.Cut(strings.TrimSpace(kv), "=")
				switch name {
				case "Credential":
					id, _, _ := strings.Cut(val, "/")
					out = append(out, id)
				case "Signature":
					out = append(out, val)
				}
			}
		}
	}
	return out
}
