// Package recipe_test runs docs/routing-recipe.Caddyfile, the routing
// recipe the docs offer Claude Code users, through a real Caddy: the file as
// written, its upstream addresses replaced by httptest servers speaking each
// provider's format, and requests shaped as Claude Code sends them through
// the official SDK.
//
// TestRecipeRoutes runs the file with each body matcher (@name thinkgate
// {…}) replaced by a header matcher, so that everything else in it — the
// providers, their model rules, the fallback — is checked on its own.
// TestRecipe, in matcher_test.go, runs the file unchanged.
package recipe_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/internal/testgw"
	"github.com/thinkgate/thinkgate/providers/openai/openaitest"
)

// slot is this package's own ports.
const slot = testgw.SlotRecipe

const recipePath = "../../docs/routing-recipe.Caddyfile"

// The upstreams the recipe names, and the test servers standing in for them.
var upstreamURLs = map[string]string{
	"openrouter": "https://openrouter.ai",
	"gemini":     "https://generativelanguage.googleapis.com",
	"anthropic":  "https://api.anthropic.com",
	"deepseek":   "https://api.deepseek.com",
	"openai":     "https://api.openai.com",
}

// keys are the recipe's {env.*} keys, as the test sets them.
var keys = map[string]string{
	"OPENROUTER_API_KEY": "sk-or-test",
	"GEMINI_API_KEY":     "gm-test",
	"ANTHROPIC_API_KEY":  "sk-ant-test",
	"DEEPSEEK_API_KEY":   "sk-ds-test",
	"OPENAI_API_KEY":     "sk-oa-test",
}

// bodyMatcher is one of the recipe's body-matcher definitions.
var bodyMatcher = regexp.MustCompile(`(?m)^\t@(\w+) thinkgate \{\n(?:\t\t.*\n)*?\t\}\n`)

type upstreams map[string]*testgw.Upstream

