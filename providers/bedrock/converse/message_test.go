package converse

import (
	"net/http"
	"testing"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

const messageRequest = `{"model":"us.anthropic.claude-sonnet-4-5-20250929-v1:0","max_tokens":1024,"messages":[{"role":"user","content":"Hi"}]}`

// translateWhole translates a whole 2xx answer for a non-streaming request.
func translateWhole(t *testing.T, s *providers.Settings, contentType string, body []byte) ([]byte, error) {
	t.Helper()
	x := exchange(t, s, "", messageRequest)
	h := NewTranslator(x, &State{}).Handle(200, http.Header{"Content-Type": {contentType}})
	if h.Body == nil {
		t.Fatal("a 2xx answer to a non-streaming request is not translated whole")
	}
	return h.Body(body)
}

func TestMessage(t *testing.T) {
	for _, tc := range []struct {
		golden   string
		settings func(*providers.Settings)
		body     string
	}{
		{golden: "reasoning_text_tool", body: `{"output":{"message":{"role":"assistant","content":[` +
			`{"reasoningContent":{"reasoningText":{"text":"` + thought + `","signature":"` + claudeSig + `"}}},` +
			`{"text":"` + answer + `"},{"toolUse":{"toolUseId":"tooluse_abc","name":"get_weather","input":{"city":"Paris"}}}]}},` +
			`"stopReason":"tool_use","usage":{"inputTokens":12,"outputTokens":80,"totalTokens":1292,"cacheReadInputTokens":1000,"cacheWriteInputTokens":200},"metrics":{"latencyMs":900}}`},
		{golden: "redacted", body: `{"output":{"message":{"role":"assistant","content":[{"reasoningContent":{"redactedContent":"cmVkYWN0ZWQ="}},{"text":"Done."}]}},"stopReason":"end_turn","usage":{"inputTokens":3,"outputTokens":4,"totalTokens":7}}`},
		{golden: "split_tags", settings: func(s *providers.Settings) { s.SplitTags = true },
			body: `{"output":{"message":{"role":"assistant","content":[{"text":"<thinking>plan</thinking>Answer."}]}},"stopReason":"end_turn","usage":{"inputTokens":3,"outputTokens":4,"totalTokens":7}}`},
		{golden: "guardrail", body: `{"output":{"message":{"role":"assistant","content":[{"text":"Sorry, the model cannot answer this question."}]}},"stopReason":"guardrail_intervened","usage":{"inputTokens":3,"outputTokens":0,"totalTokens":3}}`},
		{golden: "stop_sequence", body: `{"output":{"message":{"role":"assistant","content":[{"text":"1, 2, 3"}]}},"stopReason":"stop_sequence","additionalModelResponseFields":{"stop_sequence":"4"},"usage":{"inputTokens":3,"outputTokens":5,"totalTokens":8}}`},
		{golden: "tool_without_input", body: `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"t1","name":"now"}}]}},"stopReason":"tool_use","usage":{"inputTokens":3,"outputTokens":1,"totalTokens":4}}`},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			s := testSettings()
			if tc.settings != nil {
				tc.settings(s)
			}
			out, err := translateWhole(t, s, "application/json", []byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			golden.JSON(t, "messages/"+tc.golden+".json", out)
		})
	}
}

// A streamed answer to a non-streaming request is collected into the
// Message the same blocks make.
func TestMessageFromEventStream(t *testing.T) {
	upstream := new(frames).start().reasoning(0, claudeSig, "The user greets me. ", "I answer and check the weather.").
		text(1, "Hello! ", "Let me check.").tool(2, "tooluse_abc", "get_weather", `{"city":`, `"Paris"}`).
		stop("tool_use").metadata(12, 80, 1000, 200).bytes()
	out, err := translateWhole(t, nil, EventStreamType, upstream)
	if err != nil {
		t.Fatal(err)
	}
	golden.JSON(t, "messages/reasoning_text_tool.json", out)
}

