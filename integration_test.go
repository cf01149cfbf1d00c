package thinkgate

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/thinkgate/thinkgate/internal/demo"
	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/internal/testgw"
)

// demoText is the demo upstream's answer: intro text, a thinking span, the answer.
const demoText = demo.DemoText

const (
	demoIntro    = "I need to answer the user's question about the first three letters of the alphabet. "
	demoThinking = "Step 1: Identify the user's core question. The user wants the first 3 letters of the English alphabet. Step 2: Recall the sequence of the alphabet. It starts with A, B, C. Step 3: Formulate the final answer."
	demoAnswer   = "The first three letters of the alphabet are A, B, and C."
)

func site(provider, options string, up *testgw.Upstream) string {
	return fmt.Sprintf("thinkgate %s {\n\tsigning_key test-signing-key\n%s\n}\nreverse_proxy %s", provider, options, up.Addr())
}

func userParams(stream bool) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     "claude-test",
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What are the first three letters of the alphabet?"))},
	}
}

const requestJSON = `{"model":"claude-test","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"What are the first three letters of the alphabet?"}]}`

// TestDemoThinkingMode: the demo answer in small chunks comes out as a
// text block, a thinking block with one signature, and a text block; the
// official SDK accumulates it without error.
func TestDemoThinkingMode(t *testing.T) {
	up := testgw.StreamingUpstream(t, testgw.AnthropicTextStream(demoText, 3), 7)
	gw := testgw.Start(t, testgw.SlotRoot, site("anthropic", "\tsplit_tags", up))

	msg, _ := gw.Stream(userParams(true))
	if len(msg.Content) != 3 {
		t.Fatalf("got %d blocks, want 3: %+v", len(msg.Content), msg.Content)
	}
	if b := msg.Content[0]; b.Type != "text" || b.Text != demoIntro {
		t.Errorf("block 0 = %s %q", b.Type, b.Text)
	}
	if b := msg.Content[1]; b.Type != "thinking" || b.Thinking != demoThinking || !strings.HasPrefix(b.Signature, "tg1t.") {
		t.Errorf("block 1 = %s %q sig %q", b.Type, b.Thinking, b.Signature)
	}
	if b := msg.Content[2]; b.Type != "text" || b.Text != demoAnswer {
		t.Errorf("block 2 = %s %q", b.Type, b.Text)
	}
	if msg.StopReason != "end_turn" || msg.Usage.InputTokens != 21 || msg.Usage.OutputTokens != 87 || msg.ID != "msg_up1" {
		t.Errorf("message = stop %q usage %+v id %q", msg.StopReason, msg.Usage, msg.ID)
	}

	res := gw.Post("/v1/messages", requestJSON)
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" || res.Header.Get("Content-Length") != "" {
		t.Fatalf("status %d, headers %v", res.StatusCode, res.Header)
	}
	events := testgw.ReadEvents(t, res.Body)
	testgw.Diff(t, "event sequence", testgw.Summary(t, events), []string{
		"message_start",
		"ping",
		`content_block_start 0 {"type":"text","text":""}`,
		`text_delta 0 "` + demoIntro + `"`,
		"content_block_stop 0",
		`content_block_start 1 {"type":"thinking","thinking":""}`,
		`thinking_delta 1 "` + demoThinking + `"`,
		`signature_delta 1 "` + msg.Content[1].Signature + `"`,
		"content_block_stop 1",
		`content_block_start 2 {"type":"text","text":""}`,
		`text_delta 2 "` + demoAnswer + `"`,
		"content_block_stop 2",
		"message_delta end_turn",
		"message_stop",
	})
}

