package openai

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// goldenCases are TestConvertRequestGolden's: the converted body of each
// input under each configuration is in requests/<name>.out.json.
var goldenCases = []struct {
	name, in string
	cfg      Config
	settings func(*providers.Settings)
}{
	// The mandatory Claude-Code-shaped turn: three cached system blocks,
	// a trailing role:"system" message, twelve tools (one deferred, one
	// with a name over 64 characters), adaptive thinking, Anthropic-only
	// fields, metadata.user_id holding JSON.
	{name: "claude_code", in: "claude_code"},
	{name: "claude_code_reasoning_content", in: "claude_code", cfg: Config{ReasoningHistory: HistoryReasoningContent}},
	{name: "basic", in: "basic"},
	{name: "thinking_budget", in: "thinking_budget", cfg: Config{MaxTokensField: MaxCompletionTokens}},
	{name: "thinking_disabled", in: "thinking_disabled"},
	{name: "thinking_disabled_reasoning_content", in: "thinking_disabled", cfg: Config{ReasoningHistory: HistoryReasoningContent}},
	{name: "history", in: "history"},
	{name: "history_reasoning_content", in: "history", cfg: Config{ReasoningHistory: HistoryReasoningContent}},
	{name: "history_think_tag", in: "history", settings: func(s *providers.Settings) { s.Parse.Tags = []string{"think", "thinking"} }},
	{name: "history_custom_hint", in: "thinking_budget", settings: func(s *providers.Settings) {
		s.ThinkingHint = "Think in <thinking> tags, at most {budget} tokens."
		s.Models = []providers.ModelRule{{From: "claude-*", To: "deepseek-reasoner"}}
	}},
	{name: "tools", in: "tools"},
}

// scannedExchange reads body as the handler does for this provider
// (ScanRequest) and prepares an exchange.
func scannedExchange(t testing.TB, s *providers.Settings, body []byte) (*providers.Exchange, error) {
	t.Helper()
	req, err := providers.ParseRequestFor(New(Config{}), body)
	if err != nil {
		return nil, err
	}
	return providers.NewExchange(s, req, body, providers.ExchangeOptions{NewBody: providertest.DirtyBody}), nil
}

// TestConvertRequestFromBytesGolden: a request read by ScanRequest, as the
// handler reads it, converts from the client's bytes to exactly the golden
// body, byte for byte what the typed converter writes.
func TestConvertRequestFromBytesGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			s := testSettings()
			if tc.settings != nil {
				tc.settings(s)
			}
			in := []byte(readFile(t, "requests/"+tc.in+".in.json"))
			x, err := scannedExchange(t, s, in)
			if err != nil {
				t.Fatal(err)
			}
			if !x.Request.Scanned() {
				t.Fatal("the request was decoded, not scanned: the typed converter would run")
			}
			body, state, err := ConvertRequest(x, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !x.Request.Scanned() {
				t.Error("the conversion decoded the history")
			}
			golden.JSON(t, "requests/"+tc.name+".out.json", body)
			typed, typedState, err := convertTyped(exchange(t, s, string(in)), tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if string(body) != string(typed) {
				t.Errorf("from bytes:\n%s\ntyped:\n%s", body, typed)
			}
			if !maps.Equal(state.toolNames, typedState.toolNames) {
				t.Errorf("tool names %v, typed %v", state.toolNames, typedState.toolNames)
			}
		})
	}
}

// escapesRequest has strings with escapes the escaper writes and escapes
// it does not, invalid UTF-8 and a lone surrogate.
const escapesRequest = `{"model":"m","max_tokens":5,"system":"sys \u00e9 a\/b","messages":[` +
	`{"role":"user","content":[{"type":"text","text":"plain <b> & \"q\"\n"},{"type":"text","text":"\u0041\ud83d\ude42 \ud800 lone"},` +
	`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO\/Rw=="}}]},` +
	`{"role":"assistant","content":[{"type":"thinking","thinking":"hm \u2028 sep","signature":"s"},{"type":"text","text":"ok"},` +
	`{"type":"tool_use","id":"t\u005f1","name":"na\u006De","input":{ "a" : [1, 2, "x y\/"] , "b":"\u00e9" }}]},` +
	"{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t_1\",\"is_error\":true,\"content\":\"bad \xff byte\"}]}]}"

