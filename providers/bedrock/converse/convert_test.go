package converse

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// sameOptions are the options every body is converted with in the
// differential checks: each family, cache points on and off.
var sameOptions = []Options{
	{},
	{ThinkingFamily: FamilyClaude},
	{ThinkingFamily: FamilyNova, CachePoints: CacheOn},
	{ThinkingFamily: FamilyGPTOSS, CachePoints: CacheOff},
	{ThinkingFamily: FamilyNone, CachePoints: CacheOn},
}

// checkSame requires the typed converter's body (typed_test.go), or its
// error, from the converter, whether the request was read as the handler
// reads it (ScanRequest) or decoded (ParseRequest, as after a thinkgate
// matcher), for a message and a count_tokens request, with each of
// sameOptions.
func checkSame(t testing.TB, body []byte) {
	t.Helper()
	if _, err := wire.ParseRequest(body); err != nil {
		return
	}
	s := testSettings()
	s.SplitTags = true
	for _, path := range []string{"/v1/messages", "/v1/messages/count_tokens"} {
		for _, opts := range sameOptions {
			run := func(read func([]byte) (*wire.Request, error), conv func(*providers.Exchange, Options, []string) ([]byte, *State, error)) ([]byte, error) {
				req, err := read(body)
				if err != nil {
					t.Fatalf("the request parse refused what it accepted: %v", err)
				}
				x := providers.NewExchange(s, req, body, providers.ExchangeOptions{Path: path, NewBody: providertest.DirtyBody})
				out, _, err := conv(x, opts, []string{"interleaved-thinking-2025-05-14"})
				return out, err
			}
			typed, typedErr := run(wire.ParseRequest, typedConvert)
			for _, got := range []struct {
				how  string
				read func([]byte) (*wire.Request, error)
			}{{"scanned", wire.ScanRequest}, {"parsed", wire.ParseRequest}} {
				out, err := run(got.read, convert)
				if (err == nil) != (typedErr == nil) || err != nil && err.Error() != typedErr.Error() {
					t.Fatalf("%s %+v, %s: errors differ:\ngot   %v\ntyped %v\nbody %s", path, opts, got.how, err, typedErr, body)
				}
				if err == nil && !bytes.Equal(out, typed) {
					t.Fatalf("%s %+v, %s: bodies differ:\ngot   %s\ntyped %s\nrequest %s", path, opts, got.how, out, typed, body)
				}
			}
		}
	}
}

