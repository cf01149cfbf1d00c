package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/providers"
)

// convertBoth converts body as the handler reads it (ScanRequest) with the
// fast converter, and as ParseRequest decodes it with the typed one.
func convertBoth(t testing.TB, body []byte, countTokens bool) (fast, typed *providers.Outbound, fastErr, typedErr error, ok bool) {
	t.Helper()
	s := testSettings()
	s.SplitTags = true
	path := "/v1/messages"
	if countTokens {
		path += "/count_tokens"
	}
	p := New(Config{APIKey: "k"})
	run := func(req *providers.Request, typedOnly bool) (*providers.Outbound, error) {
		x := providers.NewExchange(s, req, body, providers.ExchangeOptions{Path: path, NewBody: providertest.DirtyBody})
		out := &providers.Outbound{Path: path, Header: map[string][]string{}}
		typedRequest = typedOnly
		defer func() { typedRequest = false }()
		_, err := p.Rewrite(x, out)
		return out, err
	}
	scanned, err := providers.ParseRequestFor(p, body)
	if err != nil {
		return nil, nil, nil, nil, false
	}
	decoded, err := providers.ParseRequest(body)
	if err != nil {
		t.Fatalf("ScanRequest accepted what ParseRequest refuses: %v", err)
	}
	fast, fastErr = run(scanned, false)
	typed, typedErr = run(decoded, true)
	return fast, typed, fastErr, typedErr, true
}

// checkSame requires the same upstream request, or the same error.
func checkSame(t testing.TB, body []byte, countTokens bool) {
	t.Helper()
	fast, typed, fastErr, typedErr, ok := convertBoth(t, body, countTokens)
	if !ok {
		return
	}
	if (fastErr == nil) != (typedErr == nil) || fastErr != nil && fastErr.Error() != typedErr.Error() {
		t.Fatalf("errors differ:\nfast  %v\ntyped %v\nbody %s", fastErr, typedErr, body)
	}
	if fastErr != nil {
		return
	}
	if !bytes.Equal(fast.Body, typed.Body) {
		t.Fatalf("bodies differ:\nfast  %s\ntyped %s\nrequest %s", fast.Body, typed.Body, body)
	}
	if fast.Path != typed.Path || fast.RawQuery != typed.RawQuery {
		t.Fatalf("targets differ: %s?%s, %s?%s", fast.Path, fast.RawQuery, typed.Path, typed.RawQuery)
	}
}

