package upstreamedge_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/googletest"
	"github.com/thinkgate/thinkgate/internal/testgw"
)

// echoedHeaders writes every header of a request, one "Name: value" after
// another, as an upstream that quotes the request back does.
func echoedHeaders(h http.Header) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s; ", k, strings.Join(h[k], ", "))
	}
	return b.String()
}

// authParts is how an upstream quotes the parts of an Authorization header
// on their own: a SigV4 signature's access key id and signature, or the
// token after the scheme.
func authParts(auth string) string {
	if rest, ok := strings.CutPrefix(auth, "AWS4-HMAC-SHA256 "); ok {
		var id, sig string
		for _, kv := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
			switch k {
			case "Credential":
				id, _, _ = strings.Cut(v, "/")
			case "Signature":
				sig = v
			}
		}
		return "access key " + id + ", signature " + sig
	}
	if _, token, ok := strings.Cut(auth, " "); ok {
		return "token " + token
	}
	return ""
}

// echoText is the message of an echoing upstream's error: the request's
// headers, then its Authorization's parts.
func echoText(h http.Header) string {
	return "request headers: " + echoedHeaders(h) + "parts: " + authParts(h.Get("Authorization"))
}

// echoUpstream answers every request with a 400 whose error message, in
// the upstream's own format, quotes the request's headers.
func echoUpstream(t *testing.T, format string) *testgw.Upstream {
	return testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		msg, _ := json.Marshal(echoText(r.Header))
		w.Header().Set("Content-Type", "application/json")
		var body string
		switch format {
		case "anthropic":
			body = `{"type":"error","error":{"type":"invalid_request_error","message":` + string(msg) + `}}`
		case "openai":
			body = `{"error":{"message":` + string(msg) + `,"type":"invalid_request_error","code":null}}`
		case "google":
			body = `{"error":{"code":400,"message":` + string(msg) + `,"status":"INVALID_ARGUMENT"}}`
		case "aws":
			w.Header().Set("X-Amzn-Errortype", "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/")
			body = `{"message":` + string(msg) + `}`
		}
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(body))
	})
}

// credentialHeaders are the headers that carry a credential upstream.
var credentialHeaders = []string{"Authorization", "X-Api-Key", "Api-Key", "X-Goog-Api-Key", "X-Amz-Security-Token"}

// redactedEcho is what the client may see of echoText: every credential
// header's value, and each part of the Authorization, as [redacted].
func redactedEcho(h http.Header) string {
	parts := authParts(h.Get("Authorization"))
	switch {
	case strings.HasPrefix(parts, "access key "):
		parts = "access key [redacted], signature [redacted]"
	case parts != "":
		parts = "token [redacted]"
	}
	h = h.Clone()
	for _, k := range credentialHeaders {
		if h.Get(k) != "" {
			h.Set(k, "[redacted]")
		}
	}
	return "request headers: " + echoedHeaders(h) + "parts: " + parts
}

// sentSecrets are the credentials of a request as the upstream got it.
func sentSecrets(h http.Header) []string {
	var out []string
	for _, k := range credentialHeaders {
		if v := h.Get(k); v != "" {
			out = append(out, v)
		}
	}
	for _, p := range strings.Split(authParts(h.Get("Authorization")), ", ") {
		if i := strings.LastIndexByte(p, ' '); i >= 0 {
			out = append(out, p[i+1:])
		}
	}
	return out
}

