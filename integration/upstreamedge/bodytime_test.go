package upstreamedge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// slot is this package's own ports (testgw's list names the older packages).
const slot = testgw.SlotUpstreamEdge

// bound is the upstream_body_timeout (or credential bound) the tests
// configure: short, so that each test ends soon after it runs out.
const bound = "300ms"

// trickle answers status with contentType and then sends body one byte at a
// time, 20ms apart: never silent for long, and never done within a test's
// bounds. It stops when the gateway gives up on it; ended, when set, learns
// of that.
func trickle(status int, contentType, body string, ended chan<- struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if ended != nil {
			defer func() { ended <- struct{}{} }()
		}
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for i := 0; i < len(body); i++ {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
			}
			if _, err := w.Write([]byte{body[i]}); err != nil {
				return
			}
			if rc.Flush() != nil {
				return
			}
		}
	}
}

// padded is a JSON body that takes minutes to trickle out.
func padded(prefix, suffix string) string {
	return prefix + strings.Repeat(" ", 20000) + suffix
}

var (
	openaiErrorBody = padded(`{"error":{"message":"first step says 500",`, `"type":"server_error"}}`)
	openaiMessage   = padded(`{"id":"chatcmpl-1","object":"chat.completion",`, `"model":"gpt-4.1-mini","choices":[]}`)
)

const answerText = "Hello from the second step."

// openaiAnswer answers a Chat Completions request, streamed or not, at once.
func openaiAnswer(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if strings.Contains(string(body), `"stream":true`) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"id":"c2","object":"chat.completion.chunk","model":"gpt-4.1","choices":[{"index":0,"delta":{"role":"assistant","content":"`+answerText+`"},"finish_reason":null}]}`+"\n\n")
		io.WriteString(w, `data: {"id":"c2","object":"chat.completion.chunk","model":"gpt-4.1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":5,"total_tokens":14}}`+"\n\n")
		io.WriteString(w, "data: [DONE]\n\n")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"id":"chatcmpl-2","object":"chat.completion","created":1730000000,"model":"gpt-4.1","choices":[{"index":0,"message":{"role":"assistant","content":"`+
		answerText+`"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":5,"total_tokens":14}}`)
}

// openaiSite is a thinkgate openai in front of addr, with options.
func openaiSite(options, addr string) string {
	return fmt.Sprintf("thinkgate openai {\n\tapi_key sk-openai-gateway-key\n\tmodel claude-* gpt-4.1\n%s\n}\nreverse_proxy %s", options, addr)
}

// fallbackSite tries first, then an openai step in front of second.
func fallbackSite(first, second string) string {
	return fmt.Sprintf("header >X-Fallback-Step {http.thinkgate.fallback.step}\nthinkgate_fallback {\n\ttry {\n%s\n\t}\n\ttry {\n%s\n\t}\n}",
		first, openaiSite("", second))
}

func params() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     "claude-sonnet-4-5",
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Say hello."))},
	}
}

const messagesBody = `{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"Say hello."}]}`

func streamBody() string {
	return strings.Replace(messagesBody, `{"model"`, `{"stream":true,"model"`, 1)
}

// apiError is the client's body for an Anthropic api_error with msg.
func apiError(msg string) string {
	b, _ := json.Marshal(msg)
	return `{"type":"error","error":{"type":"api_error","message":` + string(b) + `}}`
}

// checkAnswer: the client got status and exactly body.
func checkAnswer(t *testing.T, what string, res *http.Response, body string, status int, want string) {
	t.Helper()
	if res.StatusCode != status || body != want {
		t.Errorf("%s: %d %s\nwant %d %s", what, res.StatusCode, body, status, want)
	}
}

// checkSecondStep: the SDK got the second step's answer, streamed and not.
func checkSecondStep(t *testing.T, gw *testgw.Gateway) {
	t.Helper()
	client := gw.Client()
	msg, err := client.Messages.New(context.Background(), params())
	if err != nil {
		t.Fatalf("message: %v", err)
	}
	if len(msg.Content) != 1 || msg.Content[0].Text != answerText {
		t.Errorf("message content: %+v", msg.Content)
	}
	streamed, _ := gw.Stream(params())
	if len(streamed.Content) != 1 || streamed.Content[0].Text != answerText {
		t.Errorf("stream content: %+v", streamed.Content)
	}
}