// historyRequest is a request shaped like a long agent session, with what
// the converter treats specially: thinking the gateway signed for each
// origin (an empty Gemini thought among them), tool_use ids carrying
// Gemini's signatures, tool_results with text, blocks and images, role
// "system" messages, turns that merge, and the escapes clients write.
func historyRequest(turns int) []byte {
	s := providers.NewSigner([]byte(testKey))
	type obj = map[string]any
	code := "func main() {\n\tfmt.Println(\"héllo, \\\"wörld\\\"\")\t// 日本語 \u2028 <b>&</b>\n}\n\x1b[0m"
	msgs := []any{obj{"role": "user", "content": "Fix the failing test in ./pkg."}}
	for i := 0; i < turns; i++ {
		tags := fmt.Sprintf("Step %d: I should look at the file.\n", i)
		gem := fmt.Sprintf("Gemini's thought %d", i)
		id := encodeToolID(s, []byte("c2lnbmF0dXJl"), []byte(fmt.Sprintf("call_%d", i)))
		if i%3 == 1 {
			id = fmt.Sprintf("toolu_%024d", i)
		}
		assistant := []any{
			obj{"type": "thinking", "thinking": tags, "signature": s.Sign(providers.OriginTags, "", tags)},
			obj{"type": "thinking", "thinking": gem, "signature": s.Sign(providers.OriginGemini, "R2VtU2ln", gem)},
			obj{"type": "text", "text": "Let me read the file."},
			obj{"type": "tool_use", "id": id, "name": "read_file", "input": obj{"path": fmt.Sprintf("pkg/file_%d.go", i)}},
		}
		if i%4 == 2 {
			assistant = append([]any{obj{"type": "thinking", "thinking": "", "signature": s.Sign(providers.OriginGemini, "RW1wdHk=", "")}}, assistant...)
		}
		user := []any{obj{"type": "tool_result", "tool_use_id": id, "content": code}}
		switch i % 5 {
		case 1:
			user = []any{obj{"type": "tool_result", "tool_use_id": id, "is_error": true, "content": []any{
				obj{"type": "text", "text": "line one"}, obj{"type": "text", "text": code},
				obj{"type": "image", "source": obj{"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
			}}, obj{"type": "text", "text": "Go on.", "cache_control": obj{"type": "ephemeral"}}}
		case 3:
			msgs = append(msgs, obj{"role": "system", "content": "Be brief."})
		}
		msgs = append(msgs, obj{"role": "assistant", "content": assistant}, obj{"role": "user", "content": user})
	}
	req := obj{
		"model": "gemini-3-pro-preview", "max_tokens": 32000, "stream": true,
		"thinking": obj{"type": "enabled", "budget_tokens": 16000},
		"system": []any{
			obj{"type": "text", "text": "You are Claude Code."},
			obj{"type": "text", "text": strings.Repeat("Follow the instructions. ", 8), "cache_control": obj{"type": "ephemeral"}},
		},
		"tools": []any{obj{"name": "read_file", "description": "Reads a file.", "input_schema": obj{
			"type": "object", "properties": obj{"path": obj{"type": "string"}}, "required": []string{"path"}}}},
		"tool_choice": obj{"type": "auto"},
		"messages":    msgs,
	}
	body, err := json.Marshal(req)
	if err != nil {
		panic(err)
	}
	return body
}

// fastSeeds are the golden inputs, the shared fuzz seeds, a history and
// the same history written with escapes encoding/json does not write.
func fastSeeds(t testing.TB) [][]byte {
	names, err := filepath.Glob(filepath.Join("testdata", "requests", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var seeds [][]byte
	for _, n := range names {
		if strings.HasSuffix(n, ".gemini.json") {
			continue
		}
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	for _, s := range fuzzcheck.Seeds {
		seeds = append(seeds, []byte(s))
	}
	h := historyRequest(6)
	seeds = append(seeds, h)
	odd := bytes.ReplaceAll(h, []byte(`pkg/`), []byte(`pkg\/`))
	odd = bytes.ReplaceAll(odd, []byte(`Let me`), []byte(`\u004cet me`))
	odd = bytes.ReplaceAll(odd, []byte(`\u001b`), []byte(`\u001B`))
	seeds = append(seeds, odd, []byte(strings.Replace(string(h), `"role":"user"`, `"role" : "user" `, -1)))
	return seeds
}

// TestFastMatchesTyped: on every seed, the fast converter writes the typed
// converter's bytes, and for the requests clients send it does so itself
// rather than leaving them to the typed one.
func TestFastMatchesTyped(t *testing.T) {
	for i, body := range fastSeeds(t) {
		for _, ct := range []bool{false, true} {
			checkSame(t, body, ct)
		}
		req, err := providers.ScanRequest(body)
		if err != nil {
			continue
		}
		x := providers.NewExchange(testSettings(), req, body, providers.ExchangeOptions{Path: "/v1/messages"})
		model, err := ModelName(x.UpstreamModel)
		if err != nil {
			continue
		}
		if _, ok := fastRequest(x, DefaultThinkingBudget, DefaultSchemaExpansion, nil, model); !ok && i < 7+len(fuzzcheck.Seeds) {
			// Golden inputs and seeds without an error must convert on the fast path.
			if _, err := New(Config{}).Rewrite(x, &providers.Outbound{Header: map[string][]string{}}); err == nil {
				t.Errorf("seed %d left to the typed converter: %.200s", i, body)
			}
		}
	}
	if _, ok := fastRequest(historyExchange(t), DefaultThinkingBudget, DefaultSchemaExpansion, nil, "gemini-3-pro-preview"); !ok {
		t.Error("the history request was left to the typed converter")
	}
}

func historyExchange(t testing.TB) *providers.Exchange {
	body := historyRequest(6)
	req, err := providers.ScanRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	return providers.NewExchange(testSettings(), req, body, providers.ExchangeOptions{Path: "/v1/messages"})
}

// TestFastHistoryBody pins what the history's special cases become.
func TestFastHistoryBody(t *testing.T) {
	out, err := rewrite(t, New(Config{APIKey: "k"}), historyExchange(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`{"text":"\u003cthinking\u003e`, // never: HTML is not escaped
	} {
		if bytes.Contains(out.Body, []byte(want)) {
			t.Errorf("body holds %s", want)
		}
	}
	for _, want := range []string{
		`{"text":"<thinking>Step 0: I should look at the file.\n</thinking>"}`,
		`{"text":"Gemini's thought 0","thought":true,"thoughtSignature":"R2VtU2ln"}`,
		// The empty thought's signature moves to the next part.
		`{"role":"model","parts":[{"text":"<thinking>Step 2: I should look at the file.\n</thinking>","thoughtSignature":"RW1wdHk="}`,
		`{"functionCall":{"id":"call_0","name":"read_file","args":{"path":"pkg/file_0.go"}},"thoughtSignature":"c2lnbmF0dXJl"}`,
		// A plain id: Gemini 3's dummy signature on the turn's first call.
		`{"functionCall":{"name":"read_file","args":{"path":"pkg/file_1.go"}},"thoughtSignature":"skip_thought_signature_validator"}`,
		`{"functionResponse":{"name":"read_file","response":{"error":"line one\nfunc main() {\n\tfmt.Println(\"héllo, \\\"wörld\\\"\")\t// 日本語 \u2028 <b>&</b>\n}\n\u001b[0m"}}},{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},{"text":"Go on."}`,
		`"systemInstruction":{"parts":[{"text":"You are Claude Code."},{"text":"Follow the instructions.`,
		`{"text":"Be brief."}]}`,
	} {
		if !bytes.Contains(out.Body, []byte(want)) {
			t.Errorf("body lacks %s\nbody: %s", want, out.Body)
		}
	}
}

// FuzzGeminiFastMatchesTyped: for any body, the fast converter sends the
// typed converter's bytes upstream, or fails with the same error.
func FuzzGeminiFastMatchesTyped(f *testing.F) {
	for _, s := range fastSeeds(f) {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, body []byte, countTokens bool) { checkSame(t, body, countTokens) })
}

// TestFastLeavesHistoryUndecoded: the handler reads a gemini request with
// ScanRequest, and converting it never decodes the history into Go
// strings; a request the fast converter leaves to the typed one is
// completed first and converts the same.
func TestFastLeavesHistoryUndecoded(t *testing.T) {
	p := New(Config{APIKey: "k"})
	if !p.ScansRequest() {
		t.Fatal("gemini does not read requests with ScanRequest")
	}
	body := historyRequest(3)
	req, err := providers.ParseRequestFor(p, body)
	if err != nil {
		t.Fatal(err)
	}
	x := providers.NewExchange(testSettings(), req, body, providers.ExchangeOptions{Path: "/v1/messages"})
	if _, err := rewrite(t, p, x, nil); err != nil {
		t.Fatal(err)
	}
	if !req.Scanned() || req.Messages != nil {
		t.Error("the history was decoded")
	}

	// A tool_result before its tool_use: left to the typed converter,
	// whose error the client gets.
	early := `{"model":"gemini-2.5-flash","max_tokens":5,"messages":[` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]}]}`
	req, err = providers.ParseRequestFor(p, []byte(early))
	if err != nil {
		t.Fatal(err)
	}
	x = providers.NewExchange(testSettings(), req, []byte(early), providers.ExchangeOptions{Path: "/v1/messages"})
	out, err := rewrite(t, p, x, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"x"}}}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"skip_thought_signature_validator"}]}],` +
		`"generationConfig":{"maxOutputTokens":5,"thinkingConfig":{"includeThoughts":true,"thinkingBudget":1024}}}`
	if string(out.Body) != want {
		t.Errorf("body\n%s\nwant\n%s", out.Body, want)
	}
	if req.Scanned() {
		t.Error("the typed converter ran on a request not completed")
	}
}
