package amazonq

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/cputime"
	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// checkFastMatchesTyped converts body with the converter (from a scan,
// as the handler reads it, and from a full parse, as a matcher leaves it)
// and with the typed one, and fails on any difference in the upstream
// body, the tool names to map back, or the error.
func checkFastMatchesTyped(t testing.TB, p *Provider, s *providers.Settings, body []byte) {
	t.Helper()
	parsed, perr := wire.ParseRequest(body)
	scanned, serr := wire.ScanRequest(body)
	if perr != nil || serr != nil {
		if perr == nil || serr == nil || perr.Error() != serr.Error() {
			t.Fatalf("ParseRequest: %v; ScanRequest: %v", perr, serr)
		}
		return
	}
	exchange := func(req *wire.Request) *providers.Exchange {
		x := providers.NewExchange(s, req, body, providers.ExchangeOptions{Path: "/v1/messages", NewBody: providertest.DirtyBody})
		x.ClientID = "client-a"
		return x
	}
	want, wantSt, wantErr := p.convertTyped(exchange(parsed))

	same := func(what string, got []byte, gotSt *state, gotErr error) {
		t.Helper()
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("%s: error %v, typed %v\nbody %q", what, gotErr, wantErr, body)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s differs from typed\nbody  %q\ngot   %s\ntyped %s", what, body, got, want)
		}
		if !reflect.DeepEqual(gotSt, wantSt) {
			t.Fatalf("%s: tool names %v, typed %v", what, gotSt, wantSt)
		}
	}
	wasScanned := scanned.Scanned()
	got, gotSt, err := p.convert(exchange(scanned))
	same("convert (scan)", got, gotSt, err)
	if wasScanned && !scanned.Scanned() {
		t.Fatalf("convert decoded the history")
	}
	reparsed, _ := wire.ParseRequest(body)
	got, gotSt, err = p.convert(exchange(reparsed))
	same("convert (parse)", got, gotSt, err)
}

// TestFastMatchesTypedGolden: the golden requests are written by the fast
// converter, byte for byte as the typed one writes them.
func TestFastMatchesTypedGolden(t *testing.T) {
	for _, tc := range rewriteGoldenCases {
		t.Run(tc.name, func(t *testing.T) {
			s := testSettings()
			s.Models = tc.models
			checkFastMatchesTyped(t, testProvider(tc.cfg), s, []byte(tc.body))
		})
	}
}