// TestErrorBodyTrickle: an upstream that answers 500 and trickles its
// error body is cut off at upstream_body_timeout: the client gets a 502
// api_error naming the bound, streamed or not.
func TestErrorBodyTrickle(t *testing.T) {
	up := testgw.NewUpstream(t, trickle(500, "application/json", openaiErrorBody, nil))
	gw := testgw.Start(t, slot, openaiSite("\tupstream_body_timeout "+bound, up.Addr()))
	want := apiError("the upstream answered 500, and its body did not arrive whole within 300ms (upstream_body_timeout)")
	for _, body := range []string{messagesBody, streamBody()} {
		res, got := gw.PostRead("/v1/messages", body)
		checkAnswer(t, body[:20], res, got, http.StatusBadGateway, want)
	}
}

// TestErrorBodyTrickleFallsOver: in a thinkgate_fallback, the same upstream
// fails its step over on its status (500): the client gets the second
// step's answer.
func TestErrorBodyTrickleFallsOver(t *testing.T) {
	first := testgw.NewUpstream(t, trickle(500, "application/json", openaiErrorBody, nil))
	second := testgw.NewUpstream(t, openaiAnswer)
	gw := testgw.Start(t, slot, fallbackSite(openaiSite("\tupstream_body_timeout "+bound, first.Addr()), second.Addr()))
	checkSecondStep(t, gw)
	if n := len(first.Requests()); n != 2 {
		t.Errorf("the first step's upstream got %d requests, want 2", n)
	}
}

// TestMessageBodyTrickle: a 200 whose non-streaming Message trickles in is
// cut off the same way; in a fallback it counts as a timeout and moves on.
func TestMessageBodyTrickle(t *testing.T) {
	up := testgw.NewUpstream(t, trickle(200, "application/json", openaiMessage, nil))
	gw := testgw.Start(t, slot, openaiSite("\tupstream_body_timeout "+bound, up.Addr()))
	res, got := gw.PostRead("/v1/messages", messagesBody)
	checkAnswer(t, "alone", res, got, http.StatusBadGateway,
		apiError("the upstream's answer did not arrive whole within 300ms (upstream_body_timeout)"))

	second := testgw.NewUpstream(t, openaiAnswer)
	gw = testgw.Start(t, slot, fallbackSite(openaiSite("\tupstream_body_timeout "+bound, up.Addr()), second.Addr()))
	client := gw.Client()
	msg, err := client.Messages.New(context.Background(), params())
	if err != nil {
		t.Fatalf("message: %v", err)
	}
	if len(msg.Content) != 1 || msg.Content[0].Text != answerText {
		t.Errorf("message content: %+v", msg.Content)
	}
}

// TestCountTokensTrickle: a count_tokens answer read whole (gemini's
// countTokens) is bounded too.
func TestCountTokensTrickle(t *testing.T) {
	up := testgw.NewUpstream(t, trickle(200, "application/json", padded(`{"totalTokens":`, `42}`), nil))
	gw := testgw.Start(t, slot, fmt.Sprintf("thinkgate gemini {\n\tapi_key gemini-gateway-key\n\tmodel claude-* gemini-2.5-flash\n\tupstream_body_timeout %s\n}\nreverse_proxy %s", bound, up.Addr()))
	res, got := gw.PostRead("/v1/messages/count_tokens", `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"Say hello."}]}`)
	checkAnswer(t, "count_tokens", res, got, http.StatusBadGateway,
		apiError("the upstream's answer did not arrive whole within 300ms (upstream_body_timeout)"))
}

// TestPassedErrorTrickleFallsOver: an anthropic step that passes its
// upstream's error through as it comes (no credential of the gateway's to
// scrub from it) is bounded the same way, and its cut-off body, which the
// fallback kept from the client, does not end the request: the second
// step answers.
func TestPassedErrorTrickleFallsOver(t *testing.T) {
	first := testgw.NewUpstream(t, trickle(529, "application/json",
		padded(`{"type":"error","error":{"type":"overloaded_error",`, `"message":"Overloaded"}}`), nil))
	second := testgw.NewUpstream(t, openaiAnswer)
	step := fmt.Sprintf("thinkgate anthropic {\n\tupstream_body_timeout %s\n}\nreverse_proxy %s", bound, first.Addr())
	gw := testgw.Start(t, slot, fallbackSite(step, second.Addr()))
	checkSecondStep(t, gw)
}
