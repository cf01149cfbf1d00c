package bedrock

import (
	"net/http"
	"testing"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

func awsError(exception string) http.Header {
	return http.Header{"X-Amzn-Errortype": {exception + ":http://internal.amazon.com/coral/com.amazon.bedrock/"}, "Retry-After": {"3"}}
}

// TestUpstreamErrors: Bedrock's error responses (x-amzn-ErrorType and
// {"message":…}) become the Anthropic error of their exception.
func TestUpstreamErrors(t *testing.T) {
	p := keyProvider(t, Config{API: APIInvoke})
	for _, tc := range []struct {
		status    int
		exception string
		body      string
		want      wire.Error
	}{
		{400, "ValidationException", `{"message":"Input is too long for requested model."}`,
			wire.Error{Status: 400, Type: "invalid_request_error", Message: "prompt is too long: Input is too long for requested model. (ValidationException)", RetryAfter: "3"}},
		{429, "ThrottlingException", `{"message":"Too many tokens, please wait before trying again."}`,
			wire.Error{Status: 429, Type: "rate_limit_error", Message: "ThrottlingException: Too many tokens, please wait before trying again.", RetryAfter: "3"}},
		{403, "AccessDeniedException", `{"message":"You don't have access to the model with the specified model ID."}`,
			wire.Error{Status: 403, Type: "permission_error", Message: "AccessDeniedException: You don't have access to the model with the specified model ID.", RetryAfter: "3"}},
		{404, "ResourceNotFoundException", `{"message":"Model not found."}`,
			wire.Error{Status: 404, Type: "not_found_error", Message: "ResourceNotFoundException: Model not found.", RetryAfter: "3"}},
		{503, "ServiceUnavailableException", `{"message":"Bedrock is unable to process your request."}`,
			wire.Error{Status: 503, Type: "api_error", Message: "ServiceUnavailableException: Bedrock is unable to process your request.", RetryAfter: "3"}},
	} {
		for _, stream := range []bool{false, true} {
			body := streamRequest
			if !stream {
				body = `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"Hi"}]}`
			}
			x := exchange(t, testSettings(false), body, "/v1/messages")
			tr, err := p.Rewrite(x, &providers.Outbound{Header: http.Header{}, ProxyHost: func() string { return "127.0.0.1:9" }})
			if err != nil {
				t.Fatal(err)
			}
			h := tr.Handle(tc.status, awsError(tc.exception))
			if h.Error == nil || h.UpstreamHeader {
				t.Fatalf("%s: handling %+v", tc.exception, h)
			}
			if got := h.Error(tc.status, awsError(tc.exception), []byte(tc.body)); string(got.Body()) != string(tc.want.Body()) || got.Status != tc.want.Status || got.RetryAfter != tc.want.RetryAfter {
				t.Errorf("%s (stream %v): %+v, want %+v", tc.exception, stream, *got, tc.want)
			}
		}
	}
}

// TestSignatureHostMismatch: Bedrock's refusal of a signature, when
// reverse_proxy dialled another host than the signed one, is an error that
// names both hosts and the fix; dialled at the signed host's port 443, the
// refusal says which Host the signature needs; dialled at the signed host
// itself, it stays Bedrock's own.
func TestSignatureHostMismatch(t *testing.T) {
	p := sigV4Provider(t, Config{API: APIInvoke})
	const msg = `{"message":"The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."}`
	const bedrockMsg = "InvalidSignatureException: The request signature we calculated does not match the signature you provided. " +
		"Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
	for used, want := range map[string]wire.Error{
		"127.0.0.1:8443": {Status: 502, Type: "api_error", Message: "bedrock: the upstream refused the request's signature (" + bedrockMsg + "). " +
			"The request was signed for host bedrock-runtime.us-east-1.amazonaws.com, but reverse_proxy sent it to 127.0.0.1:8443: " +
			"point reverse_proxy at https://bedrock-runtime.us-east-1.amazonaws.com (with header_up Host {http.reverse_proxy.upstream.host}), " +
			"or set the bedrock host option to the host reverse_proxy dials"},
		"bedrock-runtime.us-east-1.amazonaws.com:443": {Status: 403, Type: "permission_error", Message: bedrockMsg +
			" (the request was signed for host bedrock-runtime.us-east-1.amazonaws.com; to an https upstream reverse_proxy sends " +
			"bedrock-runtime.us-east-1.amazonaws.com:443 as the Host unless it has header_up Host {http.reverse_proxy.upstream.host}, " +
			"which the signature needs; with that line in place, the AWS credentials are wrong)"},
		"bedrock-runtime.us-east-1.amazonaws.com": {Status: 403, Type: "permission_error", Message: bedrockMsg},
	} {
		x := exchange(t, testSettings(false), streamRequest, "/v1/messages")
		tr, err := p.Rewrite(x, &providers.Outbound{Header: http.Header{}, ProxyHost: func() string { return used }})
		if err != nil {
			t.Fatal(err)
		}
		hdr := http.Header{"X-Amzn-Errortype": {"InvalidSignatureException:http://internal.amazon.com/coral/com.amazon.coral.service/"}}
		if got := tr.Handle(403, hdr).Error(403, hdr, []byte(msg)); string(got.Body()) != string(want.Body()) || got.Status != want.Status {
			t.Errorf("dialled %s:\n%+v\nwant\n%+v", used, *got, want)
		}
	}
}