// TestDemoTextMode: thinking_block text gives the text form of docs/thinking.md, every
// span a text block with indexes 0, 1, 2.
func TestDemoTextMode(t *testing.T) {
	up := testgw.StreamingUpstream(t, testgw.AnthropicTextStream(demoText, 5), 11)
	gw := testgw.Start(t, testgw.SlotRoot, site("anthropic", "\tsplit_tags\n\tthinking_block text", up))

	res := gw.Post("/v1/messages", requestJSON)
	defer res.Body.Close()
	events := testgw.ReadEvents(t, res.Body)
	testgw.Diff(t, "event sequence", testgw.Summary(t, events), []string{
		"message_start",
		"ping",
		`content_block_start 0 {"type":"text","text":""}`,
		`text_delta 0 "` + demoIntro + `"`,
		"content_block_stop 0",
		`content_block_start 1 {"type":"text","text":""}`,
		`text_delta 1 "` + demoThinking + `"`,
		"content_block_stop 1",
		`content_block_start 2 {"type":"text","text":""}`,
		`text_delta 2 "` + demoAnswer + `"`,
		"content_block_stop 2",
		"message_delta end_turn",
		"message_stop",
	})
	msg, _ := gw.Stream(userParams(true))
	if len(msg.Content) != 3 || msg.Content[1].Type != "text" || msg.Content[1].Text != demoThinking {
		t.Errorf("SDK message: %+v", msg.Content)
	}
}

// TestStreamGolden pins the exact bytes of a split stream, deltas and all.
func TestStreamGolden(t *testing.T) {
	up := testgw.StreamingUpstream(t, testgw.AnthropicTextStream(demoText, 40), 64)
	gw := testgw.Start(t, testgw.SlotRoot, site("anthropic", "\tsplit_tags", up))
	_, body := gw.PostRead("/v1/messages", requestJSON)
	// Delta boundaries follow how the upstream's bytes were read; the
	// events and their content do not.
	golden.Bytes(t, "demo_thinking.sse", ssetest.Coalesce([]byte(body)))
}

// TestMultibyte: CJK and emoji around and inside spans survive any split of
// the upstream's bytes, even inside a rune.
func TestMultibyte(t *testing.T) {
	text := "答案是：😀 <thinking>思考一下，🧠 第一步……</thinking>你好，世界 🌏 done"
	for _, byteChunk := range []int{1, 2, 3, 5, 13} {
		t.Run(fmt.Sprint(byteChunk), func(t *testing.T) {
			up := testgw.StreamingUpstream(t, testgw.AnthropicTextStream(text, 1), byteChunk)
			gw := testgw.Start(t, testgw.SlotRoot, site("anthropic", "\tsplit_tags", up))
			msg, _ := gw.Stream(userParams(true))
			if len(msg.Content) != 3 || msg.Content[0].Text != "答案是：😀 " || msg.Content[1].Thinking != "思考一下，🧠 第一步……" || msg.Content[2].Text != "你好，世界 🌏 done" {
				t.Fatalf("content: %+v", msg.Content)
			}
			for _, b := range msg.Content {
				if !utf8.ValidString(b.Text + b.Thinking) {
					t.Fatalf("invalid UTF-8 in %+v", b)
				}
			}
		})
	}
}

// TestPassthroughBlocksRenumbered: a tool_use block after a split text block
// keeps its content and gets the next index.
func TestPassthroughBlocksRenumbered(t *testing.T) {
	body := testgw.SSE(
		testgw.Event{Name: "message_start", Data: `{"type":"message_start","message":{"id":"msg_up2","type":"message","role":"assistant","model":"up-model","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}`},
		testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
		testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"<thinking>Need the weather.</thinking>Checking."}}`},
		testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":0}`},
		testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{}}}`},
		testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\":"}}`},
		testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"Paris\"}"}}`},
		testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":1}`},
		testgw.Event{Name: "message_delta", Data: `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":30}}`},
		testgw.Event{Name: "message_stop", Data: `{"type":"message_stop"}`},
	)
	up := testgw.StreamingUpstream(t, body, 9)
	gw := testgw.Start(t, testgw.SlotRoot, site("anthropic", "\tsplit_tags", up))
	msg, _ := gw.Stream(userParams(true))
	if len(msg.Content) != 3 {
		t.Fatalf("content: %+v", msg.Content)
	}
	if msg.Content[0].Type != "thinking" || msg.Content[0].Thinking != "Need the weather." ||
		msg.Content[1].Text != "Checking." ||
		msg.Content[2].Type != "tool_use" || msg.Content[2].ID != "toolu_01" || string(msg.Content[2].Input) != `{"city":"Paris"}` {
		t.Errorf("content: %+v", msg.Content)
	}
	if msg.StopReason != "tool_use" {
		t.Errorf("stop reason %q", msg.StopReason)
	}
}

