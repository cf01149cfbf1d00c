package openai

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// upstreamError is what an OpenAI-compatible server says about a failure.
// OpenAI: {"error":{"message","type","param","code"}}; vLLM before 0.9 put the
// fields at the top level; Ollama sends {"error":"text"}; FastAPI-based
// servers {"detail":"text"}.
type upstreamError struct {
	Message, Type, Code string
	// Status is the error's own numeric code (OpenRouter, vLLM), 0 if none.
	Status int
}

type errorFields struct {
	Message json.RawMessage `json:"message"`
	Type    json.RawMessage `json:"type"`
	Code    json.RawMessage `json:"code"`
}

// parseError reads an error object, an error string, or a body holding either.
func parseError(raw []byte) upstreamError {
	raw = bytes.TrimSpace(raw)
	var u upstreamError
	if len(raw) > 0 && raw[0] == '"' {
		_ = json.Unmarshal(raw, &u.Message)
		return u
	}
	var body struct {
		errorFields
		Error  json.RawMessage `json:"error"`
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(raw, &body) != nil {
		return u
	}
	if e := bytes.TrimSpace(body.Error); len(e) > 0 && string(e) != "null" {
		if e[0] == '"' {
			_ = json.Unmarshal(e, &u.Message)
			return u
		}
		var inner errorFields
		if json.Unmarshal(e, &inner) == nil {
			body.errorFields = inner
		}
	}
	u.Message = jsonText(body.Message)
	if u.Message == "" {
		u.Message = jsonText(body.Detail)
	}
	u.Type = jsonText(body.Type)
	u.Code = jsonText(body.Code)
	if n, err := strconv.Atoi(u.Code); err == nil && n >= 400 && n <= 599 {
		u.Status = n
	}
	return u
}

// jsonText returns a JSON string's value, a number's digits, or a compact
// rendering of anything else.
func jsonText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// saysOverloaded reports an upstream that names overload as the cause.
func (u upstreamError) saysOverloaded() bool {
	s := strings.ToLower(u.Message + " " + u.Type + " " + u.Code)
	for _, w := range []string{"overload", "capacity", "too busy", "server is busy", "slow down"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// anthropicType maps the error's type and code names, for errors that come
// without a usable status.
func (u upstreamError) anthropicType() string {
	if u.saysOverloaded() {
		return "overloaded_error"
	}
	if u.Status != 0 {
		return wire.ErrorTypeForStatus(u.Status)
	}
	s := strings.ToLower(u.Type + " " + u.Code)
	switch {
	case strings.Contains(s, "rate_limit") || strings.Contains(s, "ratelimit") || strings.Contains(s, "quota"):
		return "rate_limit_error"
	case strings.Contains(s, "context_length") || strings.Contains(s, "invalid_request") || strings.Contains(s, "badrequest"):
		return "invalid_request_error"
	case strings.Contains(s, "auth") || strings.Contains(s, "api_key"):
		return "authentication_error"
	case strings.Contains(s, "permission"):
		return "permission_error"
	case strings.Contains(s, "not_found") || strings.Contains(s, "notfound"):
		return "not_found_error"
	case strings.Contains(s, "timeout"):
		return "timeout_error"
	}
	return "api_error"
}

// message is the text the client sees. A context-length error says "prompt
// is too long", the phrase Anthropic uses and Claude Code reacts to (it
// offers to compact the conversation).
func (u upstreamError) message() string {
	if u.Code == "context_length_exceeded" && !strings.Contains(strings.ToLower(u.Message), "prompt is too long") {
		return "prompt is too long: " + u.Message
	}
	return u.Message
}

// UpstreamError maps a non-2xx Chat Completions response to an Anthropic
// error: the status is kept and its type follows it, except that a 502 or 503
// whose body names overload becomes 529 overloaded_error, the status
// Anthropic clients back off on. Retry-After is kept.
func UpstreamError(status int, header http.Header, body []byte) *wire.Error {
	e := wire.DefaultUpstreamError(status, header, body)
	u := parseError(body)
	if u.Message != "" {
		e.Message = u.message()
	} else if u.Code == "" && u.Type == "" {
		u.Message = e.Message // plain-text or HTML bodies can say "overloaded" too
	}
	if (status == http.StatusBadGateway || status == http.StatusServiceUnavailable) && u.saysOverloaded() {
		e.Status, e.Type = 529, "overloaded_error"
	}
	return e
}

// streamError maps an error object that arrived inside a 2xx stream or body.
func streamError(raw []byte) *wire.Error {
	u := parseError(raw)
	if u.Message == "" {
		u.Message = "upstream reported an error"
		if len(raw) > 0 {
			u.Message += ": " + truncate(string(raw), 512)
		}
	}
	status := u.Status
	typ := u.anthropicType()
	if status == 0 {
		status = statusForType(typ)
	}
	if typ == "overloaded_error" {
		status = 529
	}
	return &wire.Error{Status: status, Type: typ, Message: u.message()}
}

func statusForType(typ string) int {
	switch typ {
	case "invalid_request_error":
		return http.StatusBadRequest
	case "authentication_error":
		return http.StatusUnauthorized
	case "permission_error":
		return http.StatusForbidden
	case "not_found_error":
		return http.StatusNotFound
	case "rate_limit_error":
		return http.StatusTooManyRequests
	case "timeout_error":
		return http.StatusGatewayTimeout
	case "overloaded_error":
		return 529
	}
	return http.StatusBadGateway
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
