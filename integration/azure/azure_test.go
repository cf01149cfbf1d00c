// Package azure_test runs the azure provider through a real Caddy against a
// mock Azure AI Foundry endpoint that checks requests the way Azure does
// (docs/providers/azure.md) and answers in Anthropic's wire format.
package azure_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/golden"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

const (
	azureKey   = "azure-resource-key"
	deployment = "claude-opus-4-6-foundry"
)

// azureSSE is what Azure streams for a Claude deployment: Anthropic's events,
// with the deployment name as the model.
var azureSSE = testgw.SSE(
	testgw.Event{Name: "message_start", Data: `{"type":"message_start","message":{"id":"msg_01AzureFoundry7Qx","type":"message","role":"assistant","model":"` + deployment + `","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3120,"cache_creation_input_tokens":2900,"cache_read_input_tokens":0,"output_tokens":4}}}`},
	testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`},
	testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"go.mod says go 1.26.8. "}}`},
	testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Answer briefly."}}`},
	testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EpYCCkYIBxgCKkAzure0signature0from0Foundry=="}}`},
	testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":0}`},
	testgw.Event{Name: "ping", Data: `{"type": "ping"}`},
	testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`},
	testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"The repo uses Go 1.26.8 — see "}}`},
	testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"go.mod. I'll run the tests."}}`},
	testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":1}`},
	testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01AzureBash9","name":"Bash","input":{}}}`},
	testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"command\": \"go te"}}`},
	testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"st ./...\"}"}}`},
	testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":2}`},
	testgw.Event{Name: "message_delta", Data: `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":71}}`},
	testgw.Event{Name: "message_stop", Data: `{"type":"message_stop"}`},
)

// taggedSSE is a stream whose text carries inline <thinking> tags, for split_tags.
func taggedSSE(text string, runeChunk int) []byte {
	ev := []testgw.Event{
		{Name: "message_start", Data: `{"type":"message_start","message":{"id":"msg_01AzureTags","type":"message","role":"assistant","model":"` + deployment + `","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":40,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`},
		{Name: "content_block_start", Data: `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
	}
	runes := []rune(text)
	for i := 0; i < len(runes); i += runeChunk {
		b, _ := json.Marshal(string(runes[i:min(i+runeChunk, len(runes))]))
		ev = append(ev, testgw.Event{Name: "content_block_delta", Data: fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%s}}`, b)})
	}
	ev = append(ev,
		testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":0}`},
		testgw.Event{Name: "message_delta", Data: `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":33}}`},
		testgw.Event{Name: "message_stop", Data: `{"type":"message_stop"}`},
	)
	return testgw.SSE(ev...)
}

const taggedText = "Intro. <thinking>Azure's model reasons 思考 here.</thinking>The answer is 42."

// mockAzure is an Azure AI Foundry endpoint: it checks the key and the
// request as Azure does and answers with reply, or with Azure's errors.
func mockAzure(t *testing.T, reply func(w http.ResponseWriter, r *http.Request)) *testgw.Upstream {
	return testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != azureKey || r.Header.Get("Api-Key") != azureKey {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(401)
			_, _ = io.WriteString(w, `{"error":{"code":"401","message":"Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."}}`)
			return
		}
		body, _ := io.ReadAll(r.Body)
		if msg := azureRejects(body); msg != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			b, _ := json.Marshal(msg)
			_, _ = fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":%s}}`, b)
			return
		}
		reply(w, r)
	})
}

