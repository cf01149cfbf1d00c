package bedrock

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/awsstream"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// hostCheck wraps a request's translator to explain Bedrock's refusal of a
// signature made for another host than the one reverse_proxy used: a
// header_up Host, or a reverse_proxy pointed elsewhere than the signed
// host, gives an upstream 403 that says only that the signature does not
// match.
type hostCheck struct {
	providers.Translator
	signed    string
	proxyHost func() string
	sigV4     bool
}

// Handle maps every error response (the wrapped translator's mapping, or
// the AWS one), and a signature error on a host mismatch to one that says so.
func (c *hostCheck) Handle(status int, header http.Header) providers.Handling {
	h := c.Translator.Handle(status, header)
	if status < 300 {
		return h
	}
	mapErr := h.Error
	if mapErr == nil {
		mapErr = awsstream.UpstreamError
	}
	h = providers.Handling{Error: mapErr}
	if status != http.StatusForbidden || !c.sigV4 || c.proxyHost == nil {
		return h
	}
	h.Error = func(status int, header http.Header, body []byte) *wire.Error {
		e := mapErr(status, header, body)
		used := c.proxyHost()
		if !signatureError(header, body) || used == "" || strings.EqualFold(used, c.signed) {
			return e
		}
		if !sameHost(used, c.signed) {
			return wire.APIError(http.StatusBadGateway, fmt.Sprintf(
				"bedrock: the upstream refused the request's signature (%s). The request was signed for host %s, "+
					"but reverse_proxy sent it to %s: point reverse_proxy at https://%s (with header_up Host %s), "+
					"or set the bedrock host option to the host reverse_proxy dials",
				e.Message, c.signed, used, c.signed, HostPlaceholder))
		}
		// The right server, but to an https upstream Caddy sends host:port
		// as the Host unless told otherwise, and the signature covers the
		// host alone.
		e.Message += fmt.Sprintf(" (the request was signed for host %s; to an https upstream reverse_proxy sends %s "+
			"as the Host unless it has header_up Host %s, which the signature needs; with that line in place, "+
			"the AWS credentials are wrong)", c.signed, used, HostPlaceholder)
		return e
	}
	return h
}

// HostPlaceholder is the Host reverse_proxy must send for the signature:
// the upstream's host without its port.
const HostPlaceholder = "{http.reverse_proxy.upstream.host}"

// signatureError reports Bedrock's answer to a signature that does not match.
func signatureError(header http.Header, body []byte) bool {
	switch awsstream.ExceptionName(header.Get("X-Amzn-Errortype")) {
	case "InvalidSignatureException", "SignatureDoesNotMatch":
		return true
	}
	return bytes.Contains(body, []byte("InvalidSignatureException")) ||
		bytes.Contains(body, []byte("SignatureDoesNotMatch")) ||
		bytes.Contains(body, []byte("signature we calculated does not match"))
}

// sameHost compares the host reverse_proxy dialled with the signed one; a
// port counts only where the signed host names one.
func sameHost(used, signed string) bool {
	if _, _, err := net.SplitHostPort(signed); err != nil {
		if h, _, err := net.SplitHostPort(used); err == nil {
			used = h
		}
	}
	return strings.EqualFold(used, signed)
}