// TestNonStreamingSplit: a non-streaming Message is split the same way, all
// other fields kept.
func TestNonStreamingSplit(t *testing.T) {
	upBody := `{"id":"msg_up3","type":"message","role":"assistant","model":"up-model","content":[{"type":"text","text":` + mustJSON(demoText) + `}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":21,"output_tokens":87}}`
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(len(upBody)))
		_, _ = w.Write([]byte(upBody))
	})
	gw := testgw.Start(t, testgw.SlotRoot, site("anthropic", "\tsplit_tags", up))
	client := gw.Client()
	msg, err := client.Messages.New(t.Context(), userParams(false))
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 3 || msg.Content[0].Text != demoIntro || msg.Content[1].Thinking != demoThinking || msg.Content[2].Text != demoAnswer {
		t.Fatalf("content: %+v", msg.Content)
	}
	if msg.ID != "msg_up3" || msg.Usage.OutputTokens != 87 {
		t.Errorf("message: %+v", msg)
	}
}

// TestPassthroughUntouched: without split_tags the upstream's bytes reach
// the client unchanged, and the request body reaches the upstream unchanged.
func TestPassthroughUntouched(t *testing.T) {
	body := testgw.AnthropicTextStream(demoText, 4)
	up := testgw.StreamingUpstream(t, body, 16)
	gw := testgw.Start(t, testgw.SlotRoot, site("anthropic", "\tapi_key upstream-key", up))
	reqBody := `{"model":"claude-test","max_tokens":1024,"stream":true,"unknown_field":{"kept":true},"messages":[{"role":"user","content":"hi"}]}`
	res, got := gw.PostRead("/v1/messages?beta=true", reqBody, "anthropic-beta", "interleaved-thinking-2025-05-14", "Accept-Encoding", "gzip")
	if res.StatusCode != 200 || got != string(body) {
		t.Fatalf("status %d, body differs:\n%s", res.StatusCode, got)
	}
	last := up.Last(t)
	if string(last.Body) != reqBody {
		t.Errorf("upstream body %s", last.Body)
	}
	if last.Path != "/v1/messages" || last.RawQuery != "beta=true" {
		t.Errorf("upstream path %s?%s", last.Path, last.RawQuery)
	}
	if last.Header.Get("X-Api-Key") != "upstream-key" || last.Header.Get("Anthropic-Beta") != "interleaved-thinking-2025-05-14" || last.Header.Get("Anthropic-Version") != "2023-06-01" {
		t.Errorf("upstream headers %v", last.Header)
	}
	if ae := last.Header.Get("Accept-Encoding"); ae != "" && ae != "gzip" {
		t.Errorf("Accept-Encoding %q", ae)
	}
}

// TestBadInput: bad JSON, missing messages and oversize bodies get
// Anthropic-shaped errors, and never reach the upstream.
func TestBadInput(t *testing.T) {
	up := testgw.StreamingUpstream(t, testgw.AnthropicTextStream(demoText, 4), 16)
	gw := testgw.Start(t, testgw.SlotRoot, site("anthropic", "\tsplit_tags\n\tmax_request_body 2KiB", up))
	cases := []struct {
		name, body string
		status     int
		want       string
	}{
		{"bad json", `{"model":`, 400, `{"type":"error","error":{"type":"invalid_request_error","message":"request body is not valid JSON: unexpected end of JSON input"}}`},
		{"not an object", `[1,2]`, 400, `{"type":"error","error":{"type":"invalid_request_error","message":"request body must be a JSON object"}}`},
		{"missing messages", `{"model":"m","max_tokens":5}`, 400, `{"type":"error","error":{"type":"invalid_request_error","message":"messages: Field required"}}`},
		{"too large", `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("x", 3000) + `"}]}`, 413, `{"type":"error","error":{"type":"request_too_large","message":"request body exceeds the 2048-byte limit"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, body := gw.PostRead("/v1/messages", c.body)
			if res.StatusCode != c.status || body != c.want || res.Header.Get("Content-Type") != "application/json" {
				t.Errorf("got %d %s %s\nwant %d %s", res.StatusCode, res.Header.Get("Content-Type"), body, c.status, c.want)
			}
		})
	}
	if n := len(up.Requests()); n != 0 {
		t.Errorf("upstream got %d requests", n)
	}
}