// azureRejects returns Azure's complaint about a request body, or "" when
// Azure accepts it (docs/providers/azure.md).
func azureRejects(body []byte) string {
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil {
		return "invalid JSON"
	}
	for _, f := range []string{"context_management", "betas", "anthropic_beta"} {
		if _, ok := req[f]; ok {
			return f + ": Extra inputs are not permitted"
		}
	}
	thinkingOn := false
	if raw, ok := req["thinking"]; ok {
		var o struct{ Type string }
		thinkingOn = string(raw) == "true" || (json.Unmarshal(raw, &o) == nil && o.Type != "disabled")
	}
	var msgs []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(req["messages"], &msgs)
	for i, m := range msgs {
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			if strings.TrimSpace(s) == "" {
				return fmt.Sprintf("messages.%d: all messages must have non-empty content", i)
			}
			continue
		}
		var blocks []map[string]any
		if json.Unmarshal(m.Content, &blocks) != nil || len(blocks) == 0 {
			return fmt.Sprintf("messages.%d: all messages must have non-empty content", i)
		}
		for j, b := range blocks {
			switch b["type"] {
			case "thinking":
				if sig, _ := b["signature"].(string); sig == "" || strings.HasPrefix(sig, "tg1") {
					return fmt.Sprintf("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j)
				}
			case "redacted_thinking":
				if d, _ := b["data"].(string); d == "" {
					return fmt.Sprintf("messages.%d.content.%d.data: Field required", i, j)
				}
			}
		}
		if thinkingOn && m.Role == "assistant" && blocks[0]["type"] != "thinking" && blocks[0]["type"] != "redacted_thinking" {
			return fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block.", i, blocks[0]["type"])
		}
	}
	var tools []map[string]json.RawMessage
	_ = json.Unmarshal(req["tools"], &tools)
	for i, tool := range tools {
		var typ string
		_ = json.Unmarshal(tool["type"], &typ)
		if _, custom := tool["input_schema"]; typ != "" && !custom {
			continue // a server tool
		}
		for k := range tool {
			if k != "name" && k != "description" && k != "input_schema" {
				return fmt.Sprintf("tools.%d.custom.%s: Extra inputs are not permitted", i, k)
			}
		}
		if _, ok := tool["input_schema"]; !ok {
			return fmt.Sprintf("tools.%d.custom.input_schema: Field required", i)
		}
	}
	return ""
}

func site(options string, up *testgw.Upstream) string {
	return fmt.Sprintf("thinkgate azure {\n\tsigning_key test-signing-key\n\tapi_key %s\n\tmodel claude-opus-4-6 %s\n%s\n}\nreverse_proxy %s",
		azureKey, deployment, options, up.Addr())
}

func claudeCodeRequest(t *testing.T) []byte {
	return readFile(t, filepath.Join("..", "..", "providers", "azure", "testdata", "clean", "claude_code.before.json"))
}

// claudeCodeHeaders are the headers Claude Code sends to api.anthropic.com.
var claudeCodeHeaders = []string{
	"x-api-key", "sk-ant-api03-client-key",
	"Authorization", "Bearer sk-ant-oat01-client-oauth",
	"anthropic-version", "2023-06-01",
	"anthropic-beta", "claude-code-20250219,oauth-2025-04-20,interleaved-thinking-2025-05-14,context-management-2025-06-27,fine-grained-tool-streaming-2025-05-14",
	"anthropic-dangerous-direct-browser-access", "true",
	"User-Agent", "claude-cli/2.1.2 (external, cli)",
	"x-app", "cli",
}

// TestMockRejectsClaudeCodeRequest guards the mock: the Claude Code request
// as the client sends it is one Azure refuses.
func TestMockRejectsClaudeCodeRequest(t *testing.T) {
	if msg := azureRejects(claudeCodeRequest(t)); msg != "context_management: Extra inputs are not permitted" {
		t.Errorf("mock says %q", msg)
	}
	body := bytes.Replace(claudeCodeRequest(t), []byte(`"context_management"`), []byte(`"x_context_management"`), 1)
	if msg := azureRejects(body); !strings.Contains(msg, "Invalid `signature`") {
		t.Errorf("mock says %q", msg)
	}
}

