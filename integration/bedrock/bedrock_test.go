// Package bedrock_test runs the bedrock provider inside a real Caddy, in
// front of testgw's Bedrock upstream: every request's SigV4 signature is
// recomputed there with the SDK's signer and the test credentials, and the
// answers are event-stream frames encoded with aws-sdk-go-v2's encoder.
package bedrock_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// slot is this package's own ports (testgw's list names the older packages).
const slot = testgw.SlotBedrock

const (
	modelID   = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	rawTarget = "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/"
	signed    = "bedrock-runtime.us-east-1.amazonaws.com"
)

// claudeEvents is Claude's answer as Bedrock's chunks carry it.
var claudeEvents = []testgw.Event{
	{Data: `{"type":"message_start","message":{"id":"msg_bdrk_01","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":21,"output_tokens":1}}}`},
	{Data: `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`},
	{Data: `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"The user greets; greet back."}}`},
	{Data: `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBbedrocksig"}}`},
	{Data: `{"type":"content_block_stop","index":0}`},
	{Data: `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`},
	{Data: `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hello from "}}`},
	{Data: `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Bedrock! 答案 😀"}}`},
	{Data: `{"type":"content_block_stop","index":1}`},
	{Data: `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":87}}`},
	{Data: `{"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":21,"outputTokenCount":87,"invocationLatency":1200,"firstByteLatency":300}}`},
}

const claudeMessage = `{"id":"msg_bdrk_02","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"Hello from Bedrock!"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":21,"output_tokens":5}}`

var wantSummary = []string{
	"message_start",
	`content_block_start 0 {"type":"thinking","thinking":"","signature":""}`,
	`thinking_delta 0 "The user greets; greet back."`,
	`signature_delta 0 "EqQBbedrocksig"`,
	"content_block_stop 0",
	`content_block_start 1 {"type":"text","text":""}`,
	`text_delta 1 "Hello from Bedrock! 答案 😀"`,
	"content_block_stop 1",
	"message_delta end_turn",
	"message_stop",
}

// bedrockAnswer is the test Bedrock runtime's answer, by action: the event
// stream in writes of chunk bytes, the Message, the token count.
func bedrockAnswer(t *testing.T, stream []byte, chunk int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/invoke-with-response-stream"):
			testgw.WriteChunks(w, testgw.BedrockEventStreamType, stream, chunk)
		case strings.HasSuffix(r.URL.Path, "/invoke"):
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(claudeMessage))
		case strings.HasSuffix(r.URL.Path, "/count-tokens"):
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"inputTokens":42}`))
		default:
			testgw.BedrockError(w, 404, "UnknownOperationException", "unknown operation "+r.URL.Path)
		}
	}
}

// envCredentials puts the test credentials in the SDK's environment chain,
// and nothing else of the machine's AWS setup in reach.
func envCredentials(t *testing.T, up *testgw.BedrockUpstream) {
	isolateAWS(t)
	t.Setenv("AWS_ACCESS_KEY_ID", testgw.BedrockAccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", testgw.BedrockSecretKey)
	t.Setenv("AWS_SESSION_TOKEN", testgw.BedrockSessionToken)
	up.Tokens[testgw.BedrockAccessKey] = testgw.BedrockSessionToken
}

func isolateAWS(t *testing.T) {
	dir := t.TempDir()
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
		"AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

func site(options string, up *testgw.BedrockUpstream, proxyOptions string) string {
	return fmt.Sprintf("thinkgate bedrock {\n\tregion us-east-1\n%s\n\tmodel claude-sonnet %s\n}\nreverse_proxy %s {\n%s\n}", options, modelID, up.Addr(), proxyOptions)
}

func params() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     "claude-sonnet",
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hi"))},
	}
}

// checkSigned: the upstream received the request as signed: the signed
// host, the escaped path, SigV4 with the test key and no credential of the
// client's.
func checkSigned(t *testing.T, c testgw.Captured, action, accessKey string) {
	t.Helper()
	if c.Path != "/model/"+modelID+"/"+action || c.Header.Get("Authorization") == "" {
		t.Errorf("path %q", c.Path)
	}
	if a := c.Header.Get("Authorization"); !strings.HasPrefix(a, "AWS4-HMAC-SHA256 Credential="+accessKey+"/") {
		t.Errorf("authorization %q", a)
	}
	for _, k := range []string{"X-Api-Key", "Anthropic-Version", "Anthropic-Beta", "Cookie"} {
		if v := c.Header.Get(k); v != "" {
			t.Errorf("%s reached Bedrock: %q", k, v)
		}
	}
}

// TestClaudeStream: with the credentials in the environment, a streamed
// request reaches Bedrock signed (the upstream verifies it), and the chunk
// frames, cut into writes of every size down to one byte, come out as
// Claude's events; the SDK accumulates them.
func TestClaudeStream(t *testing.T) {
	stream := testgw.BedrockChunks(claudeEvents)
	for _, chunk := range []int{1, 7, 100, 1 << 16} {
		t.Run(fmt.Sprint(chunk), func(t *testing.T) {
			up := testgw.NewBedrockUpstream(t, bedrockAnswer(t, stream, chunk))
			envCredentials(t, up)
			gw := testgw.Start(t, slot, site("", up, ""))

			msg, types := gw.Stream(params(), optionBeta("interleaved-thinking-2025-05-14"))
			if len(msg.Content) != 2 || msg.Content[0].Thinking != "The user greets; greet back." || msg.Content[0].Signature != "EqQBbedrocksig" ||
				msg.Content[1].Text != "Hello from Bedrock! 答案 😀" {
				t.Fatalf("content %+v", msg.Content)
			}
			if msg.Model != "claude-sonnet" || msg.StopReason != "end_turn" || msg.Usage.InputTokens != 21 || msg.Usage.OutputTokens != 87 || msg.ID != "msg_bdrk_01" {
				t.Errorf("message %q %q %+v %q", msg.Model, msg.StopReason, msg.Usage, msg.ID)
			}
			if len(types) != 11 {
				t.Errorf("events %v", types)
			}
			c := up.Last(t)
			checkSigned(t, c, "invoke-with-response-stream", testgw.BedrockAccessKey)
			if c.Header.Get("X-Amz-Security-Token") != testgw.BedrockSessionToken {
				t.Errorf("session token %q", c.Header.Get("X-Amz-Security-Token"))
			}
			want := `{"max_tokens":1024,"messages":[{"content":[{"text":"Hi","type":"text"}],"role":"user"}],"anthropic_version":"bedrock-2023-05-31","anthropic_beta":["interleaved-thinking-2025-05-14"]}`
			if string(c.Body) != want {
				t.Errorf("body\n%s\nwant\n%s", c.Body, want)
			}

			res := gw.Post("/v1/messages", `{"model":"claude-sonnet","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`,
				"Authorization", "Bearer client-token", "X-Amzn-Bedrock-GuardrailIdentifier", "client-guardrail")
			defer res.Body.Close()
			if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
				t.Fatalf("status %d %v", res.StatusCode, res.Header)
			}
			testgw.Diff(t, "events", testgw.Summary(t, testgw.ReadEvents(t, res.Body)), wantSummary)
			c = up.Last(t)
			if c.Header.Get("X-Amzn-Bedrock-Guardrailidentifier") != "" || !strings.HasPrefix(c.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
				t.Errorf("client headers reached Bedrock: %v", c.Header)
			}
		})
	}
}