func TestMessageErrors(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"an AWS error under a 200", `{"message":"Operation not allowed","__type":"AccessDeniedException"}`, 403,
			`{"type":"error","error":{"type":"permission_error","message":"AccessDeniedException: Operation not allowed"}}`},
		{"not JSON", `<html>`, 502, `{"type":"error","error":{"type":"api_error","message":"malformed upstream response: Converse answer without output.message: \u003chtml\u003e"}}`},
		{"no output", `{"stopReason":"end_turn"}`, 502, `{"type":"error","error":{"type":"api_error","message":"malformed upstream response: Converse answer without output.message: {\"stopReason\":\"end_turn\"}"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := translateWhole(t, nil, "application/json", []byte(tc.body))
			e, ok := err.(*wire.Error)
			if !ok || e.Status != tc.status || string(e.Body()) != tc.want {
				t.Fatalf("got %#v\nwant %d %s", err, tc.status, tc.want)
			}
		})
	}
}

func TestCountTokens(t *testing.T) {
	x := exchange(t, nil, "/v1/messages/count_tokens", messageRequest)
	h := NewTranslator(x, &State{}).Handle(200, http.Header{"Content-Type": {"application/json"}})
	out, err := h.Body([]byte(`{"inputTokens":1234}`))
	if err != nil || string(out) != `{"input_tokens":1234}` {
		t.Fatalf("got %s, %v", out, err)
	}
	for _, bad := range []string{`{"tokens":1}`, `[]`, ``, `{"inputTokens":-1}`} {
		_, err := h.Body([]byte(bad))
		e, ok := err.(*wire.Error)
		if !ok || e.Status != 502 || e.Type != "api_error" {
			t.Errorf("%q: got %#v", bad, err)
		}
	}
}

// Non-2xx answers are AWS error documents: the exception (the
// x-amzn-ErrorType header or __type) decides the status and type.
func TestUpstreamErrors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		status    int
		errorType string
		body      string
		want      int
		wantBody  string
	}{
		{"validation", 400, "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/", `{"message":"The model returned the following errors: messages.1: roles must alternate"}`,
			400, `{"type":"error","error":{"type":"invalid_request_error","message":"ValidationException: The model returned the following errors: messages.1: roles must alternate"}}`},
		{"prompt too long", 400, "ValidationException", `{"message":"Input is too long for requested model."}`,
			400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: Input is too long for requested model. (ValidationException)"}}`},
		{"throttling", 429, "ThrottlingException", `{"message":"Too many requests, please wait before trying again."}`,
			429, `{"type":"error","error":{"type":"rate_limit_error","message":"ThrottlingException: Too many requests, please wait before trying again."}}`},
		{"access denied", 403, "AccessDeniedException", `{"Message":"You don't have access to the model with the specified model ID."}`,
			403, `{"type":"error","error":{"type":"permission_error","message":"AccessDeniedException: You don't have access to the model with the specified model ID."}}`},
		{"model not found", 404, "ResourceNotFoundException", `{"message":"Model not found."}`,
			404, `{"type":"error","error":{"type":"not_found_error","message":"ResourceNotFoundException: Model not found."}}`},
		{"model error", 424, "ModelErrorException", `{"message":"The model failed."}`,
			502, `{"type":"error","error":{"type":"api_error","message":"ModelErrorException: The model failed."}}`},
		{"model timeout", 408, "ModelTimeoutException", `{"message":"Model has timed out in processing the request."}`,
			504, `{"type":"error","error":{"type":"timeout_error","message":"ModelTimeoutException: Model has timed out in processing the request."}}`},
		{"not an AWS error", 502, "", `<html>Bad Gateway</html>`,
			502, `{"type":"error","error":{"type":"api_error","message":"upstream returned Bad Gateway: \u003chtml\u003eBad Gateway\u003c/html\u003e"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := exchange(t, nil, "", streamRequest)
			header := http.Header{"Content-Type": {"application/json"}, "Retry-After": {"7"}}
			if tc.errorType != "" {
				header.Set("X-Amzn-Errortype", tc.errorType)
			}
			h := NewTranslator(x, nil).Handle(tc.status, header)
			if h.Error == nil {
				t.Fatal("a non-2xx answer is not mapped as an error")
			}
			e := h.Error(tc.status, header, []byte(tc.body))
			if e.Status != tc.want || string(e.Body()) != tc.wantBody || e.RetryAfter != "7" {
				t.Fatalf("got %d %s (Retry-After %q)\nwant %d %s", e.Status, e.Body(), e.RetryAfter, tc.want, tc.wantBody)
			}
		})
	}
}