// TestConvertRequestFromBytesEscapes: strings whose escapes the escaper
// writes differently are decoded and escaped again, the others copied; the
// body is the typed converter's either way.
func TestConvertRequestFromBytesEscapes(t *testing.T) {
	body := escapesRequest
	x, err := scannedExchange(t, testSettings(), []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if !x.Request.Scanned() {
		t.Fatal("not scanned")
	}
	got, _, err := ConvertRequest(x, Config{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","messages":[` +
		`{"role":"system","content":"sys é a/b\n` + hintJSON(t) + `"},` +
		`{"role":"user","content":[{"type":"text","text":"plain <b> & \"q\"\n\nA🙂 ` + "\uFFFD" + ` lone"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBO/Rw=="}}]},` +
		`{"role":"assistant","content":"<thinking>hm \u2028 sep</thinking>ok","tool_calls":[{"id":"t_1","type":"function","function":{"name":"name","arguments":"{\"a\":[1,2,\"x y\\/\"],\"b\":\"\\u00e9\"}"}}]},` +
		`{"role":"tool","content":"Error: bad ` + "\uFFFD" + ` byte","tool_call_id":"t_1"}],"max_tokens":5}`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	typed, _, err := convertTyped(exchange(t, nil, body), Config{})
	if err != nil || string(typed) != string(got) {
		t.Errorf("typed: %v\n%s", err, typed)
	}
}

// hintJSON is the default thinking hint as a JSON string's body.
func hintJSON(t *testing.T) string {
	b, err := json.Marshal(testSettings().Hint(wire.ThinkingParam{}))
	if err != nil {
		t.Fatal(err)
	}
	return strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(b[1 : len(b)-1]))
}

// TestConvertRequestFromBytesErrors: the errors of TestConvertRequestErrors,
// from the client's bytes.
func TestConvertRequestFromBytesErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"role":"user","content":[{"type":"text","text":"read"},{"type":"document","source":{"type":"url","url":"https://example.com/a.pdf"}}]}`,
			`messages.0.content.1: document block with a url source (the gateway fetches nothing: send the document as base64 data or text) is not supported by the openai provider`},
		{`{"role":"user","content":[{"type":"document","source":{"type":"file","file_id":"file_1"}}]}`,
			`messages.0.content.0: document block (source file) is not supported by the openai provider`},
		{`{"role":"user","content":[{"type":"search_result","title":"t","content":[{"type":"text","text":"r"}]}]}`,
			`messages.0.content.0: content block type "search_result" in a user message is not supported by the openai provider`},
		{`{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}]}`,
			`messages.0.content.0: content block type "server_tool_use" in an assistant message is not supported by the openai provider`},
		{`{"role":"user","content":[{"type":"image","source":{"type":"file","file_id":"file_1"}}]}`,
			`messages.0.content.0.source: image source type "file" is not supported by the openai provider`},
		{`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"document","source":{"type":"text","data":"x"}}]}]}`,
			`messages.0.content.0.content.0: content block type "document" in a tool_result is not supported by the openai provider`},
		{`{"role":"system","content":[{"type":"image","source":{"type":"url","url":"u"}}]}`,
			`messages.0.content.0: content block type "image" in a system prompt is not supported by the openai provider`},
		{`{"role":"user","content":"ok"},{"content":[{"type":"image"}],"role":"user"}`,
			`messages.1.content.0.source: image source type missing is not supported by the openai provider`},
		{`{"role":"user","content":[{"type":"document","source":"https://example.com"}]}`,
			`messages.0.content.0: document block (source string) is not supported by the openai provider`},
	} {
		x, err := scannedExchange(t, testSettings(), []byte(`{"model":"m","max_tokens":1,"messages":[`+tc.body+`]}`))
		if err != nil {
			t.Fatal(err)
		}
		if !x.Request.Scanned() {
			t.Fatalf("%s: not scanned", tc.body)
		}
		_, _, err = ConvertRequest(x, Config{})
		e, ok := err.(*wire.Error)
		if !ok || e.Status != 400 || e.Type != "invalid_request_error" || e.Message != tc.want {
			t.Errorf("%s:\ngot %#v\nwant 400 invalid_request_error %q", tc.body, err, tc.want)
		}
	}
}

// fastConfigs are the configurations the differential fuzz target picks
// from.
var fastConfigs = []Config{
	{},
	{ReasoningHistory: HistoryReasoningContent},
	{ThinkingMode: ModeEffort, MaxTokensField: MaxCompletionTokens},
	{ThinkingMode: ModeBoth, ReasoningHistory: HistoryContent},
	{ThinkingMode: ModeOpenRouter},
	{ThinkingMode: ModeNone, ReasoningHistory: HistoryReasoningContent},
	{ReasoningHistory: HistoryMistral},
	{ReasoningHistory: HistoryOpenRouter},
}

// FuzzOpenAIFastMatchesTyped: for any body, the conversion from the
// client's bytes (of a request read by ScanRequest, and of one read by
// ParseRequest) and the typed reference (request_typed_test.go) write the
// same bytes and shorten the same tool names, or fail with the same error.
func FuzzOpenAIFastMatchesTyped(f *testing.F) {
	dir := filepath.Join("testdata", "requests")
	ents, err := os.ReadDir(dir)
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".in.json") {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b, byte(0))
			f.Add(b, byte(1))
		}
	}
	for i, s := range fuzzcheck.Seeds {
		f.Add([]byte(s), byte(i))
	}
	f.Add([]byte(escapesRequest), byte(0))
	f.Add([]byte(escapesRequest), byte(0x81))
	f.Add([]byte(`{"model":"m","messages":[{"content":[{"type":"tool_result","tool_use_id":"","content":[{"type":"image","source":{"type":"url","url":"u","url":null}},{"type":"text","text":""}]},{"type":"document","source":{"data":"d","type":"text","type":null}}],"x":1,"role":"user"},{"role":"assistant","content":[{"type":"thinking","thinking":""},{"type":"thinking","thinking":"b"},{"type":"redacted_thinking","data":"x"}]},{"role":"system","content":"s"},{"role":"assistant","content":""},{"role":"user"}]}`), byte(1))
	f.Add([]byte(`{"model":"m","Messages":[{"role":"user","content":"a"}],"messages":[{"Role":"user","content":[{"type":"text","Text":"x","TEXT":null},{"t\u0079pe":"image","source":{"type":"url","url":"u"},"Source":{"Type":"base64","data":"d","media_type":"image/png"}}]},{"role":"assistant","content":[{"type":"tool_use","id":"i","name":"n","input":null},{"type":"thinking","thinking":"t","thinking":"u"}]}],"SYSTEM":"s","system":[{"type":"text","text":"y"}]}`), byte(0))
	// Two thinking blocks in a turn, as reasoning_content (mode 1) and as
	// Mistral's chunks (mode 6).
	twoThoughts := []byte(`{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"a","signature":"s"},{"type":"text","text":"x"},{"type":"thinking","thinking":"b","signature":"s"},{"type":"text","text":"y"},{"type":"text","text":"z"}]}]}`)
	f.Add(twoThoughts, byte(1))
	f.Add(twoThoughts, byte(6))
	// Breakpoints, which OpenRouter's modes (4 and 7) put on text parts.
	f.Add([]byte(cacheRequest), byte(4))
	f.Add([]byte(cacheRequest), byte(7))
	f.Add(shapedRequest(6), byte(0))
	f.Add(shapedRequest(3), byte(1))
	f.Fuzz(func(t *testing.T, body []byte, mode byte) {
		checkFastMatchesTyped(t, body, mode)
		// The same bytes as the choices of a request that scans: most
		// mutations of a body are not JSON, these always are.
		checkFastMatchesTyped(t, providertest.BuiltRequest(body), mode)
	})
}

// checkFastMatchesTyped converts body both ways under the configuration
// mode picks and fails on any difference.
func checkFastMatchesTyped(t *testing.T, body []byte, mode byte) {
	t.Helper()
	cfg := fastConfigs[int(mode)%len(fastConfigs)]
	s := testSettings()
	if mode&0x80 != 0 {
		s.Parse.Tags = []string{"think"}
		s.ThinkingHint = "Think <think> {budget} & more"
	}
	if mode&0x40 != 0 {
		s.DefaultThinking = false
	}
	parsed, perr := wire.ParseRequest(body)
	fast, ferr := scannedExchange(t, s, body)
	if (perr == nil) != (ferr == nil) || perr != nil && perr.Error() != ferr.Error() {
		t.Fatalf("ParseRequest: %v\nScanRequest: %v", perr, ferr)
	}
	if perr != nil {
		return
	}
	typedX := providers.NewExchange(s, parsed, body, providers.ExchangeOptions{})
	want, wantState, werr := convertTyped(typedX, cfg)
	got, gotState, gerr := ConvertRequest(fast, cfg)
	if (werr == nil) != (gerr == nil) || werr != nil && fmt.Sprint(werr) != fmt.Sprint(gerr) {
		t.Fatalf("body %s\ntyped: %v\nfrom bytes: %v", body, werr, gerr)
	}
	if werr != nil {
		return
	}
	if string(got) != string(want) {
		t.Fatalf("body %s\nfrom bytes:\n%s\ntyped:\n%s", body, got, want)
	}
	if !maps.Equal(gotState.toolNames, wantState.toolNames) {
		t.Fatalf("tool names %v, typed %v", gotState.toolNames, wantState.toolNames)
	}
	// The same conversion of the request as a thinkgate matcher reads it
	// (ParseRequest, the history decoded): the same bytes.
	reparsed, err := wire.ParseRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	matched, _, merr := ConvertRequest(providers.NewExchange(s, reparsed, body, providers.ExchangeOptions{}), cfg)
	if merr != nil || string(matched) != string(want) {
		t.Fatalf("body %s\nparsed, from bytes: %v\n%s\ntyped:\n%s", body, merr, matched, want)
	}
}

// shapedRequest is a short Claude Code-shaped request: a system prompt,
// tools (one name too long for OpenAI), and turns of signed thinking, text
// and a tool_use answered by a tool_result of source code.
func shapedRequest(turns int) []byte {
	type obj = map[string]any
	code := strings.Repeat("func main() {\n\tfmt.Println(\"héllo, \\\"wörld\\\"\")\t// 日本語 <tag> & \u2028\n}\n", 3)
	req := obj{
		"model": "claude-sonnet-4-5", "max_tokens": 32000, "stream": true,
		"thinking": obj{"type": "enabled", "budget_tokens": 16000},
		"metadata": obj{"user_id": `{"device_id":"d41d8cd98f00b204","session_id":"7c2a6a34"}`},
		"system": []any{
			obj{"type": "text", "text": "You are Claude Code."},
			obj{"type": "text", "text": "Follow the instructions.", "cache_control": obj{"type": "ephemeral"}},
		},
		"tools": []any{
			obj{"name": "Bash", "description": "Runs a command.", "input_schema": obj{"type": "object", "properties": obj{"command": obj{"type": "string"}}}},
			obj{"name": "mcp__" + strings.Repeat("very_long_server_name_", 4) + "tool", "input_schema": obj{"type": "object"}},
		},
	}
	msgs := []any{obj{"role": "user", "content": "Fix the failing test."}}
	for i := 0; i < turns; i++ {
		id := fmt.Sprintf("toolu_%04d", i)
		name := "Bash"
		if i%2 == 1 {
			name = "mcp__" + strings.Repeat("very_long_server_name_", 4) + "tool"
		}
		msgs = append(msgs,
			obj{"role": "assistant", "content": []any{
				obj{"type": "thinking", "thinking": fmt.Sprintf("Step %d: look at the file.", i), "signature": "EqQBCkgIARAB" + id},
				obj{"type": "text", "text": "Let me read the file."},
				obj{"type": "tool_use", "id": id, "name": name, "input": obj{"command": fmt.Sprintf("cat file_%d.go", i)}},
			}},
			obj{"role": "user", "content": []any{
				obj{"type": "tool_result", "tool_use_id": id, "content": code},
				obj{"type": "text", "text": "Go on."},
			}})
	}
	req["messages"] = msgs
	body, _ := json.Marshal(req)
	return body
}
