// Package anthropic_test checks the anthropic provider's passthrough through
// a real Caddy: what the upstream receives (key, headers, query, body) and
// that the client gets the upstream's response untouched.
package anthropic_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/providers/emit"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

const signingKey = "test-signing-key"

func site(options string, up *testgw.Upstream) string {
	return fmt.Sprintf("thinkgate anthropic {\n\tsigning_key %s\n%s\n}\nreverse_proxy %s", signingKey, options, up.Addr())
}

// upstreamSSE is an Anthropic stream with a signed thinking block, a text
// block and a tool_use block, as api.anthropic.com sends it.
var upstreamSSE = testgw.SSE(
	testgw.Event{Name: "message_start", Data: `{"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":472,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":2}}}`},
	testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`},
	testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"The user wants the weather in Paris. "}}`},
	testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"I'll call get_weather."}}`},
	testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCkgIBxABGAIiQL5nYv0vLzVzWw=="}}`},
	testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":0}`},
	testgw.Event{Name: "ping", Data: `{"type": "ping"}`},
	testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`},
	testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Let me check <that> for you."}}`},
	testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":1}`},
	testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}}`},
	testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}`},
	testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Pa"}}`},
	testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"ris\"}"}}`},
	testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":2}`},
	testgw.Event{Name: "message_delta", Data: `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}`},
	testgw.Event{Name: "message_stop", Data: `{"type":"message_stop"}`},
)

const messageJSON = `{"id":"msg_01Nonstream","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"Paris is <b>rainy</b> & mild."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":9}}`

const requestJSON = `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"thinking":{"type":"enabled","budget_tokens":2048},"metadata":{"user_id":"u1"},"unknown_field":{"kept":true},"messages":[{"role":"user","content":"What's the weather in Paris? <b>bold</b> & more"}]}`

// TestAuth: with api_key the upstream sees only the gateway's key, whatever
// the client sent; without it, the client's credential goes through as sent.
func TestAuth(t *testing.T) {
	cases := []struct {
		name    string
		apiKey  string
		client  []string // header pairs the client sends
		wantKey string   // x-api-key upstream
		wantAut string   // Authorization upstream
	}{
		{"api_key replaces x-api-key", "upstream-key", []string{"x-api-key", "client-key"}, "upstream-key", ""},
		{"api_key replaces bearer", "upstream-key", []string{"x-api-key", "", "Authorization", "Bearer sk-ant-oat01-client"}, "upstream-key", ""},
		{"api_key replaces both", "upstream-key", []string{"x-api-key", "client-key", "Authorization", "Bearer client-token"}, "upstream-key", ""},
		{"client x-api-key forwarded", "", []string{"x-api-key", "client-key"}, "client-key", ""},
		{"client bearer forwarded", "", []string{"x-api-key", "", "Authorization", "Bearer sk-ant-oat01-client"}, "", "Bearer sk-ant-oat01-client"},
		{"both forwarded", "", []string{"x-api-key", "client-key", "Authorization", "Bearer client-token"}, "client-key", "Bearer client-token"},
	}
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		testgw.WriteChunks(w, "text/event-stream", upstreamSSE, 64)
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := ""
			if c.apiKey != "" {
				opts = "\tapi_key " + c.apiKey
			}
			gw := testgw.Start(t, testgw.SlotAnthropic, site(opts, up))
			res, _ := gw.PostRead("/v1/messages", requestJSON, c.client...)
			if res.StatusCode != 200 {
				t.Fatalf("status %d", res.StatusCode)
			}
			h := up.Last(t).Header
			if got := h.Get("X-Api-Key"); got != c.wantKey {
				t.Errorf("x-api-key %q, want %q", got, c.wantKey)
			}
			if got := h.Get("Authorization"); got != c.wantAut {
				t.Errorf("authorization %q, want %q", got, c.wantAut)
			}
			if n := len(h.Values("X-Api-Key")); n > 1 {
				t.Errorf("%d x-api-key headers", n)
			}
		})
	}
}