// historyRequest is a request shaped like a long agent session on
// Converse, with what the converter treats specially: thinking and
// redacted thinking Bedrock issued (one without a signature), thinking
// from tags and from elsewhere, tool loops, tool_results with text,
// images, documents, errors and no content, role "system" messages, turns
// that merge, cache_control, and the escapes clients write.
func historyRequest(turns int) []byte {
	type obj = map[string]any
	cc := obj{"type": "ephemeral"}
	code := "func main() {\n\tfmt.Println(\"héllo, \\\"wörld\\\"\")\t// 日本語 \u2028 <b>&</b>\n}\n\x1b[0m"
	msgs := []any{obj{"role": "user", "content": "Fix the failing test in ./pkg."}}
	for i := 0; i < turns; i++ {
		thought := strings.Repeat("I should look at the file. ", i+1)
		assistant := []any{
			obj{"type": "thinking", "thinking": thought, "signature": bedrockSig("EqQBCkgIBxAB", thought)},
			obj{"type": "thinking", "thinking": "tagged", "signature": testSigner.Sign(emit.OriginTags, "", "tagged")},
			obj{"type": "redacted_thinking", "data": testSigner.Sign(emit.OriginBedrock, "cmVkYWN0ZWQ=", "")},
			obj{"type": "text", "text": "Let me read the file."},
			obj{"type": "text", "text": " \n"},
			obj{"type": "tool_use", "id": "tooluse_" + strings.Repeat("x", i), "name": "read_file", "input": obj{"path": "pkg/<file>.go"}, "cache_control": cc},
		}
		if i%3 == 1 {
			assistant = append([]any{obj{"type": "thinking", "thinking": "no sig", "signature": bedrockSig("", "no sig")}}, assistant[3:]...)
		}
		if i%3 == 2 {
			assistant = assistant[3:] // a tool loop that does not begin with reasoning
		}
		msgs = append(msgs, obj{"role": "assistant", "content": assistant})
		result := []any{
			obj{"type": "tool_result", "tool_use_id": "tooluse_" + strings.Repeat("x", i), "is_error": i%2 == 1, "content": []any{
				obj{"type": "text", "text": code},
				obj{"type": "text", "text": "  "},
				obj{"type": "image", "source": obj{"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
				obj{"type": "document", "source": obj{"type": "text", "media_type": "text/plain", "data": "notes é"}},
			}},
			obj{"type": "tool_result", "tool_use_id": "other", "content": ""},
			obj{"type": "document", "source": obj{"type": "base64", "media_type": "application/pdf", "data": "JVBERi0x"}, "cache_control": cc},
		}
		if i%2 == 0 {
			msgs = append(msgs, obj{"role": "system", "content": "Be brief."})
		}
		msgs = append(msgs, obj{"role": "user", "content": result})
		if i%4 == 3 {
			msgs = append(msgs, obj{"role": "user", "content": "Go on."})
		}
	}
	req := obj{
		"model": claude, "max_tokens": 32000, "stream": true,
		"thinking":       obj{"type": "enabled", "budget_tokens": 4000},
		"stop_sequences": []string{"END"},
		"system":         []any{obj{"type": "text", "text": "You are Claude Code."}, obj{"type": "text", "text": "Follow the instructions.", "cache_control": cc}},
		"tools":          []any{obj{"name": "read_file", "description": "Reads a file", "input_schema": obj{"type": "object"}, "cache_control": cc}},
		"messages":       msgs,
	}
	b, err := json.Marshal(req)
	if err != nil {
		panic(err)
	}
	return b
}

// oddRequests hold what encoding/json reads by rules of its own, and the
// errors the converter words.
var oddRequests = []string{
	`{"model":"m","max_tokens":5,"messages":[{"ROLE":"user","Content":[{"TYPE":"text","T\u0065xt":"hi"},{"type":"text","text":"a","text":null},{"type":"text","text":null}]}]}`,
	`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x","content":null},{"role":"user","content":[{"type":"image","source":{"type":"base64","data":"AA=="},"source":{"media_type":"image/png"}},{"type":"document","source":"s","source":{"type":"text","data":"v"}}]}]}`,
	`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"a"}],"Messages":[{"content":"b"},{"role":"assistant","content":"c"}]}`,
	`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"\ud800 ÿ\u00e9"}],"SYSTEM":[{"type":"text","text":"s\/"}],"system":"\u2028"}`,
	`{"model":"m","max_tokens":5,"tools":[{"name":"f"}],"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"r"},{"type":"text","text":""},{"type":"text","text":"s"}],"is_error":true,"is_error":null}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":null},{"type":"tool_use","id":"t\"1","name":"g","input":{"a":[1, "\u00e9<"]}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":null}]}]}`,
	`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[null]}]}]}`,
	`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[null]}]}`,
	`{"model":"m","max_tokens":5,"system":[{"type":"image"}],"messages":[{"role":"user","content":"x"}]}`,
	`{"model":"m","max_tokens":5,"messages":[{"role":"assistant","content":null},{"role":"system","content":"only"},{"role":"robot","content":"r"},{"content":"none"}]}`,
	`{"model":"m","max_tokens":5,"messages":[{"r\u006fle":"\u0075ser","content":[{"\u0074ype":"text","text":"k"},{"type":"te\u0078t","text":"K"}]}]}`,
	`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/tiff","data":"x"}}]}]}`,
	`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"document","source":{"type":"base64","media_type":"text/rtf","data":"x"}}]}]}`,
	`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"http://x"}}]}]}`,
	`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image"}]}]}`,
	`{"model":"m","max_tokens":5,"messages":[{"role":"assistant","content":[{"type":"server_tool_use","id":"s","name":"web_search","input":{}}]}]}`,
	`{"model":"m","max_tokens":5,"tool_choice":{"type":"sometimes"},"tools":[{"name":"f"}],"messages":[{"role":"user","content":"x"}]}`,
	`{"model":"m","max_tokens":5,"tools":[{"type":"web_search_20250305","name":"web_search"}],"messages":[{"role":"user","content":"x"}]}`,
	`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"search_result"}]}]}]}`,
	`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":"\u00a0\u2003"},{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]},{"role":"assistant","content":[{"type":"text","text":"\u0085","cache_control":{"type":"ephemeral"}},{"type":"text","text":"b"}]}]}`,
}

// convertSeeds are the bodies the differential checks start from.
func convertSeeds() [][]byte {
	var seeds [][]byte
	for _, s := range fuzzcheck.Seeds {
		seeds = append(seeds, []byte(s))
	}
	h := historyRequest(6)
	seeds = append(seeds, h)
	odd := bytes.ReplaceAll(h, []byte(`pkg/`), []byte(`pkg\/`))
	odd = bytes.ReplaceAll(odd, []byte(`Let me`), []byte(`\u004cet me`))
	odd = bytes.ReplaceAll(odd, []byte(`"role":"user"`), []byte(`"role" : "user" `))
	seeds = append(seeds, odd, bytes.Replace(h, []byte(`"tools":[`), []byte(`"tool_choice":{"type":"none"},"tools":[`), 1))
	for _, r := range oddRequests {
		seeds = append(seeds, []byte(r))
	}
	return seeds
}

// TestConvertMatchesTyped: on every seed, the converter writes the typed
// converter's bytes, or its error.
func TestConvertMatchesTyped(t *testing.T) {
	for _, body := range convertSeeds() {
		checkSame(t, body)
	}
}

// FuzzConvertMatchesTyped: for any body, however the handler read it and
// with any of the options, the converter sends the typed converter's bytes
// upstream, or fails with the same error.
func FuzzConvertMatchesTyped(f *testing.F) {
	for _, s := range convertSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkSame(t, body) })
}

// TestConvertLeavesHistoryUndecoded: the bedrock provider reads a request
// with ScanRequest, and converting it for Converse never decodes the
// history into Go values.
func TestConvertLeavesHistoryUndecoded(t *testing.T) {
	body := historyRequest(3)
	req, err := wire.ScanRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	x := providers.NewExchange(testSettings(), req, body, providers.ExchangeOptions{Path: "/v1/messages"})
	if _, _, err := ConvertRequest(x, Options{}, nil); err != nil {
		t.Fatal(err)
	}
	if !req.Scanned() || req.Messages != nil {
		t.Error("the history was decoded")
	}
}