// TestConfigErrors: an unknown provider or option is refused at load, by name.
func TestConfigErrors(t *testing.T) {
	p := testgw.PortsFor(testgw.SlotRoot)
	for _, c := range []struct{ site, want string }{
		{"thinkgate nosuch {\n}\nrespond ok", `unknown provider "nosuch"; the providers are amazonq, anthropic, azure, bedrock, gemini, openai, responses, vertex`},
		{"thinkgate anthropic {\n\tfrobnicate 3\n}\nrespond ok", "thinkgate anthropic: unknown option 'frobnicate'"},
		{"thinkgate anthropic {\n\tthinking_block fancy\n}\nrespond ok", `thinking_block: must be thinking or text, got "fancy"`},
	} {
		cfg := testgw.Preamble(p) + fmt.Sprintf("http://localhost:%d {\n%s\n}\n", p.HTTP, c.site)
		if got := testgw.LoadError(t, testgw.SlotRoot, cfg); !strings.Contains(got, c.want) {
			t.Errorf("load error %q does not contain %q", got, c.want)
		}
	}
}

// TestHTTPS: the gateway works over the TLS listener (tls internal).
func TestHTTPS(t *testing.T) {
	up := testgw.StreamingUpstream(t, testgw.AnthropicTextStream(demoText, 6), 10)
	p := testgw.PortsFor(testgw.SlotRoot)
	cfg := testgw.Preamble(p) + fmt.Sprintf("https://localhost:%d {\n\ttls internal\n%s\n}\n", p.HTTPS, site("anthropic", "\tsplit_tags", up))
	gw := testgw.StartConfig(t, testgw.SlotRoot, cfg)
	gw.URL = fmt.Sprintf("https://localhost:%d", p.HTTPS)
	msg, _ := gw.Stream(userParams(true), optionHTTPClient(gw))
	if len(msg.Content) != 3 || msg.Content[1].Thinking != demoThinking {
		t.Fatalf("content: %+v", msg.Content)
	}
}

// TestEncode: inside encode, a client that accepts gzip gets the translated
// stream gzipped, and one that asks for no encoding gets it as it is. The
// upstream compresses whenever it is asked to; the gateway reads its answer
// decompressed all the same, and the client's Accept-Encoding never reaches it.
func TestEncode(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		body := testgw.AnthropicTextStream(demoText, 40)
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			_, _ = zw.Write(body)
			_ = zw.Close()
			body = buf.Bytes()
			w.Header().Set("Content-Encoding", "gzip")
		}
		testgw.WriteChunks(w, "text/event-stream; charset=utf-8", body, 64)
	})
	gw := testgw.Start(t, testgw.SlotRoot, "encode gzip\n"+site("anthropic", "\tsplit_tags", up))
	// Go's transport would ask for gzip itself and hide the encoding.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	t.Cleanup(client.CloseIdleConnections)
	for _, c := range []struct{ name, acceptEncoding, wantEncoding string }{
		{"client accepts gzip", "gzip, deflate, br", "gzip"},
		{"client asks for nothing", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, gw.URL+"/v1/messages", strings.NewReader(requestJSON))
			req.Header.Set("Content-Type", "application/json")
			if c.acceptEncoding != "" {
				req.Header.Set("Accept-Encoding", c.acceptEncoding)
			}
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != c.wantEncoding {
				t.Fatalf("status %d, Content-Encoding %q, want %q", res.StatusCode, res.Header.Get("Content-Encoding"), c.wantEncoding)
			}
			var body io.Reader = res.Body
			if c.wantEncoding == "gzip" {
				if body, err = gzip.NewReader(res.Body); err != nil {
					t.Fatal(err)
				}
			}
			got, err := io.ReadAll(body)
			if err != nil {
				t.Fatal(err)
			}
			golden.Bytes(t, "demo_thinking.sse", ssetest.Coalesce(got))
			if ae := up.Last(t).Header.Get("Accept-Encoding"); c.acceptEncoding != "" && ae == c.acceptEncoding {
				t.Errorf("the client's Accept-Encoding %q reached the upstream", ae)
			}
		})
	}
}