// TestAuthSDK: the official SDK's two credential forms, API key and auth
// token (Claude Code's OAuth), both reach the upstream as the gateway's key.
func TestAuthSDK(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		testgw.WriteChunks(w, "text/event-stream", upstreamSSE, 32)
	})
	t.Setenv("THINKGATE_TEST_ANTHROPIC_KEY", "sk-ant-from-env") // resolved at load
	gw := testgw.Start(t, testgw.SlotAnthropic, site("\tapi_key {env.THINKGATE_TEST_ANTHROPIC_KEY}", up))
	for _, opt := range []option.RequestOption{
		option.WithAPIKey("client-key"),
		option.WithAuthToken("sk-ant-oat01-client-oauth"),
	} {
		gw.Stream(params(), opt)
		h := up.Last(t).Header
		if h.Get("X-Api-Key") != "sk-ant-from-env" || h.Get("Authorization") != "" {
			t.Errorf("upstream credential: x-api-key %q authorization %q", h.Get("X-Api-Key"), h.Get("Authorization"))
		}
	}
}

// TestHeadersQueryBodyForwarded: anthropic-version, every anthropic-beta
// line, the ?beta=true query and the body reach the upstream as the client
// sent them.
func TestHeadersQueryBodyForwarded(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		testgw.WriteChunks(w, "text/event-stream", upstreamSSE, 64)
	})
	gw := testgw.Start(t, testgw.SlotAnthropic, site("\tapi_key upstream-key", up))
	req, _ := http.NewRequest("POST", gw.URL+"/v1/messages?beta=true", strings.NewReader(requestJSON))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", "client-key")
	req.Header.Set("anthropic-version", "2023-06-01")
	req.Header.Add("anthropic-beta", "interleaved-thinking-2025-05-14,context-management-2025-06-27")
	req.Header.Add("anthropic-beta", "fine-grained-tool-streaming-2025-05-14")
	req.Header.Set("anthropic-dangerous-direct-browser-access", "true")
	req.Header.Set("User-Agent", "claude-cli/2.1.0 (external, cli)")
	res, err := gw.Tester.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(body) != string(upstreamSSE) {
		t.Fatalf("status %d, body:\n%s", res.StatusCode, body)
	}
	last := up.Last(t)
	if last.Path != "/v1/messages" || last.RawQuery != "beta=true" {
		t.Errorf("upstream target %s?%s", last.Path, last.RawQuery)
	}
	if string(last.Body) != requestJSON {
		t.Errorf("upstream body:\n%s", last.Body)
	}
	h := last.Header
	if got := h.Values("Anthropic-Beta"); strings.Join(got, "|") != "interleaved-thinking-2025-05-14,context-management-2025-06-27|fine-grained-tool-streaming-2025-05-14" {
		t.Errorf("anthropic-beta %q", got)
	}
	for k, want := range map[string]string{
		"Anthropic-Version":                         "2023-06-01",
		"Anthropic-Dangerous-Direct-Browser-Access": "true",
		"User-Agent":                                "claude-cli/2.1.0 (external, cli)",
		"Content-Type":                              "application/json",
		"Content-Length":                            fmt.Sprint(len(requestJSON)),
		"X-Api-Key":                                 "upstream-key",
	} {
		if got := h.Get(k); got != want {
			t.Errorf("%s %q, want %q", k, got, want)
		}
	}
}

