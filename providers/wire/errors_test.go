package wire

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestErrorTypeForStatus(t *testing.T) {
	for status, want := range map[int]string{
		400: "invalid_request_error",
		401: "authentication_error",
		402: "billing_error",
		403: "permission_error",
		404: "not_found_error",
		405: "invalid_request_error",
		408: "timeout_error",
		413: "request_too_large",
		415: "invalid_request_error",
		422: "invalid_request_error",
		429: "rate_limit_error",
		500: "api_error",
		502: "api_error",
		503: "api_error",
		504: "timeout_error",
		529: "overloaded_error",
		418: "api_error",
		0:   "api_error",
	} {
		if got := ErrorTypeForStatus(status); got != want {
			t.Errorf("ErrorTypeForStatus(%d) = %q, want %q", status, got, want)
		}
	}
}

func TestDefaultUpstreamError(t *testing.T) {
	retry := http.Header{"Retry-After": {"30"}}
	long := strings.Repeat("x", 600)
	cases := []struct {
		name   string
		status int
		header http.Header
		body   string
		want   Error
	}{
		{"anthropic shape keeps its type", 529, nil,
			`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}`,
			Error{Status: 529, Type: "overloaded_error", Message: "Overloaded"}},
		{"anthropic shape, type from the body", 400, nil,
			`{"type":"error","error":{"type":"not_found_error","message":"model: x"}}`,
			Error{Status: 400, Type: "not_found_error", Message: "model: x"}},
		{"anthropic shape without inner type", 400, nil,
			`{"type":"error","error":{"message":"bad"}}`,
			Error{Status: 400, Type: "invalid_request_error", Message: "bad"}},
		{"openai shape: type follows the status", 429, retry,
			`{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
			Error{Status: 429, Type: "rate_limit_error", Message: "Rate limit reached", RetryAfter: "30"}},
		{"gemini shape", 400, nil,
			`{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}`,
			Error{Status: 400, Type: "invalid_request_error", Message: "API key not valid."}},
		{"error as a string", 401, nil, `{"error":"invalid token"}`,
			Error{Status: 401, Type: "authentication_error", Message: "invalid token"}},
		{"plain text", 502, nil, "  Bad gateway from nginx\n",
			Error{Status: 502, Type: "api_error", Message: "upstream returned Bad Gateway: Bad gateway from nginx"}},
		{"empty body", 503, retry, "",
			Error{Status: 503, Type: "api_error", Message: "upstream returned Service Unavailable", RetryAfter: "30"}},
		{"JSON without a message", 500, nil, `{"error":{"code":13}}`,
			Error{Status: 500, Type: "api_error", Message: `upstream returned Internal Server Error: {"error":{"code":13}}`}},
		{"array body", 400, nil, `[{"error":{"message":"x"}}]`,
			Error{Status: 400, Type: "invalid_request_error", Message: `upstream returned Bad Request: [{"error":{"message":"x"}}]`}},
		{"long body truncated to 512 bytes", 500, nil, long,
			Error{Status: 500, Type: "api_error", Message: "upstream returned Internal Server Error: " + long[:512]}},
		{"cut rune and invalid UTF-8 replaced", 504, nil, strings.Repeat("a", 511) + "é",
			Error{Status: 504, Type: "timeout_error", Message: "upstream returned Gateway Timeout: " + strings.Repeat("a", 511) + "\uFFFD"}},
		{"invalid UTF-8", 500, nil, "bad \xff byte",
			Error{Status: 500, Type: "api_error", Message: "upstream returned Internal Server Error: bad \uFFFD byte"}},
	}
	for _, tc := range cases {
		got := DefaultUpstreamError(tc.status, tc.header, []byte(tc.body))
		if !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, *got, tc.want)
		}
	}
}

func TestErrorHelpers(t *testing.T) {
	e := InvalidRequest("bad <thing>")
	if !reflect.DeepEqual(*e, Error{Status: 400, Type: "invalid_request_error", Message: "bad <thing>"}) {
		t.Errorf("InvalidRequest = %+v", *e)
	}
	if got := e.Error(); got != "invalid_request_error: bad <thing>" {
		t.Errorf("Error() = %q", got)
	}
	if got := string(e.Body()); got != `{"type":"error","error":{"type":"invalid_request_error","message":"bad \u003cthing\u003e"}}` {
		t.Errorf("Body() = %s", got)
	}
	if a := APIError(502, "down"); !reflect.DeepEqual(*a, Error{Status: 502, Type: "api_error", Message: "down"}) {
		t.Errorf("APIError = %+v", *a)
	}
	if got := AsError(fmt.Errorf("wrapped: %w", e)); got != e {
		t.Errorf("AsError of a wrapped *Error = %+v", got)
	}
	if got := AsError(errors.New("boom")); !reflect.DeepEqual(*got, Error{Status: 500, Type: "api_error", Message: "boom"}) {
		t.Errorf("AsError of a plain error = %+v", *got)
	}
	// An upstream's own error body goes out whole.
	raw := []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}`)
	if got := (&Error{Status: 529, Type: "overloaded_error", Message: "Overloaded", Raw: raw}).Body(); string(got) != string(raw) {
		t.Errorf("Body() with Raw = %s", got)
	}
}
