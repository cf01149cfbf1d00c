package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// convertAll converts body with the converter, once read as the handler
// reads it (ScanRequest) and once as ParseRequest decodes it (as after a
// thinkgate matcher), and with the typed converter (typed_test.go), in
// form; ok is false for a body the request parse refuses or a model
// Gemini's paths do not take.
func convertAll(t testing.TB, body []byte, form bodyForm) (scanned, parsed, typed []byte, scanErr, parseErr, typedErr error, ok bool) {
	t.Helper()
	s := testSettings()
	s.SplitTags = true
	path := "/v1/messages"
	if form == formCountTokens {
		path += "/count_tokens"
	}
	p := New(Config{APIKey: "k"})
	run := func(req *wire.Request, oracle bool) ([]byte, error) {
		x := providers.NewExchange(s, req, body, providers.ExchangeOptions{Path: path, NewBody: providertest.DirtyBody})
		model, err := ModelName(x.UpstreamModel)
		if err != nil {
			return nil, errModel
		}
		levels := p.levelsFor(model)
		if oracle {
			return typedBody(x, p.cfg.ThinkingBudget, p.cfg.SchemaExpansion, levels, model, form)
		}
		return writeRequest(x, p.cfg.ThinkingBudget, p.cfg.SchemaExpansion, levels, model, form)
	}
	req, err := providers.ParseRequestFor(p, body)
	if err != nil {
		return nil, nil, nil, nil, nil, nil, false
	}
	decoded, err := wire.ParseRequest(body)
	if err != nil {
		t.Fatalf("ScanRequest accepted what ParseRequest refuses: %v", err)
	}
	decoded2, _ := wire.ParseRequest(body)
	scanned, scanErr = run(req, false)
	if scanErr == errModel {
		return nil, nil, nil, nil, nil, nil, false
	}
	parsed, parseErr = run(decoded, false)
	typed, typedErr = run(decoded2, true)
	return scanned, parsed, typed, scanErr, parseErr, typedErr, true
}

var errModel = errors.New("not a Gemini model name")

// checkSame requires the typed converter's body, or its error, from the
// converter however the request was read, in every form.
func checkSame(t testing.TB, body []byte, countTokens bool) {
	t.Helper()
	forms := []bodyForm{formGenerate, formCountContents}
	if countTokens {
		forms = []bodyForm{formCountTokens}
	}
	for _, form := range forms {
		scanned, parsed, typed, scanErr, parseErr, typedErr, ok := convertAll(t, body, form)
		if !ok {
			return
		}
		for _, got := range []struct {
			how  string
			body []byte
			err  error
		}{{"scanned", scanned, scanErr}, {"parsed", parsed, parseErr}} {
			if (got.err == nil) != (typedErr == nil) || got.err != nil && got.err.Error() != typedErr.Error() {
				t.Fatalf("form %d, %s: errors differ:\ngot   %v\ntyped %v\nbody %s", form, got.how, got.err, typedErr, body)
			}
			if got.err == nil && !bytes.Equal(got.body, typed) {
				t.Fatalf("form %d, %s: bodies differ:\ngot   %s\ntyped %s\nrequest %s", form, got.how, got.body, typed, body)
			}
		}
	}
}

// historyRequest is a request shaped like a long agent session, with what
// the converter treats specially: thinking the gateway signed for each
// origin (an empty Gemini thought among them), tool_use ids carrying
// Gemini's signatures, tool_results with text, blocks and images, role
// "system" messages, turns that merge, and the escapes clients write.
func historyRequest(turns int) []byte {
	s := emit.NewSigner([]byte(testKey))
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
			obj{"type": "thinking", "thinking": tags, "signature": s.Sign(emit.OriginTags, "", tags)},
			obj{"type": "thinking", "thinking": gem, "signature": s.Sign(emit.OriginGemini, "R2VtU2ln", gem)},
			obj{"type": "text", "text": "Let me read the file."},
			obj{"type": "tool_use", "id": id, "name": "read_file", "input": obj{"path": fmt.Sprintf("pkg/file_%d.go", i)}},
		}
		if i%4 == 2 {
			assistant = append([]any{obj{"type": "thinking", "thinking": "", "signature": s.Sign(emit.OriginGemini, "RW1wdHk=", "")}}, assistant...)
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
	for _, r := range oddRequests {
		seeds = append(seeds, []byte(r))
	}
	return seeds
}

