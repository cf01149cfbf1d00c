package caddymodule

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"strings"
	"syscall"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// upstreamFailure maps the error reverse_proxy returns when it got no
// response into the client's Anthropic error. The message names the class
// of failure (connection refused, DNS, TLS, timeout …) but never the
// upstream's address, which is the operator's business.
func upstreamFailure(err error) *wire.Error {
	status := http.StatusBadGateway
	var he caddyhttp.HandlerError
	if errors.As(err, &he) && he.StatusCode != 0 {
		status = he.StatusCode
	}
	class := upstreamFailureClass(err)
	if class == "timed out" && status == http.StatusBadGateway {
		status = http.StatusGatewayTimeout
	}
	return &wire.Error{Status: status, Type: wire.ErrorTypeForStatus(status),
		Message: "upstream request failed: " + class}
}

func upstreamFailureClass(err error) string {
	var (
		dnsErr    *net.DNSError
		certErr   *tls.CertificateVerificationError
		unknownCA x509.UnknownAuthorityError
		hostErr   x509.HostnameError
		invalid   x509.CertificateInvalidError
		recordErr tls.RecordHeaderError
		alertErr  tls.AlertError
		netErr    net.Error
	)
	switch {
	case errors.As(err, &dnsErr):
		return "DNS lookup of the upstream failed"
	case errors.As(err, &certErr), errors.As(err, &unknownCA), errors.As(err, &hostErr), errors.As(err, &invalid):
		return "TLS: the upstream's certificate was not accepted"
	case errors.As(err, &recordErr), errors.As(err, &alertErr):
		return "TLS handshake with the upstream failed"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset by the upstream"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "upstream host unreachable"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timed out"
	}
	// reverse_proxy wraps dial errors in a type that hides their chain
	// from errors.Is and errors.As: their text tells the class.
	switch msg := err.Error(); {
	case strings.Contains(msg, "no such host"), strings.Contains(msg, "server misbehaving"):
		return "DNS lookup of the upstream failed"
	case strings.Contains(msg, "connection refused"):
		return "connection refused"
	case strings.Contains(msg, "connection reset"):
		return "connection reset by the upstream"
	case strings.Contains(msg, "no route to host"), strings.Contains(msg, "network is unreachable"):
		return "upstream host unreachable"
	case strings.Contains(msg, "i/o timeout"), strings.Contains(msg, "deadline exceeded"):
		return "timed out"
	case strings.Contains(msg, "x509:"), strings.Contains(msg, "certificate"):
		return "TLS: the upstream's certificate was not accepted"
	case strings.Contains(msg, "tls:"):
		return "TLS handshake with the upstream failed"
	case strings.Contains(msg, "no upstreams available"):
		return "no upstream available"
	}
	var he caddyhttp.HandlerError
	if errors.As(err, &he) && he.StatusCode != 0 {
		if t := http.StatusText(he.StatusCode); t != "" {
			return t
		}
	}
	return http.StatusText(http.StatusBadGateway)
}