// TestClaudeCodeRequest: a Claude Code request (adaptive thinking,
// context_management, deferred MCP tools, a prior turn whose thinking has an
// empty signature) reaches Azure cleaned, with Azure's key and path, and
// Azure's answer reaches the client byte for byte, however it is split.
func TestClaudeCodeRequest(t *testing.T) {
	for _, n := range []int{1, 7, 64, len(azureSSE)} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			up := mockAzure(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Apim-Request-Id", "6c1c0f2e-azure")
				testgw.WriteChunks(w, "text/event-stream; charset=utf-8", azureSSE, n)
			})
			gw := testgw.Start(t, testgw.SlotAzure, site("", up))
			res, body := gw.PostRead("/v1/messages?beta=true", string(claudeCodeRequest(t)), claudeCodeHeaders...)
			if res.StatusCode != 200 || body != string(azureSSE) {
				t.Fatalf("status %d, body:\n%s", res.StatusCode, body)
			}
			if res.Header.Get("Apim-Request-Id") != "6c1c0f2e-azure" {
				t.Errorf("response headers %v", res.Header)
			}
			last := up.Last(t)
			if last.Path != "/anthropic/v1/messages" || last.RawQuery != "beta=true" {
				t.Errorf("upstream target %s?%s", last.Path, last.RawQuery)
			}
			wantHeaders := map[string][]string{
				"X-Api-Key":         {azureKey},
				"Api-Key":           {azureKey},
				"Authorization":     nil,
				"Anthropic-Version": {"2023-06-01"},
				"Anthropic-Beta":    {"interleaved-thinking-2025-05-14"},
				"Anthropic-Dangerous-Direct-Browser-Access": {"true"},
				"User-Agent":   {"claude-cli/2.1.2 (external, cli)"},
				"X-App":        {"cli"},
				"Content-Type": {"application/json"},
			}
			for k, want := range wantHeaders {
				if got := last.Header.Values(k); !reflect.DeepEqual(got, want) {
					t.Errorf("upstream %s = %q, want %q", k, got, want)
				}
			}
			golden.JSON(t, "claude_code.upstream.json", last.Body)
		})
	}
}

// TestSDKStream: the official SDK's streaming call through the gateway to
// Azure accumulates, thinking signature and tool input included.
func TestSDKStream(t *testing.T) {
	for _, n := range []int{1, 13, 4096} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			up := mockAzure(t, func(w http.ResponseWriter, r *http.Request) {
				testgw.WriteChunks(w, "text/event-stream; charset=utf-8", azureSSE, n)
			})
			gw := testgw.Start(t, testgw.SlotAzure, site("", up))
			msg, _ := gw.Stream(anthropic.MessageNewParams{
				Model:     "claude-opus-4-6",
				MaxTokens: 2048,
				Thinking:  anthropic.ThinkingConfigParamUnion{OfAdaptive: &anthropic.ThinkingConfigAdaptiveParam{}},
				Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Which Go version?"))},
			})
			if len(msg.Content) != 3 ||
				msg.Content[0].Thinking != "go.mod says go 1.26.8. Answer briefly." || msg.Content[0].Signature != "EpYCCkYIBxgCKkAzure0signature0from0Foundry==" ||
				msg.Content[1].Text != "The repo uses Go 1.26.8 — see go.mod. I'll run the tests." ||
				msg.Content[2].Name != "Bash" || string(msg.Content[2].Input) != `{"command": "go test ./..."}` {
				t.Errorf("content: %+v", msg.Content)
			}
			// Passthrough: Azure's own message, deployment name included.
			if msg.ID != "msg_01AzureFoundry7Qx" || string(msg.Model) != deployment || msg.StopReason != "tool_use" ||
				msg.Usage.InputTokens != 3120 || msg.Usage.CacheCreationInputTokens != 2900 || msg.Usage.OutputTokens != 71 {
				t.Errorf("message: id %s model %s stop %s usage %+v", msg.ID, msg.Model, msg.StopReason, msg.Usage)
			}
			last := up.Last(t)
			var sent struct {
				Model    string          `json:"model"`
				Thinking json.RawMessage `json:"thinking"`
			}
			_ = json.Unmarshal(last.Body, &sent)
			if sent.Model != deployment || string(sent.Thinking) != `{"type":"adaptive"}` {
				t.Errorf("upstream body %s", last.Body)
			}
		})
	}
}

