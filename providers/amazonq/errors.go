package amazonq

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/thinkgate/thinkgate/providers"
)

// exceptionStatus is the status the client sees for an Amazon Q exception,
// whatever HTTP status carried it (AWS JSON services send some throttling
// as 400, and exceptions inside a 200 event stream have none).
var exceptionStatus = map[string]int{
	"ThrottlingException":           http.StatusTooManyRequests,
	"ServiceQuotaExceededException": http.StatusTooManyRequests,
	"ValidationException":           http.StatusBadRequest,
	"AccessDeniedException":         http.StatusForbidden,
	"UnauthorizedException":         http.StatusUnauthorized,
	"ExpiredTokenException":         http.StatusUnauthorized,
	"ResourceNotFoundException":     http.StatusNotFound,
	"ConflictException":             http.StatusConflict,
	"InternalServerException":       http.StatusInternalServerError,
	"ServiceUnavailableException":   http.StatusServiceUnavailable,
}

// reasonTooLong is the ValidationException reason for an oversized prompt.
// It becomes Anthropic's "prompt is too long" wording, which is what
// clients such as Claude Code look for to compact the conversation.
const reasonTooLong = "CONTENT_LENGTH_EXCEEDS_THRESHOLD"

// exceptionName reduces "com.amazon…#ThrottlingException" or the
// x-amzn-ErrorType form "ThrottlingException:http://…" to the bare name.
func exceptionName(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '#'); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	return s
}

// newException makes the Anthropic error for an Amazon Q exception. A name
// the gateway does not know keeps fallbackStatus.
func newException(name, message, reason string, fallbackStatus int) *providers.Error {
	status, ok := exceptionStatus[name]
	if !ok {
		status = fallbackStatus
	}
	message = strings.TrimSpace(message)
	var msg string
	switch {
	case reason == reasonTooLong && name != "":
		msg = "prompt is too long: " + message + " (" + name + ": " + reason + ")"
	case reason == reasonTooLong:
		msg = "prompt is too long: " + message + " (" + reason + ")"
	case name != "" && message != "":
		msg = name + ": " + message
	case name != "":
		msg = "upstream exception " + name
	default:
		msg = message
	}
	if reason != "" && reason != reasonTooLong {
		msg += " (reason: " + reason + ")"
	}
	return &providers.Error{Status: status, Type: providers.ErrorTypeForStatus(status), Message: msg}
}

// awsErrorBody is the JSON body of an AWS error; encoding/json matches
// "Message" to message as well.
type awsErrorBody struct {
	Type    string          `json:"__type"`
	Message string          `json:"message"`
	Reason  json.RawMessage `json:"reason"`
}

func (b awsErrorBody) reason() string {
	var s string
	_ = json.Unmarshal(b.Reason, &s)
	return s
}

// upstreamError maps a non-2xx response.
func upstreamError(status int, header http.Header, body []byte) *providers.Error {
	var v awsErrorBody
	parsed := json.Unmarshal(body, &v) == nil
	name := exceptionName(v.Type)
	if name == "" && header != nil {
		name = exceptionName(header.Get("X-Amzn-Errortype"))
	}
	if !parsed || (v.Message == "" && name == "") {
		// Not an AWS error body (an Anthropic-shaped one from a gateway in
		// between, HTML from a proxy …): the generic mapping.
		return providers.DefaultUpstreamError(status, header, body)
	}
	e := newException(name, v.Message, v.reason(), status)
	if header != nil {
		e.RetryAfter = header.Get("Retry-After")
	}
	return e
}