// fastCases are requests that reach the fast converter's every branch:
// members in any order, merged and padded turns, every block kind where
// it stands, escapes the escaper writes otherwise, blank text, and the
// conversation id without a session.
var fastCases = []struct {
	name string
	body string
}{
	{"type after text", `{"model":"m","messages":[{"content":[{"text":"hi","type":"text"},{"text":"x","type":"thinking"}],"role":"user"}]}`},
	{"content before role", `{"model":"m","messages":[{"content":"a","role":"user"},{"content":[{"type":"text","text":"b"}],"role":"assistant"},{"content":"c","role":"user"}]}`},
	{"no content", `{"model":"m","messages":[{"role":"user"},{"role":"assistant"},{"role":"user","content":"q"}]}`},
	{"only assistant", `{"model":"m","messages":[{"role":"assistant","content":"prefill"}]}`},
	{"only system", `{"model":"m","messages":[{"role":"system","content":"s"}]}`}, // the typed converter's error
	{"empty messages", `{"model":"m","messages":[]}`},
	{"null schema", `{"model":"m","tools":[{"name":"a","input_schema":null}],"messages":[{"role":"user","content":"q"}]}`},
	{"system messages between", `{"model":"m","system":[{"type":"text","text":""},{"type":"image"},{"type":"text","text":"top"}],
		"messages":[{"role":"system","content":"one"},{"role":"user","content":"a"},{"role":"system","content":[{"text":"two","type":"text"},{"type":"text","text":"three"}]},{"role":"user","content":"b"}]}`},
	{"blank text", `{"model":"m","thinking":false,"messages":[{"role":"user","content":" \n\t\u000b\u3000\u0085 "},{"role":"assistant","content":[{"type":"text","text":"\u2028 "},{"type":"tool_use","id":"t1","name":"x","input":{}}]},{"role":"assistant","content":"  "},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":" "}]},{"role":"assistant","content":"\u00a0"},{"role":"user","content":"ok\u200b"}]}`},
	{"escapes rewritten", `{"model":"m","system":"a\/b \u0041\u00E9 \u003cx\u003e \ud83d\ude00 \u001F\u001b \u2029 ` + "\u2028" + `","messages":[{"role":"user","content":"\"q\"\\ \b\f\r\n\t \u007f"}]}`},
	{"invalid UTF-8", "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"a\xffb\"}]}"},
	{"lone surrogate", `{"model":"m","messages":[{"role":"user","content":"a\ud800b"}]}`},
	{"invalid UTF-8 where unused", "{\"model\":\"m\",\"messages\":[{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"t\",\"signature\":\"s\",\"zz\":\"\xff\"}]},{\"role\":\"user\",\"content\":\"q\"}]}"},
	{"tool results merged", `{"model":"m","messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"n","input":{ "k" : [1, 2] }},{"type":"tool_use","id":"b","name":"n","input":[1]},{"type":"tool_use","id":"c","name":"n","input":" {}"},{"type":"tool_use","id":"d","name":"n"}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"1"},{"content":[{"type":"text","text":"2"}],"type":"tool_result","tool_use_id":"b","is_error":true},{"type":"tool_result","tool_use_id":"a","is_error":false,"content":[{"type":"text","text":""},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAA="}},{"type":"image","source":{"type":"url","url":"https://x/y.png"}},{"type":"document","source":{"type":"text","data":"doc"}},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVB"}},{"type":"search_result","source":"https://s","content":[{"type":"text","text":"r"}]},{"type":"tool_result","content":[{"type":"text","text":"nested"}]},{"text":"no type"}]},{"type":"tool_result","tool_use_id":"c","content":[{"type":"image","source":{"type":"base64","media_type":"image/gif","data":"R0"}}]},{"type":"tool_result","tool_use_id":"d","content":[]},{"type":"tool_result","tool_use_id":"b","is_error":false}]},
		{"role":"user","content":[{"type":"text","text":"more"},{"tool_use_id":"e","type":"tool_result","content":"late"}]}]}`},
	{"images and documents", `{"model":"m","thinking":{"type":"disabled"},"messages":[{"role":"user","content":[
		{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/"}},
		{"source":{"data":"late type","media_type":"image/webp","type":"base64"},"type":"image"},
		{"type":"image","source":{"type":"base64","media_type":"jpeg","data":""}},
		{"type":"image","source":{"type":"base64","media_type":"image/","data":"AA"}},
		{"type":"image","source":{"type":"base64","media_type":null,"data":"AA","type":null,"media_type":"a/png","x":[1,{"y":null}]}},
		{"type":"image","source":"https://x/z.png"},
		{"type":"image"},
		{"type":"document","source":{"type":"text","media_type":"text/plain","data":"notes \u00e9"}},
		{"type":"document","source":{"type":"text","data":""}},
		{"type":"document","source":{"type":"url","url":"https://x/a.pdf"}},
		{"type":"thinking","thinking":"user thinking"},
		{"type":"redacted_thinking","data":"abc"},
		{"type":"text","text":"Describe."}]}]}`},
	{"long tool names", `{"model":"m","tools":[{"name":"mcp__a_rather_long_server_name_for_testing__and_an_even_longer_tool_name_here","description":"d","input_schema":{"type":"object"}},{"name":"short","input_schema":{ }},{"type":"bash_20250124","name":"bash"}],
		"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"name":"mcp__another_rather_long_server_name_for_testing__and_a_long_tool_name_here","input":{"a":"b"},"type":"tool_use","id":"x"}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"r"}]}],"tool_choice":{"type":"auto"}}`},
	{"long tool description", `{"model":"m","tools":[{"name":"Bash","description":"` + strings.Repeat("Runs a command. ", 700) + `","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"q"}]}`},
	{"thinking kept and hinted", `{"model":"m","thinking":{"type":"enabled","budget_tokens":3000},"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"plan","signature":"s"},{"thinking":"","type":"thinking"},{"type":"text","text":"a"},{"signature":"s","thinking":"late type","type":"thinking"}]},{"role":"user","content":[]}]}`},
	{"no session: system and first user text", `{"model":"m","metadata":{"user_id":"u1"},"system":[{"type":"text","text":"S1"},{"type":"text","text":"S2\n"}],
		"messages":[{"role":"assistant","content":"x"},{"role":"user","content":[{"type":"text","text":"first "},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}},{"type":"text","text":"\u00e9"},{"type":"text","text":""}]},{"role":"user","content":"second"}]}`},
	{"no session, string content", `{"model":"m","system":"sys","messages":[{"role":"user","content":"first"},{"role":"assistant","content":"a"},{"role":"user","content":"b"}]}`},
	{"case-folded name", `{"model":"m","messages":[{"role":"user","content":[{"Type":"text","text":"a"}]}]}`},
	{"case-folded source name", `{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","Data":"AA"}}]}]}`},
	{"unknown members", `{"model":"m","messages":[{"role":"user","extra":{"a":[1,2,{"b":"c"}]},"content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"},"citations":null}]}],"zz":1}`},
	{"current message past the room for it", `{"model":"m","system":"` + strings.Repeat("s", 9000) + `","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"` + strings.Repeat(`long \"turn\" \u00e9 `, 8000) + `"}]}`},
	{"whitespace", " { \"model\" : \"m\" , \"messages\" : [ { \"role\" : \"user\" , \"content\" : [ { \"type\" : \"text\" , \"text\" : \"a\" } , { \"type\" : \"tool_result\" , \"tool_use_id\" : \"t\" , \"content\" : [ ] } ] } ] } "},
}