// TestSplitTags: with split_tags, Azure's inline <thinking> text becomes a
// thinking block with a gateway signature, for any split of the bytes, and
// the client sees its own model name.
func TestSplitTags(t *testing.T) {
	for _, c := range []struct{ runes, bytes int }{{1, 1}, {3, 2}, {5, 17}, {80, 4096}} {
		t.Run(fmt.Sprintf("%d-%d", c.runes, c.bytes), func(t *testing.T) {
			up := mockAzure(t, func(w http.ResponseWriter, r *http.Request) {
				testgw.WriteChunks(w, "text/event-stream", taggedSSE(taggedText, c.runes), c.bytes)
			})
			gw := testgw.Start(t, testgw.SlotAzure, site("\tsplit_tags", up))
			msg, _ := gw.Stream(anthropic.MessageNewParams{
				Model: "claude-opus-4-6", MaxTokens: 512,
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("q"))},
			})
			if len(msg.Content) != 3 || msg.Content[0].Text != "Intro. " || msg.Content[1].Thinking != "Azure's model reasons 思考 here." ||
				!strings.HasPrefix(msg.Content[1].Signature, "tg1t.") || msg.Content[2].Text != "The answer is 42." {
				t.Fatalf("content: %+v", msg.Content)
			}
			if string(msg.Model) != "claude-opus-4-6" || msg.Usage.OutputTokens != 33 {
				t.Errorf("model %s usage %+v", msg.Model, msg.Usage)
			}
			res := gw.Post("/v1/messages", `{"model":"claude-opus-4-6","max_tokens":512,"stream":true,"messages":[{"role":"user","content":"q"}]}`)
			defer res.Body.Close()
			testgw.Diff(t, "events", testgw.Summary(t, testgw.ReadEvents(t, res.Body)), []string{
				"message_start",
				`content_block_start 0 {"type":"text","text":""}`,
				`text_delta 0 "Intro. "`,
				"content_block_stop 0",
				`content_block_start 1 {"type":"thinking","thinking":""}`,
				`thinking_delta 1 "Azure's model reasons 思考 here."`,
				`signature_delta 1 "` + msg.Content[1].Signature + `"`,
				"content_block_stop 1",
				`content_block_start 2 {"type":"text","text":""}`,
				`text_delta 2 "The answer is 42."`,
				"content_block_stop 2",
				"message_delta end_turn",
				"message_stop",
			})
		})
	}
}

// TestGatewaySignedHistory: the split thinking block, sent back in the next
// turn, is the gateway's, not Azure's: it is dropped, and with it the
// thinking parameter, so Azure accepts the request.
func TestGatewaySignedHistory(t *testing.T) {
	up := mockAzure(t, func(w http.ResponseWriter, r *http.Request) {
		testgw.WriteChunks(w, "text/event-stream", taggedSSE(taggedText, 4), 16)
	})
	gw := testgw.Start(t, testgw.SlotAzure, site("\tsplit_tags", up))
	first, _ := gw.Stream(anthropic.MessageNewParams{
		Model: "claude-opus-4-6", MaxTokens: 512,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("q"))},
	})
	second, _ := gw.Stream(anthropic.MessageNewParams{
		Model: "claude-opus-4-6", MaxTokens: 2048,
		Thinking: anthropic.ThinkingConfigParamUnion{OfAdaptive: &anthropic.ThinkingConfigAdaptiveParam{}},
		Messages: []anthropic.MessageParam{
			anthropic.NewUserMessage(anthropic.NewTextBlock("q")),
			first.ToParam(),
			anthropic.NewUserMessage(anthropic.NewTextBlock("and then?")),
		},
	})
	if len(second.Content) != 3 {
		t.Fatalf("second answer: %+v", second.Content)
	}
	want := `{"model":"` + deployment + `","max_tokens":2048,"messages":[{"role":"user","content":[{"type":"text","text":"q"}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"Intro. "},{"type":"text","text":"The answer is 42."}]},` +
		`{"role":"user","content":[{"type":"text","text":"and then?"}]}],"stream":true}`
	if got := up.Last(t).Body; !golden.EqualJSON(t, got, []byte(want)) {
		t.Errorf("Azure received\n%s\nwant\n%s", got, want)
	}
}

// TestNonStreaming: a non-streaming Message passes through byte for byte,
// or is split with split_tags.
func TestNonStreaming(t *testing.T) {
	const upBody = `{"id":"msg_01AzureNS","type":"message","role":"assistant","model":"` + deployment + `","content":[{"type":"text","text":"Intro. <thinking>Plan it.</thinking>Done & dusted."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":20,"output_tokens":11}}`
	up := mockAzure(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, upBody)
	})
	const req = `{"model":"claude-opus-4-6","max_tokens":512,"messages":[{"role":"user","content":"q"}]}`

	gw := testgw.Start(t, testgw.SlotAzure, site("", up))
	if res, body := gw.PostRead("/v1/messages", req); res.StatusCode != 200 || body != upBody {
		t.Errorf("passthrough: %d %s", res.StatusCode, body)
	}

	gw = testgw.Start(t, testgw.SlotAzure, site("\tsplit_tags", up))
	client := gw.Client()
	msg, err := client.Messages.New(t.Context(), anthropic.MessageNewParams{
		Model: "claude-opus-4-6", MaxTokens: 512,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("q"))},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 3 || msg.Content[0].Text != "Intro. " || msg.Content[1].Thinking != "Plan it." || msg.Content[2].Text != "Done & dusted." ||
		string(msg.Model) != "claude-opus-4-6" || msg.ID != "msg_01AzureNS" {
		t.Errorf("split message: %+v", msg)
	}
}

