package responses

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/providers"
	rt "github.com/thinkgate/thinkgate/providers/responses/responsestest"
	"github.com/thinkgate/thinkgate/providers/wire"
)

const messageRequest = `{"model":"claude-test","max_tokens":1024,"messages":[{"role":"user","content":"Hi"}]}`

// TestConvertMessage compares each response object's conversion with its
// golden Message in testdata/messages, which the SDK must also decode; and
// checks that the stream of the same output gives the same blocks.
func TestConvertMessage(t *testing.T) {
	cases := []struct {
		name       string
		b          *rt.Builder
		status     string
		usage      map[string]any
		incomplete string
	}{
		{name: "reasoning_text_call", b: rt.New("resp_1", "gpt-5").Reasoning("rs_1", enc1, []string{partOne, partTwo}, 0).
			Message("msg_1", "Let me check.", 0).Call("fc_1", "call_1", "get_weather", `{"city":"Paris"}`), status: "completed", usage: rt.Usage(120, 100, 80, 64)},
		{name: "redacted_reasoning", b: rt.New("resp_1", "o3").Reasoning("rs_2", "gAAAAsecret", nil, 0).Message("msg_1", "Hi.", 0), status: "completed", usage: rt.Usage(5, 0, 9, 6)},
		{name: "incomplete", b: rt.New("resp_1", "gpt-5").Reasoning("rs_1", enc1, []string{"Long"}, 0), status: "incomplete", incomplete: "max_output_tokens", usage: rt.Usage(9, 0, 16, 16)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := tc.b.Response(tc.status, tc.usage)
			if tc.incomplete != "" {
				var m map[string]any
				_ = json.Unmarshal(body, &m)
				m["incomplete_details"] = map[string]any{"reason": tc.incomplete}
				body, _ = json.Marshal(m)
			}
			x := exchange(t, nil, messageRequest)
			got, err := NewTranslator(x, nil).Message(body)
			if err != nil {
				t.Fatal(err)
			}
			golden.JSON(t, filepath.Join("messages", tc.name+".json"), got)
			var msg anthropic.Message
			if err := json.Unmarshal(got, &msg); err != nil {
				t.Fatalf("SDK cannot decode the Message: %v", err)
			}

			// The stream of the same output accumulates to the same content.
			var up []byte
			if tc.status == "incomplete" {
				up = tc.b.Incomplete(tc.incomplete, tc.usage).Bytes()
			} else {
				up = tc.b.Completed(tc.usage).Bytes()
			}
			out, err := runStream(t, NewTranslator(exchange(t, nil, streamRequest), nil), up, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			_, streamed := summary(t, out)
			a, _ := json.Marshal(streamed.Content)
			b, _ := json.Marshal(msg.Content)
			if string(a) != string(b) || streamed.StopReason != msg.StopReason || streamed.Usage.OutputTokens != msg.Usage.OutputTokens {
				t.Errorf("stream and message differ:\n%s %s\n%s %s", a, streamed.StopReason, b, msg.StopReason)
			}
		})
	}
}

func TestConvertMessageErrors(t *testing.T) {
	cases := []struct {
		body         string
		status       int
		typ, message string
	}{
		{`{"id":"r","object":"response","status":"failed","error":{"code":"server_error","message":"boom"},"output":[]}`, 502, "api_error", "boom"},
		{`{"id":"r","status":"failed","error":{"code":"rate_limit_exceeded","message":"slow down"},"output":[]}`, 429, "rate_limit_error", "slow down"},
		{`{"id":"r","status":"failed","error":{"code":"context_length_exceeded","message":"Your input exceeds the context window."},"output":[]}`, 400, "invalid_request_error", "prompt is too long: Your input exceeds the context window."},
		{`{"id":"r","status":"failed","error":{"code":"invalid_image","message":"bad image"},"output":[]}`, 400, "invalid_request_error", "bad image"},
		{`<html>`, 502, "api_error", "malformed upstream response: body is not a response JSON object"},
	}
	for _, tc := range cases {
		_, err := NewTranslator(exchange(t, nil, messageRequest), nil).Message([]byte(tc.body))
		e, ok := err.(*wire.Error)
		if !ok || e.Status != tc.status || e.Type != tc.typ || e.Message != tc.message {
			t.Errorf("%s: %#v, want %d %s %q", tc.body, err, tc.status, tc.typ, tc.message)
		}
	}
}

func TestCountTokens(t *testing.T) {
	got, err := NewTranslator(&providers.Exchange{CountTokens: true}, nil).Message([]byte(`{"object":"response.input_tokens","input_tokens":1234}`))
	if err != nil || string(got) != `{"input_tokens":1234}` {
		t.Errorf("%s %v", got, err)
	}
	if _, err := CountTokens([]byte(`{"object":"response.input_tokens"}`)); err == nil {
		t.Error("an answer without input_tokens passed")
	}
}

func TestUpstreamError(t *testing.T) {
	e := UpstreamError(400, nil, []byte(`{"error":{"message":"Unsupported parameter: 'temperature' is not supported with this model.","type":"invalid_request_error","param":"temperature","code":"unsupported_parameter"}}`))
	if e.Status != 400 || e.Type != "invalid_request_error" || e.Message != "Unsupported parameter: 'temperature' is not supported with this model." {
		t.Errorf("%#v", e)
	}
	e = UpstreamError(503, nil, []byte(`{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error"}}`))
	if e.Status != 529 || e.Type != "overloaded_error" {
		t.Errorf("%#v", e)
	}
}