// TestStreamUntouched: without split_tags the client receives the upstream's
// stream byte for byte, however the upstream's writes are split, and the SDK
// accumulates it.
func TestStreamUntouched(t *testing.T) {
	for _, n := range []int{1, 5, 64, len(upstreamSSE)} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Request-Id", "req_011CSHoEeqs5C35K2UUqR7Fy")
				w.Header().Set("Anthropic-Ratelimit-Requests-Remaining", "49")
				testgw.WriteChunks(w, "text/event-stream; charset=utf-8", upstreamSSE, n)
			})
			gw := testgw.Start(t, testgw.SlotAnthropic, site("", up))
			res, body := gw.PostRead("/v1/messages", requestJSON)
			if res.StatusCode != 200 || body != string(upstreamSSE) {
				t.Fatalf("status %d, body differs:\n%s", res.StatusCode, body)
			}
			if res.Header.Get("Request-Id") != "req_011CSHoEeqs5C35K2UUqR7Fy" || res.Header.Get("Anthropic-Ratelimit-Requests-Remaining") != "49" ||
				res.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
				t.Errorf("response headers %v", res.Header)
			}
			msg, _ := gw.Stream(params())
			if len(msg.Content) != 3 || msg.Content[0].Signature != "EqQBCkgIBxABGAIiQL5nYv0vLzVzWw==" ||
				msg.Content[1].Text != "Let me check <that> for you." || string(msg.Content[2].Input) != `{"city": "Paris"}` ||
				msg.StopReason != "tool_use" || msg.Usage.OutputTokens != 89 {
				t.Errorf("SDK message: %+v", msg)
			}
		})
	}
}

// TestMessageUntouched: a non-streaming Message reaches the client byte for
// byte without split_tags.
func TestMessageUntouched(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, messageJSON)
	})
	gw := testgw.Start(t, testgw.SlotAnthropic, site("", up))
	res, body := gw.PostRead("/v1/messages", strings.Replace(requestJSON, `"stream":true`, `"stream":false`, 1))
	if res.StatusCode != 200 || body != messageJSON {
		t.Fatalf("status %d body %s", res.StatusCode, body)
	}
}

// TestErrorsUntouched: upstream errors reach the client with their status,
// body and Retry-After as Anthropic sent them.
func TestErrorsUntouched(t *testing.T) {
	cases := []struct {
		status int
		body   string
		retry  string
	}{
		{429, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}`, "17"},
		{529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, ""},
		{400, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0.type: Expected thinking or redacted_thinking, but found text"}}`, ""},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.status), func(t *testing.T) {
			up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if c.retry != "" {
					w.Header().Set("Retry-After", c.retry)
				}
				w.WriteHeader(c.status)
				_, _ = io.WriteString(w, c.body)
			})
			gw := testgw.Start(t, testgw.SlotAnthropic, site("", up))
			res, body := gw.PostRead("/v1/messages", requestJSON)
			if res.StatusCode != c.status || body != c.body || res.Header.Get("Retry-After") != c.retry {
				t.Errorf("got %d %q retry %q", res.StatusCode, body, res.Header.Get("Retry-After"))
			}
		})
	}
}

// TestCutStream: an upstream that breaks mid-stream cuts the client's
// response too: a passthrough never passes a truncated stream off as whole.
func TestCutStream(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		_, _ = w.Write(upstreamSSE[:len(upstreamSSE)/2])
		http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler)
	})
	gw := testgw.Start(t, testgw.SlotAnthropic, site("", up))
	res := gw.Post("/v1/messages", requestJSON)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err == nil {
		t.Fatalf("client read the cut stream to a clean end: %q", body)
	}
	if string(body) != string(upstreamSSE[:len(upstreamSSE)/2]) {
		t.Errorf("client got %q", body)
	}
	client := gw.Client()
	stream := client.Messages.NewStreaming(t.Context(), params())
	for stream.Next() {
	}
	if stream.Err() == nil {
		t.Error("SDK saw no error on a cut stream")
	}
}