// TestClaudeMessage: a non-streaming request goes to /invoke; the Message
// comes back with the client's model name.
func TestClaudeMessage(t *testing.T) {
	up := testgw.NewBedrockUpstream(t, bedrockAnswer(t, nil, 0))
	envCredentials(t, up)
	gw := testgw.Start(t, slot, site("", up, ""))
	res, body := gw.PostRead("/v1/messages", `{"model":"claude-sonnet","max_tokens":1024,"messages":[{"role":"user","content":"Hi"}]}`)
	want := strings.Replace(claudeMessage, `"model":"claude-sonnet-4-5-20250929"`, `"model":"claude-sonnet"`, 1)
	if res.StatusCode != 200 || body != want {
		t.Fatalf("%d %s\nwant %s", res.StatusCode, body, want)
	}
	checkSigned(t, up.Last(t), "invoke", testgw.BedrockAccessKey)

	client := gw.Client()
	msg, err := client.Messages.New(context.Background(), params())
	if err != nil || msg.Content[0].Text != "Hello from Bedrock!" || msg.Usage.OutputTokens != 5 {
		t.Fatalf("SDK: %v %+v", err, msg)
	}
}

// TestCountTokens: count_tokens goes to /count-tokens with the InvokeModel
// body inside; {"inputTokens":42} comes back as {"input_tokens":42}.
func TestCountTokens(t *testing.T) {
	up := testgw.NewBedrockUpstream(t, bedrockAnswer(t, nil, 0))
	envCredentials(t, up)
	gw := testgw.Start(t, slot, site("", up, ""))
	res, body := gw.PostRead("/v1/messages/count_tokens", `{"model":"claude-sonnet","messages":[{"role":"user","content":"Hi"}]}`)
	if res.StatusCode != 200 || body != `{"input_tokens":42}` {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	c := up.Last(t)
	checkSigned(t, c, "count-tokens", testgw.BedrockAccessKey)
	// {"messages":[{"role":"user","content":"Hi"}],"anthropic_version":"bedrock-2023-05-31","max_tokens":1}
	const want = `{"input":{"invokeModel":{"body":"eyJtZXNzYWdlcyI6W3sicm9sZSI6InVzZXIiLCJjb250ZW50IjoiSGkifV0sImFudGhyb3BpY192ZXJzaW9uIjoiYmVkcm9jay0yMDIzLTA1LTMxIiwibWF4X3Rva2VucyI6MX0="}}}`
	if string(c.Body) != want {
		t.Errorf("body %s", c.Body)
	}
	client := gw.Client()
	n, err := client.Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{
		Model:    "claude-sonnet",
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hi"))},
	})
	if err != nil || n.InputTokens != 42 {
		t.Fatalf("SDK: %v %+v", err, n)
	}
}