// TestCountTokens: count_tokens goes to Azure's count_tokens path, cleaned
// like a message, and the answer comes back untouched even with split_tags.
func TestCountTokens(t *testing.T) {
	const answer = `{"input_tokens":3120}`
	up := mockAzure(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	})
	gw := testgw.Start(t, testgw.SlotAzure, site("\tsplit_tags", up))
	req := `{"model":"claude-opus-4-6","context_management":{"edits":[]},"messages":[{"role":"user","content":"Hello"}],"tools":[{"name":"Read","input_schema":{"type":"object"},"defer_loading":true}]}`
	res, body := gw.PostRead("/v1/messages/count_tokens?beta=true", req, "anthropic-beta", "token-counting-2024-11-01,context-management-2025-06-27")
	if res.StatusCode != 200 || body != answer {
		t.Fatalf("got %d %s", res.StatusCode, body)
	}
	last := up.Last(t)
	if last.Path != "/anthropic/v1/messages/count_tokens" || last.RawQuery != "beta=true" ||
		!reflect.DeepEqual(last.Header.Values("Anthropic-Beta"), []string{"token-counting-2024-11-01"}) {
		t.Errorf("upstream %s?%s %v", last.Path, last.RawQuery, last.Header)
	}
	want := `{"model":"` + deployment + `","messages":[{"role":"user","content":"Hello"}],"tools":[{"name":"Read","input_schema":{"type":"object"}}]}`
	if !golden.EqualJSON(t, last.Body, []byte(want)) {
		t.Errorf("upstream body %s", last.Body)
	}
	client := gw.Client()
	n, err := client.Messages.CountTokens(t.Context(), anthropic.MessageCountTokensParams{
		Model:    "claude-opus-4-6",
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hello"))},
	})
	if err != nil || n.InputTokens != 3120 {
		t.Errorf("SDK CountTokens = %+v, %v", n, err)
	}
}

// TestUpstreamErrors: Azure's errors keep their status and Retry-After and,
// with or without split_tags, reach the client in Anthropic's shape with
// Azure's message (an Anthropic-shaped error passes through as it is).
func TestUpstreamErrors(t *testing.T) {
	cases := []struct {
		name, body, retry string
		status            int
		wantSplit         string
	}{
		{"azure rate limit", `{"error":{"code":"RateLimitReached","message":"Your requests to claude-opus-4-6-foundry have exceeded the token rate limit. Please retry after 12 seconds."}}`, "12", 429,
			`{"type":"error","error":{"type":"rate_limit_error","message":"Your requests to claude-opus-4-6-foundry have exceeded the token rate limit. Please retry after 12 seconds."}}`},
		{"azure deployment not found", `{"error":{"code":"DeploymentNotFound","message":"The API deployment for this resource does not exist."}}`, "", 404,
			`{"type":"error","error":{"type":"not_found_error","message":"The API deployment for this resource does not exist."}}`},
		{"model overloaded", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "", 529,
			`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			up := mockAzure(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if c.retry != "" {
					w.Header().Set("Retry-After", c.retry)
				}
				w.WriteHeader(c.status)
				_, _ = io.WriteString(w, c.body)
			})
			for _, split := range []bool{false, true} {
				opts, want := "", c.wantSplit
				if split {
					opts = "\tsplit_tags"
				}
				gw := testgw.Start(t, testgw.SlotAzure, site(opts, up))
				res, body := gw.PostRead("/v1/messages", `{"model":"claude-opus-4-6","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"q"}]}`)
				if res.StatusCode != c.status || body != want || res.Header.Get("Retry-After") != c.retry {
					t.Errorf("split_tags=%v: got %d %s (Retry-After %q)\nwant %d %s", split, res.StatusCode, body, res.Header.Get("Retry-After"), c.status, want)
				}
			}
		})
	}
}