// optionHTTPClient makes the SDK use caddytest's client, which trusts the
// test CA for the HTTPS listener.
func optionHTTPClient(gw *testgw.Gateway) option.RequestOption {
	return option.WithHTTPClient(&http.Client{Transport: gw.Tester.Client.Transport})
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestJSONConfig: the JSON form of the handler works as the Caddyfile does.
func TestJSONConfig(t *testing.T) {
	up := testgw.StreamingUpstream(t, testgw.AnthropicTextStream(demoText, 8), 16)
	p := testgw.PortsFor(testgw.SlotRoot)
	cfg := fmt.Sprintf(`{
	"admin": {"listen": "localhost:%d"},
	"apps": {
		"http": {
			"http_port": %d,
			"grace_period": 1,
			"servers": {
				"gw": {
					"listen": [":%d"],
					"automatic_https": {"disable": true},
					"routes": [{
						"handle": [
							{"handler": "thinkgate", "provider": {"name": "anthropic"}, "split_tags": true, "thinking_block": "text", "signing_key": "k"},
							{"handler": "reverse_proxy", "upstreams": [{"dial": %q}]}
						]
					}]
				}
			}
		},
		"pki": {"certificate_authorities": {"local": {"install_trust": false}}}
	}
}`, p.Admin, p.HTTP, p.HTTP, up.Addr())
	tester := testgw.StartJSON(t, testgw.SlotRoot, cfg)
	msg, _ := tester.Stream(userParams(true))
	if len(msg.Content) != 3 || msg.Content[1].Type != "text" || msg.Content[1].Text != demoThinking {
		t.Fatalf("content: %+v", msg.Content)
	}
}

// TestCaddyfileExample: the shipped example runs as it is (ports moved to the
// test's), the demo upstream's tags come out as a thinking block, and the
// file adapts without warnings.
func TestCaddyfileExample(t *testing.T) {
	raw, err := os.ReadFile("Caddyfile.example")
	if err != nil {
		t.Fatal(err)
	}
	_, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt(raw, map[string]any{"filename": "Caddyfile.example"})
	if err != nil || len(warnings) > 0 {
		t.Fatalf("adapt: %v %v", err, warnings)
	}
	p := testgw.PortsFor(testgw.SlotRoot)
	cfg := strings.NewReplacer(
		"http_port 8080", fmt.Sprintf("http_port %d\n\tadmin localhost:%d\n\tgrace_period 1ns", p.HTTP, p.Admin),
		"https_port 8443", fmt.Sprintf("https_port %d", p.HTTPS),
		"localhost:8080", fmt.Sprintf("localhost:%d", p.HTTP),
		"localhost:8443", fmt.Sprintf("localhost:%d", p.HTTPS),
		"8099", "9099",
	).Replace(string(raw))
	gw := testgw.StartConfig(t, testgw.SlotRoot, cfg)
	msg, _ := gw.Stream(userParams(true))
	if len(msg.Content) != 3 || msg.Content[0].Text != demoIntro || msg.Content[1].Thinking != demoThinking || msg.Content[2].Text != demoAnswer {
		t.Fatalf("content: %+v", msg.Content)
	}
	gw.URL = fmt.Sprintf("https://localhost:%d", p.HTTPS)
	client := gw.Client(optionHTTPClient(gw))
	m, err := client.Messages.New(t.Context(), userParams(false))
	if err != nil || len(m.Content) != 3 || m.Content[1].Thinking != demoThinking {
		t.Fatalf("non-streaming over HTTPS: %v %+v", err, m)
	}
}
