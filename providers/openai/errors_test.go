package openai

import (
	"net/http"
	"testing"
)

func TestUpstreamError(t *testing.T) {
	const overloaded = `{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error","param":null,"code":null}}`
	for _, tc := range []struct {
		name       string
		status     int
		retryAfter string
		body       string
		wantStatus int
		wantType   string
		wantMsg    string
	}{
		{"400", 400, "", `{"error":{"message":"Invalid 'messages[1].content': string too long.","type":"invalid_request_error","param":"messages[1].content","code":"string_above_max_length"}}`,
			400, "invalid_request_error", "Invalid 'messages[1].content': string too long."},
		{"400 context length", 400, "", `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
			400, "invalid_request_error", "prompt is too long: This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens."},
		{"401", 401, "", `{"error":{"message":"Incorrect API key provided: sk-abc. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			401, "authentication_error", "Incorrect API key provided: sk-abc. You can find your API key at https://platform.openai.com/account/api-keys."},
		{"402 DeepSeek", 402, "", `{"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,"code":"invalid_request_error"}}`,
			402, "billing_error", "Insufficient Balance"},
		{"403", 403, "", `{"error":{"message":"Country, region, or territory not supported","type":"request_forbidden","param":null,"code":"unsupported_country_region_territory"}}`,
			403, "permission_error", "Country, region, or territory not supported"},
		{"404", 404, "", `{"error":{"message":"The model 'gpt-9' does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`,
			404, "not_found_error", "The model 'gpt-9' does not exist or you do not have access to it."},
		{"404 Ollama", 404, "", `{"error":"model \"llama9\" not found, try pulling it first"}`,
			404, "not_found_error", `model "llama9" not found, try pulling it first`},
		{"413", 413, "", `<html><body>413 Request Entity Too Large</body></html>`,
			413, "request_too_large", "upstream returned Request Entity Too Large: <html><body>413 Request Entity Too Large</body></html>"},
		{"422 vLLM top-level", 422, "", `{"object":"error","message":"max_tokens must be at least 1, got 0.","type":"BadRequestError","param":null,"code":400}`,
			422, "invalid_request_error", "max_tokens must be at least 1, got 0."},
		{"422 FastAPI detail", 422, "", `{"detail":"Field required: messages"}`,
			422, "invalid_request_error", "Field required: messages"},
		{"429 Retry-After", 429, "20", `{"error":{"message":"Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
			429, "rate_limit_error", "Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000."},
		{"500", 500, "", `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`,
			500, "api_error", "The server had an error while processing your request. Sorry about that!"},
		{"502 overloaded", 502, "", `{"error":{"message":"Provider is over capacity","code":502}}`,
			529, "overloaded_error", "Provider is over capacity"},
		{"502 plain", 502, "", `{"error":{"message":"Provider returned error","code":502}}`,
			502, "api_error", "Provider returned error"},
		{"503 overloaded", 503, "5", overloaded,
			529, "overloaded_error", "The engine is currently overloaded, please try again later"},
		{"503 DeepSeek busy", 503, "", `{"error":{"message":"Server is busy, please try again later.","type":"service_unavailable_error"}}`,
			529, "overloaded_error", "Server is busy, please try again later."},
		{"503 plain text overloaded", 503, "", "upstream overloaded",
			529, "overloaded_error", "upstream returned Service Unavailable: upstream overloaded"},
		{"503 maintenance", 503, "", `{"error":{"message":"Service temporarily unavailable for maintenance","type":"server_error"}}`,
			503, "api_error", "Service temporarily unavailable for maintenance"},
		{"504", 504, "", "", 504, "timeout_error", "upstream returned Gateway Timeout"},
		{"500 overloaded stays 500", 500, "", overloaded,
			500, "api_error", "The engine is currently overloaded, please try again later"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.retryAfter != "" {
				h.Set("Retry-After", tc.retryAfter)
			}
			e := UpstreamError(tc.status, h, []byte(tc.body))
			if e.Status != tc.wantStatus || e.Type != tc.wantType || e.Message != tc.wantMsg || e.RetryAfter != tc.retryAfter {
				t.Errorf("got %d %s %q retry %q\nwant %d %s %q retry %q", e.Status, e.Type, e.Message, e.RetryAfter,
					tc.wantStatus, tc.wantType, tc.wantMsg, tc.retryAfter)
			}
		})
	}
}