// recipe returns the recipe as a test loads it: the test's global options
// first, its site on the slot's port, its upstreams replaced by ups. With
// headerMatchers, each body matcher becomes a header matcher on
// X-Recipe-Route: <its name>.
func recipe(t *testing.T, ups upstreams, headerMatchers bool) string {
	t.Helper()
	b, err := os.ReadFile(recipePath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if got := string(caddyfile.Format(b)); got != text {
		t.Errorf("%s is not formatted as caddy fmt writes it", recipePath)
	}
	p := testgw.PortsFor(slot)
	mustReplace := func(old, new string) {
		if !strings.Contains(text, old) {
			t.Fatalf("the recipe lacks %q", old)
		}
		text = strings.ReplaceAll(text, old, new)
	}
	mustReplace("http://localhost:8080 {", fmt.Sprintf("http://localhost:%d {", p.HTTP))
	for name, url := range upstreamURLs {
		mustReplace("reverse_proxy "+url+"\n", "reverse_proxy "+ups[name].URL+"\n")
	}
	if headerMatchers {
		if n := len(bodyMatcher.FindAllString(text, -1)); n != 6 {
			t.Fatalf("found %d body matchers in the recipe, want 6", n)
		}
		text = bodyMatcher.ReplaceAllString(text, "\t@$1 header X-Recipe-Route $1\n")
	}
	for k, v := range keys {
		t.Setenv(k, v)
	}
	return testgw.Preamble(p) + "\n" + text
}

const (
	openrouterText = "OpenRouter answers."
	geminiText     = "Gemini answers."
	anthropicText  = "Anthropic searched the web."
	deepseekText   = "DeepSeek answers."
	deepseekPlan   = "The user wants a title."
	openaiText     = "GPT answers."
)

func isStream(body []byte) bool { return strings.Contains(string(body), `"stream":true`) }

// openaiServer answers Chat Completions with text, and with reasoning
// first when the model is a reasoner.
func openaiServer(text string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct{ Model string }
		_ = json.Unmarshal(body, &req)
		reasoning := ""
		if strings.HasSuffix(req.Model, "-reasoner") {
			reasoning = deepseekPlan
		}
		if isStream(body) {
			c := openaitest.New()
			if reasoning != "" {
				c.ReasoningContent(reasoning, 5)
			}
			testgw.WriteChunks(w, "text/event-stream", c.Content(text, 4).Finish("stop").Usage(900, 12, 0).Done().Bytes(), 64)
			return
		}
		msg, _ := json.Marshal(map[string]any{"role": "assistant", "content": text, "reasoning_content": reasoning})
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1730000000,"model":%q,"choices":[{"index":0,"message":%s,"finish_reason":"stop"}],"usage":{"prompt_tokens":900,"completion_tokens":12,"total_tokens":912}}`, req.Model, msg)
	}
}

func geminiChunk(text string) string {
	return `{"candidates":[{"content":{"parts":[{"text":"` + text + `"}],"role":"model"},"finishReason":"STOP","index":0}],` +
		`"usageMetadata":{"promptTokenCount":11,"candidatesTokenCount":6,"totalTokenCount":17},"modelVersion":"gemini-2.5"}`
}

func geminiServer(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
		testgw.WriteChunks(w, "text/event-stream", []byte("data: "+geminiChunk(geminiText)+"\r\n\r\n"), 1<<20)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, geminiChunk(geminiText))
}

// anthropicServer answers with a text stream for the model asked.
func anthropicServer(w http.ResponseWriter, r *http.Request) {
	var req struct{ Model string }
	_ = json.NewDecoder(r.Body).Decode(&req)
	stream := strings.Replace(string(testgw.AnthropicTextStream(anthropicText, 5)), `"model":"up-model"`, `"model":"`+req.Model+`"`, 1)
	testgw.WriteChunks(w, "text/event-stream; charset=utf-8", []byte(stream), 40)
}

func startUpstreams(t *testing.T) upstreams {
	return upstreams{
		"openrouter": testgw.NewUpstream(t, openaiServer(openrouterText)),
		"gemini":     testgw.NewUpstream(t, geminiServer),
		"anthropic":  testgw.NewUpstream(t, anthropicServer),
		"deepseek":   testgw.NewUpstream(t, openaiServer(deepseekText)),
		"openai":     testgw.NewUpstream(t, openaiServer(openaiText)),
	}
}

// claudeCodeTurn is a main-loop request of Claude Code: cached system
// blocks, a trailing role:"system" message, a deferred tool, adaptive
// thinking, context_management, streamed. edit changes it.
func claudeCodeTurn(t *testing.T, edit func(req map[string]any)) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "openai", "testdata", "claude_code.request.json"))
	if err != nil {
		t.Fatal(err)
	}
	var req map[string]any
	if err := json.Unmarshal(b, &req); err != nil {
		t.Fatal(err)
	}
	// A history the gateway signed is not this gateway's: start afresh.
	req["messages"] = []any{
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "<system-reminder>\nRun go test -race before committing.\n</system-reminder>"},
			map[string]any{"type": "text", "text": "The parser test fails, can you fix it?", "cache_control": map[string]any{"type": "ephemeral"}},
		}},
		map[string]any{"role": "system", "content": "<system-reminder>\nThe TodoWrite tool hasn't been used recently.\n</system-reminder>"},
	}
	if edit != nil {
		edit(req)
	}
	out, _ := json.Marshal(req)
	return out
}

// The requests of each kind, as Claude Code sends them.

// mainTurn is Claude Code's default request: thinking left to the model
// ("adaptive").
func mainTurn(t *testing.T) []byte { return claudeCodeTurn(t, nil) }

// thinkingTurn asks for thinking with a budget, as Claude Code does for a
// model without adaptive thinking when thinking is switched on.
func thinkingTurn(t *testing.T) []byte {
	return claudeCodeTurn(t, func(req map[string]any) {
		req["thinking"] = map[string]any{"type": "enabled", "budget_tokens": 31999}
	})
}

// noThinkingField is a request that does not mention thinking.
func noThinkingField(t *testing.T) []byte {
	return claudeCodeTurn(t, func(req map[string]any) {
		delete(req, "thinking")
		delete(req, "context_management")
		delete(req, "output_config")
	})
}

func withoutThinking(t *testing.T) []byte {
	return claudeCodeTurn(t, func(req map[string]any) {
		req["thinking"] = map[string]any{"type": "disabled"}
		delete(req, "context_management") // Claude Code sends it with thinking only
		delete(req, "output_config")
	})
}

func routed(model string) func(t *testing.T) []byte {
	return func(t *testing.T) []byte {
		return claudeCodeTurn(t, func(req map[string]any) { req["model"] = model })
	}
}

// backgroundCall is Claude Code's small-fast-model call (a title for the
// session): Haiku, no tools, no thinking.
func backgroundCall(t *testing.T) []byte {
	return []byte(`{"model":"claude-haiku-4-5-20251001","max_tokens":512,"stream":true,` +
		`"system":[{"type":"text","text":"You are Claude Code, Anthropic's official CLI for Claude."},{"type":"text","text":"Analyze if this message indicates a new conversation topic. Format your response as a JSON object with two fields: 'isNewTopic' (boolean) and 'title' (string)."}],` +
		`"messages":[{"role":"user","content":"The parser test fails, can you fix it?"}],"metadata":{"user_id":"{\"session_id\":\"7d1f3a2e\"}"}}`)
}

// webSearchCall is the request Claude Code's WebSearch tool makes: the
// server tool web_search_20250305.
func webSearchCall(t *testing.T) []byte {
	return []byte(`{"model":"claude-sonnet-4-5-20250929","max_tokens":32000,"stream":true,` +
		`"system":[{"type":"text","text":"You are Claude Code, Anthropic's official CLI for Claude."},{"type":"text","text":"You are an assistant for performing a web search tool use"}],` +
		`"messages":[{"role":"user","content":"Perform a web search for the query: caddy reverse_proxy response_header_timeout"}],` +
		`"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":8}],"metadata":{"user_id":"{\"session_id\":\"7d1f3a2e\"}"}}`)
}

// longContext is a main turn over 60,000 input tokens.
func longContext(t *testing.T) []byte {
	return claudeCodeTurn(t, func(req map[string]any) {
		msgs := req["messages"].([]any)
		msgs[0].(map[string]any)["content"] = append(msgs[0].(map[string]any)["content"].([]any),
			map[string]any{"type": "text", "text": strings.Repeat("func parse(s string) (Node, error) { return parseExpr(s, 0) }\n", 6000)})
	})
}

// recipeCase is one kind of request and where the recipe must send it.
type recipeCase struct {
	name, route string
	body        func(t *testing.T) []byte
	upstream    string // key of the upstream that must get it
	path        string // the path that upstream must get
	model       string // the upstream model ("" when the path carries it)
	// modelTarget: the model rule keeps what its glob matched (checked with
	// the body matchers only; see TestRecipe).
	modelTarget   bool
	text, thought string // the answer the SDK must accumulate
}

var cases = []recipeCase{
	{name: "provider,model name to OpenRouter", route: "openrouter", body: routed("openrouter,anthropic/claude-sonnet-4"),
		upstream: "openrouter", path: "/api/v1/chat/completions", model: "anthropic/claude-sonnet-4", modelTarget: true, text: openrouterText},
	{name: "provider,model name to Gemini", route: "gemini", body: routed("gemini,gemini-2.5-flash-lite"),
		upstream: "gemini", path: "/v1beta/models/gemini-2.5-flash-lite:streamGenerateContent", modelTarget: true, text: geminiText},
	{name: "web search to Anthropic", route: "web_search", body: webSearchCall,
		upstream: "anthropic", path: "/v1/messages", model: "claude-sonnet-4-5-20250929", text: anthropicText},
	{name: "long context to Gemini Pro", route: "long_context", body: longContext,
		upstream: "gemini", path: "/v1beta/models/gemini-2.5-pro:streamGenerateContent", text: geminiText},
	{name: "background Haiku call to DeepSeek chat", route: "background", body: backgroundCall,
		upstream: "deepseek", path: "/v1/chat/completions", model: "deepseek-chat", text: deepseekText},
	{name: "thinking turn to DeepSeek reasoner", route: "thinking", body: thinkingTurn,
		upstream: "deepseek", path: "/v1/chat/completions", model: "deepseek-reasoner", text: deepseekText, thought: deepseekPlan},
	{name: "Claude Code's default request (adaptive thinking) to OpenAI", body: mainTurn,
		upstream: "openai", path: "/v1/chat/completions", model: "gpt-4.1", text: openaiText},
	{name: "a request without thinking to OpenAI", body: noThinkingField,
		upstream: "openai", path: "/v1/chat/completions", model: "gpt-4.1", text: openaiText},
	{name: "anything else to OpenAI", body: withoutThinking,
		upstream: "openai", path: "/v1/chat/completions", model: "gpt-4.1", text: openaiText},
}

// claudeCodeOptions are the headers and query Claude Code sends.
func claudeCodeOptions() []option.RequestOption {
	return []option.RequestOption{
		option.WithQuery("beta", "true"),
		option.WithHeader("anthropic-beta", "claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27"),
		option.WithHeader("anthropic-dangerous-direct-browser-access", "true"),
		option.WithHeader("x-app", "cli"),
		option.WithHeader("User-Agent", "claude-cli/2.0.50 (external, cli)"),
	}
}

// send streams body through the SDK and returns the accumulated message.
func send(t *testing.T, gw *testgw.Gateway, body []byte, opts ...option.RequestOption) anthropic.Message {
	t.Helper()
	client := gw.Client()
	opts = append(append(claudeCodeOptions(), opts...), option.WithRequestBody("application/json", body))
	stream := client.Messages.NewStreaming(context.Background(), anthropic.MessageNewParams{}, opts...)
	defer stream.Close()
	var msg anthropic.Message
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatalf("Accumulate: %v", err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	return msg
}

// check runs one case: only its upstream gets the request, at its path,
// for its model, with its key, and the SDK accumulates its answer.
func check(t *testing.T, gw *testgw.Gateway, ups upstreams, c recipeCase, opts ...option.RequestOption) {
	t.Helper()
	before := map[string]int{}
	for k, u := range ups {
		before[k] = len(u.Requests())
	}
	body := c.body(t)
	msg := send(t, gw, body, opts...)
	for k, u := range ups {
		want := before[k]
		if k == c.upstream {
			want++
		}
		if got := len(u.Requests()); got != want {
			t.Errorf("%s got %d requests, want %d", k, got-before[k], want-before[k])
		}
	}
	if t.Failed() {
		return
	}
	got := ups[c.upstream].Last(t)
	if got.Path != c.path {
		t.Errorf("%s got path %s, want %s", c.upstream, got.Path, c.path)
	}
	var sent struct{ Model string }
	_ = json.Unmarshal(got.Body, &sent)
	if c.model != "" && sent.Model != c.model {
		t.Errorf("%s got model %q, want %q", c.upstream, sent.Model, c.model)
	}
	checkKey(t, c.upstream, got.Header)

	var model struct{ Model string }
	_ = json.Unmarshal(body, &model)
	if msg.Model != model.Model {
		t.Errorf("the client sees model %q, want the one it asked for, %q", msg.Model, model.Model)
	}
	var text, thought []string
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "thinking":
			thought = append(thought, b.Thinking)
		}
	}
	if strings.Join(text, "") != c.text || strings.Join(thought, "") != c.thought {
		t.Errorf("answer: text %q thinking %q, want %q and %q", text, thought, c.text, c.thought)
	}
}

// checkKey checks an upstream got its own key and no client credential.
func checkKey(t *testing.T, upstream string, h http.Header) {
	t.Helper()
	want := map[string][2]string{
		"openrouter": {"Authorization", "Bearer sk-or-test"},
		"deepseek":   {"Authorization", "Bearer sk-ds-test"},
		"openai":     {"Authorization", "Bearer sk-oa-test"},
		"gemini":     {"X-Goog-Api-Key", "gm-test"},
		"anthropic":  {"X-Api-Key", "sk-ant-test"},
	}[upstream]
	if h.Get(want[0]) != want[1] {
		t.Errorf("%s got %s %q, want %q", upstream, want[0], h.Get(want[0]), want[1])
	}
	if upstream != "anthropic" && h.Get("X-Api-Key") != "" {
		t.Errorf("%s got the client's x-api-key", upstream)
	}
}

// TestRecipeRoutes: each route of the recipe, chosen by header in place of
// its body matcher, sends Claude Code's request to its provider with the
// recipe's model and key, and the SDK accumulates the answer.
func TestRecipeRoutes(t *testing.T) {
	ups := startUpstreams(t)
	gw := testgw.StartConfig(t, slot, recipe(t, ups, true))
	for _, c := range cases {
		if c.modelTarget {
			continue // the route needs its model target: TestRecipe
		}
		t.Run(c.name, func(t *testing.T) {
			var opts []option.RequestOption
			if c.route != "" {
				opts = append(opts, option.WithHeader("X-Recipe-Route", c.route))
			}
			check(t, gw, ups, c, opts...)
		})
	}
	t.Run("web search keeps Claude Code's request", func(t *testing.T) {
		got := ups["anthropic"].Last(t)
		if got.RawQuery != "beta=true" || !strings.Contains(got.Header.Get("Anthropic-Beta"), "claude-code-20250219") {
			t.Errorf("anthropic got ?%s with anthropic-beta %q", got.RawQuery, got.Header.Get("Anthropic-Beta"))
		}
		if !strings.Contains(string(got.Body), `"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":8}]`) {
			t.Errorf("anthropic got %s", got.Body)
		}
	})
	t.Run("the thinking turn's deferred tool and system message reach DeepSeek", func(t *testing.T) {
		var got struct {
			Messages []struct{ Role string }
			Tools    []struct{ Function struct{ Name string } }
		}
		body := ups["deepseek"].Last(t).Body
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		var roles, tools []string
		for _, m := range got.Messages {
			roles = append(roles, m.Role)
		}
		for _, tl := range got.Tools {
			tools = append(tools, tl.Function.Name)
		}
		if strings.Join(roles, ",") != "system,user,system" {
			t.Errorf("roles %v", roles)
		}
		if len(tools) != 12 || !strings.HasPrefix(tools[11], "mcp__claude_ai_Google_Drive__") {
			t.Errorf("tools %v", tools)
		}
	})
}

// TestRecipeFallback: the default route falls back from OpenAI to Gemini
// Flash on a 429 and on a 5xx, and not on a 400.
func TestRecipeFallback(t *testing.T) {
	ups := startUpstreams(t)
	gw := testgw.StartConfig(t, slot, recipe(t, ups, true))
	toFlash := recipeCase{body: withoutThinking, upstream: "gemini",
		path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent", text: geminiText}
	for _, status := range []int{429, 500, 503, 529} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			ups["openai"].Handler = func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				fmt.Fprintf(w, `{"error":{"message":"openai says %d","type":"server_error"}}`, status)
			}
			before := len(ups["openai"].Requests())
			check(t, gw, upstreamsWithout(ups, "openai"), toFlash)
			if n := len(ups["openai"].Requests()) - before; n != 1 {
				t.Errorf("openai got %d requests, want 1", n)
			}
		})
	}
	t.Run("400: no fallback", func(t *testing.T) {
		ups["openai"].Handler = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			io.WriteString(w, `{"error":{"message":"openai says 400","type":"invalid_request_error"}}`)
		}
		before := len(ups["gemini"].Requests())
		client := gw.Client()
		opts := append(claudeCodeOptions(), option.WithRequestBody("application/json", withoutThinking(t)))
		_, err := client.Messages.New(context.Background(), anthropic.MessageNewParams{}, opts...)
		var apiErr *anthropic.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(apiErr.RawJSON(), "openai says 400") {
			t.Errorf("error %v", err)
		}
		if len(ups["gemini"].Requests()) != before {
			t.Errorf("gemini was called")
		}
	})
}

// upstreamsWithout leaves one upstream out of the request counts.
func upstreamsWithout(ups upstreams, name string) upstreams {
	out := upstreams{}
	for k, u := range ups {
		if k != name {
			out[k] = u
		}
	}
	return out
}