// TestProfileFile: the credentials come from a named profile of shared
// files the environment points at.
func TestProfileFile(t *testing.T) {
	up := testgw.NewBedrockUpstream(t, bedrockAnswer(t, testgw.BedrockChunks(claudeEvents), 64))
	isolateAWS(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "credentials"), "[default]\naws_access_key_id = AKIDWRONG\naws_secret_access_key = wrong\n\n[team]\naws_access_key_id = AKIDTEAM\naws_secret_access_key = team-secret\n")
	writeFile(t, filepath.Join(dir, "config"), "[profile team]\nregion = eu-west-3\n")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	up.Secrets["AKIDTEAM"] = "team-secret"
	gw := testgw.Start(t, slot, site("\tprofile team", up, ""))
	msg, _ := gw.Stream(params())
	if len(msg.Content) != 2 || msg.Content[1].Text != "Hello from Bedrock! 答案 😀" {
		t.Fatalf("content %+v", msg.Content)
	}
	// The region is the provider's, not the profile's.
	checkSigned(t, up.Last(t), "invoke-with-response-stream", "AKIDTEAM")
	if a := up.Last(t).Header.Get("Authorization"); !strings.Contains(a, "/us-east-1/bedrock/aws4_request") {
		t.Errorf("authorization %q", a)
	}
}

// TestAPIKey: with api_key the request carries the Bedrock API key as a
// bearer token, no signature.
func TestAPIKey(t *testing.T) {
	up := testgw.NewBedrockUpstream(t, bedrockAnswer(t, testgw.BedrockChunks(claudeEvents), 64))
	isolateAWS(t)
	t.Setenv("THINKGATE_TEST_BEDROCK_KEY", testgw.BedrockAPIKey)
	gw := testgw.Start(t, slot, site("\tapi_key {env.THINKGATE_TEST_BEDROCK_KEY}", up, ""))
	msg, _ := gw.Stream(params())
	if len(msg.Content) != 2 {
		t.Fatalf("content %+v", msg.Content)
	}
	c := up.Last(t)
	if c.Header.Get("Authorization") != "Bearer "+testgw.BedrockAPIKey || c.Header.Get("X-Amz-Date") != "" || c.Path != "/model/"+modelID+"/invoke-with-response-stream" {
		t.Errorf("request %s %v", c.Path, c.Header)
	}
}

// TestWrongHost: a header_up Host that replaces the signed host makes
// Bedrock refuse the signature; the client learns why and how to fix it.
func TestWrongHost(t *testing.T) {
	up := testgw.NewBedrockUpstream(t, bedrockAnswer(t, nil, 0))
	envCredentials(t, up)
	gw := testgw.Start(t, slot, site("", up, "\theader_up Host {upstream_hostport}"))
	res, body := gw.PostRead("/v1/messages", `{"model":"claude-sonnet","max_tokens":1024,"messages":[{"role":"user","content":"Hi"}]}`)
	want := `{"type":"error","error":{"type":"api_error","message":"bedrock: the upstream refused the request's signature (InvalidSignatureException: ` +
		testgw.BedrockSignatureMessage + `). The request was signed for host ` + signed + `, but reverse_proxy sent it to ` + up.Addr() +
		`: point reverse_proxy at https://` + signed + ` (with header_up Host {http.reverse_proxy.upstream.host}), or set the bedrock host option to the host reverse_proxy dials"}}`
	if res.StatusCode != 502 || body != want {
		t.Fatalf("%d %s\nwant %s", res.StatusCode, body, want)
	}
	if up.Last(t).Header.Get("Authorization") == "" {
		t.Error("the upstream got no signature")
	}
}

