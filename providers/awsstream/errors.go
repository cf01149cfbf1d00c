package awsstream

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// exceptionStatus is the status the client sees for an AWS exception,
// whatever HTTP status carried it (AWS JSON services send some throttling
// as 400, and exceptions inside a 200 event stream have none). Names are
// as AWS spells them over HTTP; inside an event stream Bedrock spells them
// with a lower-case first letter, which Exception folds.
var exceptionStatus = map[string]int{
	"ThrottlingException":           http.StatusTooManyRequests,
	"ServiceQuotaExceededException": http.StatusTooManyRequests,
	"ModelNotReadyException":        http.StatusTooManyRequests,
	"ValidationException":           http.StatusBadRequest,
	"AccessDeniedException":         http.StatusForbidden,
	"UnauthorizedException":         http.StatusUnauthorized,
	"ExpiredTokenException":         http.StatusUnauthorized,
	"ResourceNotFoundException":     http.StatusNotFound,
	"ConflictException":             http.StatusConflict,
	"InternalServerException":       http.StatusInternalServerError,
	"ServiceUnavailableException":   http.StatusServiceUnavailable,
	"ModelTimeoutException":         http.StatusGatewayTimeout,
	"ModelStreamErrorException":     http.StatusBadGateway,
	"ModelErrorException":           http.StatusBadGateway,
}

// reasonTooLong is Amazon Q's ValidationException reason for an oversized
// prompt, and inputTooLong the start of Bedrock's message for one. Both
// become Anthropic's "prompt is too long" wording, which is what clients
// such as Claude Code look for to compact the conversation.
const (
	reasonTooLong = "CONTENT_LENGTH_EXCEEDS_THRESHOLD"
	inputTooLong  = "Input is too long"
)

// ExceptionName reduces "com.amazon…#ThrottlingException", the
// x-amzn-ErrorType form "ThrottlingException:http://…" or the event-stream
// form "throttlingException" to the bare name as AWS spells it over HTTP.
func ExceptionName(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '#'); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	if r, n := utf8.DecodeRuneInString(s); unicode.IsLower(r) {
		s = string(unicode.ToUpper(r)) + s[n:]
	}
	return s
}

// NewException makes the Anthropic error for an AWS exception: name is
// its bare name, reason the reason some services add. A name the gateway
// does not know keeps fallbackStatus.
func NewException(name, message, reason string, fallbackStatus int) *wire.Error {
	status, ok := exceptionStatus[name]
	if !ok {
		status = fallbackStatus
	}
	message = strings.TrimSpace(message)
	tooLong := reason == reasonTooLong ||
		(name == "ValidationException" && strings.HasPrefix(message, inputTooLong))
	var msg string
	switch {
	case tooLong && reason != "" && name != "":
		msg = "prompt is too long: " + message + " (" + name + ": " + reason + ")"
	case tooLong && reason != "":
		msg = "prompt is too long: " + message + " (" + reason + ")"
	case tooLong:
		msg = "prompt is too long: " + message + " (" + name + ")"
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
	return &wire.Error{Status: status, Type: wire.ErrorTypeForStatus(status), Message: msg}
}

// errorBody is the JSON body of an AWS error; encoding/json matches
// "Message" to message as well.
type errorBody struct {
	Type    string          `json:"__type"`
	Message string          `json:"message"`
	Reason  json.RawMessage `json:"reason"`
}

func (b errorBody) reason() string {
	var s string
	_ = json.Unmarshal(b.Reason, &s)
	return s
}

// UpstreamError maps a non-2xx response: an AWS error document keeps its
// exception (named by its __type or the x-amzn-ErrorType header);
// anything else gets the gateway's generic mapping.
func UpstreamError(status int, header http.Header, body []byte) *wire.Error {
	var v errorBody
	parsed := json.Unmarshal(body, &v) == nil
	name := ExceptionName(v.Type)
	if name == "" && header != nil {
		name = ExceptionName(header.Get("X-Amzn-Errortype"))
	}
	if !parsed || (v.Message == "" && name == "") {
		// Not an AWS error body (an Anthropic-shaped one from a gateway in
		// between, HTML from a proxy …): the generic mapping.
		return wire.DefaultUpstreamError(status, header, body)
	}
	e := NewException(name, v.Message, v.reason(), status)
	if header != nil {
		e.RetryAfter = header.Get("Retry-After")
	}
	return e
}

// Exception returns the error an exception or error message carries, or
// nil for an event message.
func Exception(m Message) *wire.Error {
	switch m.Header(":message-type") {
	case "exception":
		var v errorBody
		_ = json.Unmarshal(m.Payload, &v)
		name := ExceptionName(m.Header(":exception-type"))
		if name == "" {
			name = ExceptionName(v.Type)
		}
		if v.Message == "" && len(m.Payload) > 0 && m.Payload[0] != '{' {
			v.Message = string(m.Payload)
		}
		return NewException(name, v.Message, v.reason(), http.StatusBadGateway)
	case "error":
		return NewException(m.Header(":error-code"), m.Header(":error-message"), "", http.StatusBadGateway)
	}
	return nil
}

// BodyError is the error for a 2xx body that is not an event stream: an
// AWS error document keeps its exception mapping, anything else is quoted.
func BodyError(body []byte) *wire.Error {
	var v errorBody
	if json.Unmarshal(body, &v) == nil && (v.Message != "" || v.Type != "") {
		return NewException(ExceptionName(v.Type), v.Message, v.reason(), http.StatusBadGateway)
	}
	q := strings.ToValidUTF8(string(bytes.TrimSpace(body[:min(len(body), 512)])), "\uFFFD")
	return wire.APIError(http.StatusBadGateway, "upstream answered without an event stream: "+q)
}