// TestBadKey: a wrong api_key gets Azure's 401 to the client (as an
// Anthropic authentication_error with split_tags).
func TestBadKey(t *testing.T) {
	up := mockAzure(t, nil)
	gw := testgw.Start(t, testgw.SlotAzure, strings.Replace(site("\tsplit_tags", up), azureKey, "wrong-key", 1))
	res, body := gw.PostRead("/v1/messages", `{"model":"claude-opus-4-6","max_tokens":5,"messages":[{"role":"user","content":"q"}]}`)
	if res.StatusCode != 401 || !strings.HasPrefix(body, `{"type":"error","error":{"type":"authentication_error","message":"Access denied due to invalid subscription key`) {
		t.Errorf("got %d %s", res.StatusCode, body)
	}
}

// TestCutStream: Azure breaking mid-stream ends a split_tags stream with
// the open block closed and an error event; a passthrough is cut.
func TestCutStream(t *testing.T) {
	full := taggedSSE(taggedText, 3)
	cut := full[:bytes.Index(full, []byte(`"ns "`))] // inside the thinking span
	up := mockAzure(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		_, _ = w.Write(cut)
		http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler)
	})
	req := `{"model":"claude-opus-4-6","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"q"}]}`

	gw := testgw.Start(t, testgw.SlotAzure, site("\tsplit_tags", up))
	res := gw.Post("/v1/messages", req)
	events := testgw.Summary(t, testgw.ReadEvents(t, res.Body))
	res.Body.Close()
	if n := len(events); n < 2 || events[n-2] != "content_block_stop 1" || !strings.HasPrefix(events[n-1], `error {"type":"api_error"`) {
		t.Errorf("events:\n%s", strings.Join(events, "\n"))
	}

	gw = testgw.Start(t, testgw.SlotAzure, site("", up))
	res = gw.Post("/v1/messages", req)
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err == nil || string(body) != string(cut) {
		t.Errorf("passthrough read %q, %v", body, err)
	}
}

// TestClientCredential: without api_key the client's own credential goes
// to Azure: its key under both of Azure's names, or its Entra ID bearer token.
func TestClientCredential(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		testgw.WriteChunks(w, "text/event-stream", azureSSE, 256)
	})
	gw := testgw.Start(t, testgw.SlotAzure, fmt.Sprintf("thinkgate azure {\n}\nreverse_proxy %s", up.Addr()))
	gw.Stream(anthropic.MessageNewParams{Model: "claude-opus-4-6", MaxTokens: 5,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("q"))}},
		option.WithAPIKey("client-azure-key"))
	if h := up.Last(t).Header; h.Get("X-Api-Key") != "client-azure-key" || h.Get("Api-Key") != "client-azure-key" || h.Get("Authorization") != "" {
		t.Errorf("key: %v", h)
	}
	gw.Stream(anthropic.MessageNewParams{Model: "claude-opus-4-6", MaxTokens: 5,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("q"))}},
		option.WithAPIKey(""), option.WithAuthToken("eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.entra"))
	if h := up.Last(t).Header; h.Get("Authorization") != "Bearer eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.entra" || h.Get("Api-Key") != "" {
		t.Errorf("bearer: %v", h)
	}
}

// TestOptions: path, drop_fields and drop_betas (repeated, adding to the
// defaults) shape what Azure receives.
func TestOptions(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		testgw.WriteChunks(w, "text/event-stream", azureSSE, 256)
	})
	gw := testgw.Start(t, testgw.SlotAzure, fmt.Sprintf(`thinkgate azure {
	api_key {env.THINKGATE_TEST_AZURE_KEY}
	path /custom/anthropic/v1/messages
	drop_fields output_config
	drop_fields container
	drop_betas context-1m-2025-08-07
	drop_betas web-search-2025-03-05
}
reverse_proxy %s`, up.Addr()))
	req := `{"model":"claude-opus-4-6","max_tokens":5,"stream":true,"output_config":{"effort":"low"},"container":"c1","betas":["x"],"messages":[{"role":"user","content":"q"}]}`
	res, _ := gw.PostRead("/v1/messages", req,
		"anthropic-beta", "context-1m-2025-08-07,interleaved-thinking-2025-05-14,web-search-2025-03-05")
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	last := up.Last(t)
	if last.Path != "/custom/anthropic/v1/messages" || !reflect.DeepEqual(last.Header.Values("Anthropic-Beta"), []string{"interleaved-thinking-2025-05-14"}) ||
		last.Header.Get("X-Api-Key") != "key-from-env" {
		t.Errorf("upstream %s %v", last.Path, last.Header)
	}
	if want := `{"model":"claude-opus-4-6","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"q"}]}`; string(last.Body) != want {
		t.Errorf("upstream body %s", last.Body)
	}
}