// oddRequests are valid requests that encoding/json reads by rules a
// byte-level reader must follow too: names in other cases or escaped, a
// repeated member's last value, nulls, a source merged into the one before
// it, a null block, the messages given twice, invalid UTF-8 and lone
// surrogates, a tool_result before its tool_use and one named by a later
// tool_use of the same id.
var oddRequests = []string{
	`{"model":"gemini-2.5-flash","max_tokens":5,"messages":[{"ROLE":"user","Content":[{"TYPE":"text","T\u0065xt":"hi"},{"type":"text","text":"a","text":null},{"type":"text","text":null}]}]}`,
	`{"model":"gemini-2.5-flash","max_tokens":5,"messages":[{"role":"user","content":"x","content":null},{"role":"user","content":[null,{"type":"image","source":{"type":"base64","data":"AA=="},"source":{"media_type":"image/png"}},{"type":"image","source":{"type":"url","url":"u"},"source":null},{"type":"document","source":"s","source":{"url":"v"}}]}]}`,
	`{"model":"gemini-2.5-flash","max_tokens":5,"messages":[{"role":"user","content":"a"}],"Messages":[{"content":"b"},{"role":"assistant","content":"c"}]}`,
	`{"model":"gemini-2.5-flash","max_tokens":5,"messages":[{"role":"user","content":"\ud800 ÿ\u00e9"}],"SYSTEM":[{"type":"text","text":"s\/"}],"system":"\u2028"}`,
	`{"model":"gemini-2.5-flash","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"r"},null,{"type":"text","text":""},{"type":"text","text":"s"}],"is_error":true,"is_error":null}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":null},{"type":"tool_use","id":"t1","name":"g","input":{"a":[1, 2]}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":null}]}]}`,
	`{"model":"gemini-2.5-flash","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"nope","content":"x"}]}]}`,
	`{"model":"gemini-2.5-flash","max_tokens":5,"messages":[{"role":"assistant","content":null},{"role":"system","content":"only"}]}`,
	`{"model":"gemini-2.5-flash","max_tokens":5,"messages":[{"r\u006fle":"\u0075ser","content":[{"\u0074ype":"text","text":"k"},{"type":"te\u0078t","text":"K"}]}]}`,
}

// TestConvertMatchesTyped: on every seed, the converter writes the typed
// converter's bytes, or its error.
func TestConvertMatchesTyped(t *testing.T) {
	for _, body := range fastSeeds(t) {
		for _, ct := range []bool{false, true} {
			checkSame(t, body, ct)
		}
	}
}

func historyExchange(t testing.TB) *providers.Exchange {
	body := historyRequest(6)
	req, err := wire.ScanRequest(body)
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

// FuzzGeminiConvertMatchesTyped: for any body, however the handler read
// it, the converter sends the typed converter's bytes upstream, or fails
// with the same error.
func FuzzGeminiConvertMatchesTyped(f *testing.F) {
	for _, s := range fastSeeds(f) {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, body []byte, countTokens bool) { checkSame(t, body, countTokens) })
}

// TestConvertLeavesHistoryUndecoded: the handler reads a gemini request
// with ScanRequest, and converting it never decodes the history into Go
// strings, whatever the history holds: a tool_result before its tool_use
// too, which converts as the typed converter converts it.
func TestConvertLeavesHistoryUndecoded(t *testing.T) {
	p := New(Config{APIKey: "k"})
	if !p.ScansRequest() {
		t.Fatal("gemini does not read requests with ScanRequest")
	}
	early := `{"model":"gemini-2.5-flash","max_tokens":5,"messages":[` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]}]}`
	for _, body := range [][]byte{historyRequest(3), []byte(early)} {
		req, err := providers.ParseRequestFor(p, body)
		if err != nil {
			t.Fatal(err)
		}
		x := providers.NewExchange(testSettings(), req, body, providers.ExchangeOptions{Path: "/v1/messages"})
		out, err := rewrite(t, p, x, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !req.Scanned() || req.Messages != nil {
			t.Error("the history was decoded")
		}
		if string(body) != early {
			continue
		}
		want := `{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"x"}}}]},` +
			`{"role":"model","parts":[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"skip_thought_signature_validator"}]}],` +
			`"generationConfig":{"maxOutputTokens":5,"thinkingConfig":{"includeThoughts":true,"thinkingBudget":1024}}}`
		if string(out.Body) != want {
			t.Errorf("body\n%s\nwant\n%s", out.Body, want)
		}
	}
}