// TestEchoedCredentialsScrubbed: for every provider, an upstream that
// quotes the request's headers in its 400 gets to the client with every
// credential the gateway sent (an api_key, Vertex's access token, Bedrock's
// SigV4 access key id, signature and session token) replaced, streamed and
// not: the client's error is exactly the upstream's, mapped, with
// [redacted] where each credential was.
func TestEchoedCredentialsScrubbed(t *testing.T) {
	ts := googletest.NewTokenServer(t)
	keyFile := ts.WriteKeyFile(t)
	isolateAWS(t)
	t.Setenv("AWS_ACCESS_KEY_ID", testgw.BedrockAccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", testgw.BedrockSecretKey)
	t.Setenv("AWS_SESSION_TOKEN", testgw.BedrockSessionToken)
	bedrockSite := "thinkgate bedrock {\n\tregion us-east-1\n\tmodel claude-* %s\n}\nreverse_proxy %%s"
	for _, c := range []struct {
		name, format, site string
		// want is the client's body, %s the JSON-encoded message.
		want string
	}{
		{"anthropic", "anthropic", "thinkgate anthropic {\n\tapi_key sk-ant-gateway-key-0001\n}\nreverse_proxy %s",
			`{"type":"error","error":{"type":"invalid_request_error","message":%s}}`},
		{"azure", "anthropic", "thinkgate azure {\n\tapi_key azure-gateway-key-0001\n}\nreverse_proxy %s",
			`{"type":"error","error":{"type":"invalid_request_error","message":%s}}`},
		{"openai", "openai", "thinkgate openai {\n\tapi_key sk-openai-gateway-key-0001\n\tmodel claude-* gpt-4.1\n}\nreverse_proxy %s",
			`{"type":"error","error":{"type":"invalid_request_error","message":%s}}`},
		{"responses", "openai", "thinkgate responses {\n\tapi_key sk-responses-gateway-key-0001\n\tmodel claude-* gpt-5\n}\nreverse_proxy %s",
			`{"type":"error","error":{"type":"invalid_request_error","message":%s}}`},
		{"gemini", "google", "thinkgate gemini {\n\tapi_key gemini-gateway-key-0001\n\tmodel claude-* gemini-2.5-flash\n}\nreverse_proxy %s",
			`{"type":"error","error":{"type":"invalid_request_error","message":%s}}`},
		{"vertex gemini", "google", "thinkgate vertex {\n\tproject my-project\n\tlocation us-east5\n\tcredentials_file " + keyFile + "\n\tmodel claude-* gemini-2.5-flash\n}\nreverse_proxy %s",
			`{"type":"error","error":{"type":"invalid_request_error","message":%s}}`},
		{"vertex claude", "anthropic", "thinkgate vertex {\n\tproject my-project\n\tlocation us-east5\n\tcredentials_file " + keyFile + "\n\tmodel claude-* claude-sonnet-4-5@20250929\n}\nreverse_proxy %s",
			`{"type":"error","error":{"type":"invalid_request_error","message":%s}}`},
		{"bedrock invoke", "aws", fmt.Sprintf(bedrockSite, bedrockModel),
			`{"type":"error","error":{"type":"invalid_request_error","message":"ValidationException: %s}}`},
		{"bedrock converse", "aws", fmt.Sprintf(bedrockSite, "amazon.nova-pro-v1:0"),
			`{"type":"error","error":{"type":"invalid_request_error","message":"ValidationException: %s}}`},
		{"amazonq", "aws", "thinkgate amazonq {\n\tapi_key q-gateway-token-0001\n}\nreverse_proxy %s",
			`{"type":"error","error":{"type":"invalid_request_error","message":"ValidationException: %s}}`},
	} {
		up := echoUpstream(t, c.format)
		gw := testgw.Start(t, slot, fmt.Sprintf(c.site, up.Addr()))
		for _, body := range []string{messagesBody, streamBody()} {
			what := c.name + " " + body[:15]
			res, got := gw.PostRead("/v1/messages", body)
			sent := up.Last(t).Header
			secrets := sentSecrets(sent)
			if len(secrets) == 0 {
				t.Fatalf("%s: the upstream got no credential: %v", what, sent)
			}
			msg, _ := json.Marshal(redactedEcho(sent))
			want := fmt.Sprintf(c.want, msg)
			if strings.Contains(c.want, `"ValidationException: %s`) {
				want = fmt.Sprintf(c.want, msg[1:]) // the mapping puts the exception's name first
			}
			checkAnswer(t, what, res, got, http.StatusBadRequest, want)
			for _, s := range secrets {
				if strings.Contains(got, s) {
					t.Errorf("%s: the client got the credential %q", what, s)
				}
			}
		}
	}
}

// TestEchoedCredentialsMidStream: an error an upstream sends inside its
// stream, after content went out, reaches the client as an error event
// with the credentials replaced, and the gateway's own log of it holds
// none of them either: openai's error chunk, Bedrock Converse's and
// InvokeModel's exception frames.
func TestEchoedCredentialsMidStream(t *testing.T) {
	isolateAWS(t)
	t.Setenv("AWS_ACCESS_KEY_ID", testgw.BedrockAccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", testgw.BedrockSecretKey)
	t.Setenv("AWS_SESSION_TOKEN", testgw.BedrockSessionToken)
	for _, c := range []struct {
		name, site string
		stream     func(h http.Header) (contentType string, body []byte)
		// want is the error event's data, %s the JSON-encoded message.
		want string
	}{
		{"openai", "thinkgate openai {\n\tapi_key sk-openai-gateway-key-0001\n\tmodel claude-* gpt-4.1\n}\nreverse_proxy %s",
			func(h http.Header) (string, []byte) {
				msg, _ := json.Marshal(echoText(h))
				return "text/event-stream", []byte(`data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4.1","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}` + "\n\n" +
					`data: {"error":{"message":` + string(msg) + `,"type":"invalid_request_error"}}` + "\n\n")
			},
			`{"type":"error","error":{"type":"invalid_request_error","message":%s}}`},
		{"bedrock converse", fmt.Sprintf("thinkgate bedrock {\n\tregion us-east-1\n\tmodel claude-* %s\n}\nreverse_proxy %%s", "amazon.nova-pro-v1:0"),
			func(h http.Header) (string, []byte) {
				start := testgw.BedrockFrame(map[string]string{":event-type": "messageStart", ":content-type": "application/json", ":message-type": "event"}, []byte(`{"role":"assistant"}`))
				delta := testgw.BedrockFrame(map[string]string{":event-type": "contentBlockDelta", ":content-type": "application/json", ":message-type": "event"}, []byte(`{"contentBlockIndex":0,"delta":{"text":"Hel"}}`))
				return testgw.BedrockEventStreamType, append(append(start, delta...), testgw.BedrockException("validationException", echoText(h))...)
			},
			`{"type":"error","error":{"type":"invalid_request_error","message":"ValidationException: %s}}`},
		{"bedrock invoke", fmt.Sprintf("thinkgate bedrock {\n\tregion us-east-1\n\tmodel claude-* %s\n}\nreverse_proxy %%s", bedrockModel),
			func(h http.Header) (string, []byte) {
				events := testgw.BedrockChunks([]testgw.Event{
					{Data: `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":1}}}`},
					{Data: `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
					{Data: `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}`},
				})
				return testgw.BedrockEventStreamType, append(events, testgw.BedrockException("validationException", echoText(h))...)
			},
			`{"type":"error","error":{"type":"invalid_request_error","message":"ValidationException: %s}}`},
	} {
		up := testgw.NewUpstream(t, nil)
		up.Handler = func(w http.ResponseWriter, r *http.Request) {
			ct, body := c.stream(r.Header)
			testgw.WriteChunks(w, ct, body, 1<<20)
		}
		logFile := filepath.Join(t.TempDir(), "caddy.log")
		p := testgw.PortsFor(slot)
		config := strings.Replace(testgw.Preamble(p), "level ERROR", "output file "+logFile+"\n\t\tlevel WARN", 1) +
			fmt.Sprintf("\nhttp://localhost:%d {\n%s\n}\n", p.HTTP, fmt.Sprintf(c.site, up.Addr()))
		gw := testgw.StartConfig(t, slot, config)
		res := gw.Post("/v1/messages", streamBody())
		events := testgw.ReadEvents(t, res.Body)
		res.Body.Close()
		sent := up.Last(t).Header
		msg, _ := json.Marshal(redactedEcho(sent))
		want := fmt.Sprintf(c.want, msg)
		if strings.Contains(c.want, `"ValidationException: %s`) {
			want = fmt.Sprintf(c.want, msg[1:])
		}
		last := events[len(events)-1]
		if last.Name != "error" || last.Data != want {
			t.Errorf("%s: last event %s %s\nwant error %s", c.name, last.Name, last.Data, want)
		}
		if len(events) < 2 || events[len(events)-2].Name != "content_block_stop" {
			t.Errorf("%s: the error event does not follow the content: %v", c.name, testgw.Summary(t, events))
		}
		// The gateway's own lines; reverse_proxy's "aborting with
		// incomplete response" logs the upstream request's headers with
		// only Authorization and Cookie redacted (docs/security.md says
		// how to filter them).
		var own []string
		for _, line := range strings.Split(testgw.ReadFile(t, logFile), "\n") {
			if strings.Contains(line, `"logger":"http.handlers.thinkgate"`) {
				own = append(own, line)
			}
		}
		log := strings.Join(own, "\n")
		if !strings.Contains(log, "upstream stream failed") {
			t.Errorf("%s: the log does not tell of the failed stream:\n%s", c.name, log)
		}
		for _, s := range sentSecrets(sent) {
			if strings.Contains(last.Data, s) || strings.Contains(log, s) {
				t.Errorf("%s: the credential %q reached the client or the log", c.name, s)
			}
		}
	}
}
