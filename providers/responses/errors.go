package responses

import (
	"net/http"
	"strings"

	"github.com/thinkgate/thinkgate/providers/openai"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// UpstreamError maps a non-2xx Responses answer. Its error body is OpenAI's
// ({"error":{"message","type","param","code"}}), so the openai provider's
// mapping applies as it is: the status kept, its type following it, a 502
// or 503 naming overload turned into 529 overloaded_error.
func UpstreamError(status int, header http.Header, body []byte) *wire.Error {
	return openai.UpstreamError(status, header, body)
}

// failure maps an error reported inside a 2xx answer — an `error` event,
// a response.failed event's response.error, a failed response object — by
// its code: the Anthropic type and the status a client would have got had
// it come before the answer.
func failure(code, message string) *wire.Error {
	if message == "" {
		message = "upstream reported an error"
		if code != "" {
			message += ": " + code
		}
	}
	lc := strings.ToLower(code + " " + message)
	e := &wire.Error{Status: http.StatusBadGateway, Type: "api_error", Message: message}
	switch {
	case strings.Contains(lc, "overload") || strings.Contains(lc, "capacity"):
		e.Status, e.Type = 529, "overloaded_error"
	case strings.Contains(lc, "rate_limit") || strings.Contains(lc, "quota"):
		e.Status, e.Type = http.StatusTooManyRequests, "rate_limit_error"
	case code == "context_length_exceeded":
		e.Status, e.Type = http.StatusBadRequest, "invalid_request_error"
		if !strings.Contains(strings.ToLower(message), "prompt is too long") {
			// The phrase Anthropic uses, which Claude Code offers to compact on.
			e.Message = "prompt is too long: " + message
		}
	case strings.HasPrefix(code, "invalid_") || strings.HasPrefix(code, "image_") || code == "empty_image_file" ||
		code == "unsupported_image_media_type" || code == "failed_to_download_image":
		e.Status, e.Type = http.StatusBadRequest, "invalid_request_error"
	case strings.Contains(lc, "timeout"):
		e.Status, e.Type = http.StatusGatewayTimeout, "timeout_error"
	}
	return e
}

func truncate(s string, n int) string {
	if len(s) > n {
		s = s[:n]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

func malformed(msg string) *wire.Error {
	return wire.APIError(http.StatusBadGateway, "malformed upstream response: "+msg)
}
