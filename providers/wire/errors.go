package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
)

// Error is an Anthropic-shaped API error: an HTTP status, an error type and a
// message. Before the first byte of a response it becomes the status and body;
// after, an `error` event.
type Error struct {
	Status  int
	Type    string
	Message string
	// RetryAfter is copied to the Retry-After header when set.
	RetryAfter string
	// Raw, when set, is the body to send as it is: an upstream's own
	// Anthropic error, kept whole (request_id and all).
	Raw []byte
}

func (e *Error) Error() string { return e.Type + ": " + e.Message }

// Errorf-style constructors for the errors the gateway raises itself.

// InvalidRequest is a 400 invalid_request_error.
func InvalidRequest(msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: msg}
}

// APIError is a 500-class api_error with the given status.
func APIError(status int, msg string) *Error {
	return &Error{Status: status, Type: "api_error", Message: msg}
}

// ErrorTypeForStatus maps an HTTP status to the Anthropic error type clients
// switch on.
func ErrorTypeForStatus(status int) string {
	switch status {
	case 400, 422:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 402:
		return "billing_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 405:
		return "invalid_request_error"
	case 408, 504:
		return "timeout_error"
	case 413:
		return "request_too_large"
	case 415:
		return "invalid_request_error"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	return "api_error"
}

// AsError returns err as an *Error, wrapping foreign errors as a 500 api_error.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return APIError(http.StatusInternalServerError, err.Error())
}

// AppendErrorJSON appends {"type":"error","error":{"type":T,"message":M}}.
func AppendErrorJSON(dst []byte, typ, msg string) []byte {
	dst = append(dst, `{"type":"error","error":{"type":`...)
	dst = jsonbytes.AppendString(dst, typ)
	dst = append(dst, `,"message":`...)
	dst = jsonbytes.AppendString(dst, msg)
	return append(dst, "}}"...)
}

// Body returns the error's JSON body.
func (e *Error) Body() []byte {
	if e.Raw != nil {
		return e.Raw
	}
	return AppendErrorJSON(nil, e.Type, e.Message)
}

// DefaultUpstreamError maps a non-2xx upstream response: an Anthropic-shaped
// or OpenAI/Gemini-shaped error body keeps its message, anything else is
// quoted (truncated); the type follows the status. Retry-After is kept.
func DefaultUpstreamError(status int, header http.Header, body []byte) *Error {
	e := &Error{Status: status, Type: ErrorTypeForStatus(status)}
	var shaped struct {
		Type  string `json:"type"`
		Error json.RawMessage
	}
	if json.Unmarshal(body, &shaped) == nil && len(shaped.Error) > 0 {
		var inner struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(shaped.Error, &inner) == nil && inner.Message != "" {
			e.Message = inner.Message
			if shaped.Type == "error" && inner.Type != "" {
				e.Type = inner.Type
			}
		} else {
			var s string
			if json.Unmarshal(shaped.Error, &s) == nil {
				e.Message = s
			}
		}
	}
	if e.Message == "" {
		msg := bytes.TrimSpace(body)
		if len(msg) > 512 {
			msg = msg[:512]
		}
		text := http.StatusText(status)
		if text == "" {
			text = "status " + strconv.Itoa(status)
		}
		e.Message = "upstream returned " + text
		if len(msg) > 0 {
			e.Message += ": " + strings.ToValidUTF8(string(msg), "\uFFFD")
		}
	}
	if header != nil {
		e.RetryAfter = header.Get("Retry-After")
	}
	return e
}