// TestCountTokens: /v1/messages/count_tokens passes through, path, body and
// answer, with split_tags on or off.
func TestCountTokens(t *testing.T) {
	const answer = `{"input_tokens":2095}`
	req := `{"model":"claude-sonnet-4-5","system":"Be <brief>.","messages":[{"role":"user","content":"Hello, Claude"}],"tools":[{"name":"get_weather","input_schema":{"type":"object"}}]}`
	for _, opts := range []string{"", "\tsplit_tags"} {
		t.Run(strings.TrimSpace(opts), func(t *testing.T) {
			up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, answer)
			})
			gw := testgw.Start(t, testgw.SlotAnthropic, site(opts+"\n\tapi_key upstream-key", up))
			res, body := gw.PostRead("/v1/messages/count_tokens?beta=true", req, "anthropic-beta", "token-counting-2024-11-01")
			if res.StatusCode != 200 || body != answer {
				t.Fatalf("got %d %s", res.StatusCode, body)
			}
			last := up.Last(t)
			if last.Path != "/v1/messages/count_tokens" || last.RawQuery != "beta=true" || string(last.Body) != req ||
				last.Header.Get("X-Api-Key") != "upstream-key" || last.Header.Get("Anthropic-Beta") != "token-counting-2024-11-01" {
				t.Errorf("upstream got %s?%s %v\n%s", last.Path, last.RawQuery, last.Header, last.Body)
			}
			// The SDK's own count_tokens call works through the gateway.
			client := gw.Client()
			n, err := client.Messages.CountTokens(t.Context(), anthropic.MessageCountTokensParams{
				Model:    "claude-sonnet-4-5",
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hello, Claude"))},
			})
			if err != nil || n.InputTokens != 2095 {
				t.Errorf("SDK CountTokens = %+v, %v", n, err)
			}
		})
	}
}

// TestHistoryUnsigned: a history the gateway signed goes back to Anthropic
// without the gateway's signatures: tag-derived thinking as <thinking> text
// where it stood, foreign thinking dropped, an emptied turn dropped.
func TestHistoryUnsigned(t *testing.T) {
	signer := emit.NewSigner([]byte(signingKey))
	tagSig := signer.Sign(emit.OriginTags, "", "Need the weather.")
	gemSig := signer.Sign(emit.OriginGemini, "CiQB0e2K", "Gemini's thought.")
	reqBody := `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"messages":[` +
		`{"role":"user","content":"Weather in Paris?"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"Gemini's thought.","signature":"` + gemSig + `"}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"Sure. "},{"type":"thinking","thinking":"Need the weather.","signature":"` + tagSig + `"},{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{"city":"Paris"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"18°C"}]}]}`
	want := `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"messages":[` +
		`{"role":"user","content":"Weather in Paris?"},` +
		`{"role":"assistant","content":[{"type":"text","text":"Sure. "},{"type":"text","text":"<thinking>Need the weather.</thinking>"},{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{"city":"Paris"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"18°C"}]}]}`
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		testgw.WriteChunks(w, "text/event-stream", upstreamSSE, 64)
	})
	gw := testgw.Start(t, testgw.SlotAnthropic, site("", up))
	if res, _ := gw.PostRead("/v1/messages", reqBody); res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	if got := up.Last(t).Body; !golden.EqualJSON(t, got, []byte(want)) {
		t.Errorf("upstream body\n%s\nwant\n%s", got, want)
	}
}

// TestUpstreamDown: an upstream that cannot be reached gives the client an
// Anthropic error with a real status.
func TestUpstreamDown(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {})
	addr := up.Addr()
	up.Close()
	gw := testgw.Start(t, testgw.SlotAnthropic, fmt.Sprintf("thinkgate anthropic {\n}\nreverse_proxy %s", addr))
	res, body := gw.PostRead("/v1/messages", requestJSON)
	var e struct {
		Type  string `json:"type"`
		Error struct{ Type, Message string }
	}
	if res.StatusCode != http.StatusBadGateway || json.Unmarshal([]byte(body), &e) != nil || e.Type != "error" || e.Error.Type != "api_error" {
		t.Errorf("got %d %q", res.StatusCode, body)
	}
}

func params() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     "claude-sonnet-4-5",
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What's the weather in Paris?"))},
	}
}