// TestExceptionBeforeFirstEvent: an exception frame first is a real HTTP
// status with Anthropic's error body; a too-long input reads as Anthropic's
// "prompt is too long".
func TestExceptionBeforeFirstEvent(t *testing.T) {
	for _, tc := range []struct {
		name, message string
		status        int
		body          string
	}{
		{"throttlingException", "Too many requests, please wait before trying again.", 429,
			`{"type":"error","error":{"type":"rate_limit_error","message":"ThrottlingException: Too many requests, please wait before trying again."}}`},
		{"validationException", "Input is too long for requested model.", 400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: Input is too long for requested model. (ValidationException)"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := testgw.NewBedrockUpstream(t, bedrockAnswer(t, testgw.BedrockException(tc.name, tc.message), 3))
			envCredentials(t, up)
			gw := testgw.Start(t, slot, site("", up, ""))
			res, body := gw.PostRead("/v1/messages", `{"model":"claude-sonnet","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`)
			if res.StatusCode != tc.status || body != tc.body {
				t.Fatalf("%d %s\nwant %d %s", res.StatusCode, body, tc.status, tc.body)
			}
		})
	}
}

// TestExceptionAfterFirstEvent: an exception after Claude's first events
// closes the open block and ends the stream with an error event.
func TestExceptionAfterFirstEvent(t *testing.T) {
	stream := append(testgw.BedrockChunks(claudeEvents[:7]), testgw.BedrockException("modelStreamErrorException", "The model stream failed.")...)
	up := testgw.NewBedrockUpstream(t, bedrockAnswer(t, stream, 5))
	envCredentials(t, up)
	gw := testgw.Start(t, slot, site("", up, ""))
	res := gw.Post("/v1/messages", `{"model":"claude-sonnet","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`)
	defer res.Body.Close()
	events := testgw.ReadEvents(t, res.Body)
	testgw.Diff(t, "events", testgw.Summary(t, events), append(wantSummary[:6:6],
		`text_delta 1 "Hello from "`,
		"content_block_stop 1",
		`error {"type":"api_error","message":"ModelStreamErrorException: The model stream failed."}`,
	))
}

// TestCutStream: an upstream that stops inside a frame ends the client's
// stream with an error event naming it.
func TestCutStream(t *testing.T) {
	full := testgw.BedrockChunks(claudeEvents)
	cut := full[:len(testgw.BedrockChunks(claudeEvents[:7]))+30]
	up := testgw.NewBedrockUpstream(t, bedrockAnswer(t, cut, 16))
	envCredentials(t, up)
	gw := testgw.Start(t, slot, site("", up, ""))
	res := gw.Post("/v1/messages", `{"model":"claude-sonnet","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`)
	defer res.Body.Close()
	events := testgw.ReadEvents(t, res.Body)
	last := events[len(events)-1]
	if last.Name != "error" || last.Data != `{"type":"error","error":{"type":"api_error","message":"malformed upstream event stream: event stream ended inside a frame (30 bytes of it received)"}}` {
		t.Errorf("last event %+v", last)
	}
}

// TestNoCredentials: a chain with no credential at all fails the request
// with a 502 that says so, not a hang.
func TestNoCredentials(t *testing.T) {
	up := testgw.NewBedrockUpstream(t, bedrockAnswer(t, nil, 0))
	isolateAWS(t)
	gw := testgw.Start(t, slot, site("\tcredential_timeout 3s", up, ""))
	res, body := gw.PostRead("/v1/messages", `{"model":"claude-sonnet","max_tokens":1024,"messages":[{"role":"user","content":"Hi"}]}`)
	if res.StatusCode != 502 || !strings.HasPrefix(body, `{"type":"error","error":{"type":"api_error","message":"bedrock: the AWS credentials could not be loaded: `) {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	if len(up.Requests()) != 0 {
		t.Error("an unsigned request reached the upstream")
	}
}

// TestBrokenProfile: a profile that does not exist fails the config load,
// naming the option.
func TestBrokenProfile(t *testing.T) {
	isolateAWS(t)
	p := testgw.PortsFor(slot)
	msg := testgw.LoadError(t, slot, testgw.Preamble(p)+fmt.Sprintf("\nhttp://localhost:%d {\nthinkgate bedrock {\n\tregion us-east-1\n\tprofile nope\n}\nreverse_proxy 127.0.0.1:9\n}\n", p.HTTP))
	if !strings.Contains(msg, `profile: loading AWS profile "nope": `) {
		t.Errorf("%s", msg)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestHostOption: with host set to the name reverse_proxy dials and the
// documented header_up Host line, the signature covers the Host sent.
func TestHostOption(t *testing.T) {
	up := testgw.NewBedrockUpstream(t, bedrockAnswer(t, testgw.BedrockChunks(claudeEvents), 64))
	envCredentials(t, up)
	gw := testgw.Start(t, slot, site("\thost 127.0.0.1", up, "\theader_up Host {http.reverse_proxy.upstream.host}"))
	msg, _ := gw.Stream(params())
	if len(msg.Content) != 2 {
		t.Fatalf("content %+v", msg.Content)
	}
	if h := up.Last(t).Header.Get("Authorization"); !strings.HasPrefix(h, "AWS4-HMAC-SHA256 ") {
		t.Errorf("authorization %q", h)
	}
}