func TestMain(m *testing.M) {
	// api_key placeholders resolve at config load.
	os.Setenv("THINKGATE_TEST_AZURE_KEY", "key-from-env")
	os.Exit(m.Run())
}

// TestConfigErrors: bad azure options are refused at load, by name.
func TestConfigErrors(t *testing.T) {
	p := testgw.PortsFor(testgw.SlotAzure)
	for _, c := range []struct{ opts, want string }{
		{"frobnicate 1", "thinkgate azure: unknown option 'frobnicate'"},
		{"path anthropic/v1/messages", `path: must start with /, got "anthropic/v1/messages"`},
		{"drop_fields", "wrong argument count"},
		{"drop_fields messages", `drop_fields: "messages" is required by Azure and cannot be dropped`},
		{"drop_betas a,b", `drop_betas: "a,b" is not a single beta name`},
		{"api_key", "wrong argument count"},
	} {
		cfg := testgw.Preamble(p) + fmt.Sprintf("http://localhost:%d {\nthinkgate azure {\n\t%s\n}\nrespond ok\n}\n", p.HTTP, c.opts)
		if got := testgw.LoadError(t, testgw.SlotAzure, cfg); !strings.Contains(got, c.want) {
			t.Errorf("%s: load error %q does not contain %q", c.opts, got, c.want)
		}
	}
}

// TestAdapt: the Caddyfile options become the module's JSON fields.
func TestAdapt(t *testing.T) {
	got := testgw.AdaptProvider(t, `:8080
thinkgate azure {
	api_key {env.AZURE_API_KEY}
	path /anthropic/v1/messages
	drop_fields output_config container
	drop_betas context-1m-2025-08-07
	drop_betas web-search-2025-03-05
}
reverse_proxy https://myres.services.ai.azure.com`)
	want := `{"api_key":"{env.AZURE_API_KEY}","drop_betas":["context-1m-2025-08-07","web-search-2025-03-05"],"drop_fields":["output_config","container"],"name":"azure","path":"/anthropic/v1/messages"}`
	if !golden.EqualJSON(t, got, []byte(want)) {
		t.Errorf("provider JSON %s\nwant %s", got, want)
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMessagesGivenTwice: a body that gives messages as two arrays, which
// JSON decoding would merge element by element, is refused at the gateway
// with a 400 that names the rule, before Azure is called; with a null
// between them it is a request, and Azure gets the history JSON decoding
// keeps.
func TestMessagesGivenTwice(t *testing.T) {
	up := mockAzure(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"`+deployment+`","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`)
	})
	gw := testgw.Start(t, testgw.SlotAzure, site("", up))
	const twice = `{"model":"claude-opus-4-6","max_tokens":64,"messages":[{"role":"user","content":"a"}],"Messages":[{"role":"user","content":"b"},{"role":"assistant","content":"c"}]}`
	res, body := gw.PostRead("/v1/messages", twice, "x-api-key", "client-key", "anthropic-version", "2023-06-01")
	const want = `{"type":"error","error":{"type":"invalid_request_error","message":"messages: given more than once; a request gives it once"}}`
	if res.StatusCode != http.StatusBadRequest || body != want {
		t.Errorf("got %d %s\nwant 400 %s", res.StatusCode, body, want)
	}
	if n := len(up.Requests()); n != 0 {
		t.Errorf("Azure received %d requests, want none", n)
	}
	const once = `{"model":"claude-opus-4-6","max_tokens":64,"messages":[{"role":"user","content":"a"}],"Messages":null,"messages":[{"role":"user","content":"b"}]}`
	res, body = gw.PostRead("/v1/messages", once, "x-api-key", "client-key", "anthropic-version", "2023-06-01")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `"text":"ok"`) {
		t.Fatalf("got %d %s, want Azure's answer", res.StatusCode, body)
	}
	// The model mapped, the body is written again as JSON decoding reads
	// it: each name once, at its first place, with its last value.
	const sent = `{"model":"` + deployment + `","max_tokens":64,"messages":[{"role":"user","content":"b"}],"Messages":null}`
	if got, want := string(up.Last(t).Body), sent; got != want {
		t.Errorf("Azure got %s\nwant %s", got, want)
	}
}