// TestFastMatchesTyped converts each of fastCases both ways.
func TestFastMatchesTyped(t *testing.T) {
	for _, tc := range fastCases {
		t.Run(tc.name, func(t *testing.T) {
			for _, arn := range []string{"", "arn:aws:codewhisperer:us-east-1:1:profile/P"} {
				p := testProvider(Config{ProfileARN: arn})
				checkFastMatchesTyped(t, p, testSettings(), []byte(tc.body))
			}
		})
	}
}

// TestFastClaudeCodeRequest: an agent's long history is written by the
// fast converter, the same as by the typed one, and the current message
// fits in the room left in front of the history.
func TestFastClaudeCodeRequest(t *testing.T) {
	for _, thinking := range []bool{true, false} {
		body := claudeCodeBody(t, 40, thinking)
		p := testProvider(Config{})
		checkFastMatchesTyped(t, p, testSettings(), body)
		req, err := wire.ScanRequest(body)
		if err != nil {
			t.Fatal(err)
		}
		x := providers.NewExchange(testSettings(), req, body, providers.ExchangeOptions{})
		out, _, _ := p.convert(x)
		if cap(out) > len(body)*5/4 {
			t.Errorf("body of %d bytes in a buffer of %d for a request of %d", len(out), cap(out), len(body))
		}
		if req.Scanned() == false {
			t.Errorf("the history was decoded")
		}
	}
}

