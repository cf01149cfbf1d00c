package gemini

import (
	"net/http"
	"testing"
)

// TestUpstreamError: Gemini's error bodies become Anthropic errors with the
// status and type a client acts on, Gemini's message kept.
func TestUpstreamError(t *testing.T) {
	cases := []struct {
		name       string
		status     int
		header     http.Header
		body       string
		wantStatus int
		wantType   string
		wantMsg    string
		retryAfter string
	}{
		{"bad request", 400, nil,
			`{"error":{"code":400,"message":"* GenerateContentRequest.contents: contents is not specified\n","status":"INVALID_ARGUMENT"}}`,
			400, "invalid_request_error", "* GenerateContentRequest.contents: contents is not specified\n", ""},
		{"invalid API key comes as 400", 400, nil,
			`{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}`,
			401, "authentication_error", "API key not valid. Please pass a valid API key.", ""},
		{"unauthenticated", 401, nil,
			`{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}`,
			401, "authentication_error", "Request had invalid authentication credentials.", ""},
		{"permission", 403, nil,
			`{"error":{"code":403,"message":"Method doesn't allow unregistered callers.","status":"PERMISSION_DENIED"}}`,
			403, "permission_error", "Method doesn't allow unregistered callers.", ""},
		{"unknown model", 404, nil,
			`{"error":{"code":404,"message":"models/gemini-9 is not found for API version v1beta","status":"NOT_FOUND"}}`,
			404, "not_found_error", "models/gemini-9 is not found for API version v1beta", ""},
		{"quota with RetryInfo", 429, nil,
			`{"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure"},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"36.5s"}]}}`,
			429, "rate_limit_error", "You exceeded your current quota.", "37"},
		{"Retry-After header wins", 429, http.Header{"Retry-After": {"5"}},
			`{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"30s"}]}}`,
			429, "rate_limit_error", "slow down", "5"},
		{"internal", 500, nil,
			`{"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}}`,
			500, "api_error", "An internal error has occurred.", ""},
		{"overloaded", 503, nil,
			`{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`,
			529, "overloaded_error", "The model is overloaded. Please try again later.", ""},
		{"deadline", 504, nil,
			`{"error":{"code":504,"message":"Deadline expired before operation could complete.","status":"DEADLINE_EXCEEDED"}}`,
			504, "timeout_error", "Deadline expired before operation could complete.", ""},
		{"array form", 400, nil,
			`[{"error":{"code":400,"message":"Invalid value at 'contents'","status":"INVALID_ARGUMENT"}}]`,
			400, "invalid_request_error", "Invalid value at 'contents'", ""},
		{"not Google's shape", 502, nil, `<html>Bad Gateway</html>`,
			502, "api_error", "upstream returned Bad Gateway: <html>Bad Gateway</html>", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := UpstreamError(c.status, c.header, []byte(c.body))
			if e.Status != c.wantStatus || e.Type != c.wantType || e.Message != c.wantMsg || e.RetryAfter != c.retryAfter {
				t.Errorf("got %d %s %q retry %q\nwant %d %s %q retry %q",
					e.Status, e.Type, e.Message, e.RetryAfter, c.wantStatus, c.wantType, c.wantMsg, c.retryAfter)
			}
		})
	}
}