// claudeCodeBody is a Claude Code–shaped request of turns tool loops:
// signed thinking, text and a tool_use answered by a tool_result of
// source code full of quotes, backslashes and non-ASCII text.
func claudeCodeBody(t testing.TB, turns int, thinking bool) []byte {
	type obj = map[string]any
	tools := []any{
		obj{"name": "Bash", "description": strings.Repeat("Runs a command & returns <output>. ", 20),
			"input_schema": obj{"type": "object", "properties": obj{"command": obj{"type": "string"}}, "required": []string{"command"}}},
		obj{"name": "mcp__server_with_a_long_name__tool_with_an_even_longer_name_for_tests", "description": "MCP tool",
			"input_schema": obj{"type": "object"}},
	}
	code := strings.Repeat("func main() {\n\tfmt.Println(\"héllo, \\\"wörld\\\"\")\t// 日本語 <b>&amp;</b>\n}\n", 20)
	req := obj{
		"model": "claude-sonnet-4-5", "max_tokens": 32000, "stream": true,
		"thinking": obj{"type": "enabled", "budget_tokens": 16000},
		"metadata": obj{"user_id": `{"device_id":"d41d","account_uuid":"","session_id":"7c2a6a34-1b0e-4d7e-9c39-2f5e3b1d9a10"}`},
		"system": []any{
			obj{"type": "text", "text": "You are Claude Code, Anthropic's official CLI for Claude."},
			obj{"type": "text", "text": strings.Repeat("Follow the instructions. Use the tools. ", 40), "cache_control": obj{"type": "ephemeral"}},
		},
		"tools": tools,
	}
	if !thinking {
		req["thinking"] = obj{"type": "disabled"}
	}
	msgs := []any{obj{"role": "user", "content": []any{obj{"type": "text", "text": "Fix the failing test in ./pkg."}}}}
	for i := 0; i < turns; i++ {
		id := fmt.Sprintf("toolu_%024d", i)
		name := "Bash"
		if i%5 == 4 {
			name = "mcp__server_with_a_long_name__tool_with_an_even_longer_name_for_tests"
		}
		msgs = append(msgs,
			obj{"role": "assistant", "content": []any{
				obj{"type": "thinking", "thinking": fmt.Sprintf("Step %d: look at the file, then run the tests.", i), "signature": "EqQBCkgIARABGAIiQL" + strings.Repeat("x7Qm", 20)},
				obj{"type": "text", "text": "Let me read the file."},
				obj{"type": "tool_use", "id": id, "name": name, "input": obj{"command": fmt.Sprintf("cat pkg/file_%d.go", i)}},
			}},
			obj{"role": "user", "content": []any{
				obj{"type": "tool_result", "tool_use_id": id, "content": code},
			}})
	}
	req["messages"] = msgs
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(turns%2 == 0) // both ways clients write < and &
	if err := enc.Encode(req); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// FuzzAmazonQConvertMatchesTyped: for any body, however the handler read
// it, the converter writes the typed converter's bytes, or fails with the
// same error.
func FuzzAmazonQConvertMatchesTyped(f *testing.F) {
	for _, tc := range rewriteGoldenCases {
		f.Add([]byte(tc.body))
	}
	for _, tc := range fastCases {
		f.Add([]byte(tc.body))
	}
	for _, s := range fuzzcheck.Seeds {
		f.Add([]byte(s))
	}
	f.Add(claudeCodeBody(f, 3, true))
	f.Add(claudeCodeBody(f, 2, false))
	p := testProvider(Config{ProfileARN: "arn:p"})
	f.Fuzz(func(t *testing.T, body []byte) {
		checkFastMatchesTyped(t, p, testSettings(), body)
	})
}

// BenchmarkConvert compares the fast converter with the typed one on a
// Claude Code request of about 1 MB, each from the request as the handler
// reads it (a scan for the fast one, a full parse for the typed one).
func BenchmarkConvert(b *testing.B) {
	body := claudeCodeBody(b, 360, true)
	p := testProvider(Config{})
	for _, name := range []string{"scan", "fast", "parse", "typed"} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			cpu0 := cputime.Process()
			for b.Loop() {
				var req *wire.Request
				var err error
				if name == "scan" || name == "fast" {
					req, err = wire.ScanRequest(body)
				} else {
					req, err = wire.ParseRequest(body)
				}
				if err != nil {
					b.Fatal(err)
				}
				x := providers.NewExchange(testSettings(), req, body, providers.ExchangeOptions{})
				switch name {
				case "fast":
					if _, _, err := p.convert(x); err != nil {
						b.Fatal(err)
					}
				case "typed":
					if _, _, err := p.convertTyped(x); err != nil {
						b.Fatal(err)
					}
				}
			}
			mb := float64(len(body)) / (1 << 20)
			b.ReportMetric(float64((cputime.Process()-cpu0).Nanoseconds())/1e6/float64(b.N)/mb, "cpu-ms/MB")
		})
	}
}
