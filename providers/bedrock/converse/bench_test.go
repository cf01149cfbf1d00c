package converse

import (
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
)

// longStream is a long Claude turn as ConverseStream sends it: reasoning,
// a long answer and a tool call whose input streams in small pieces;
// deltas of a few characters, as tokens come.
func longStream() []byte {
	split := func(s string, n int) []string {
		var out []string
		for i := 0; i < len(s); i += n {
			out = append(out, s[i:min(i+n, len(s))])
		}
		return out
	}
	f := new(frames).start()
	f.reasoning(0, strings.Repeat("EqQBCkgIBxAB", 40), split(strings.Repeat("Let me think about the structure of this problem. ", 45), 12)...)
	f.text(1, split(strings.Repeat("Here is part of the answer, with some code: `fmt.Println(\"hi\")` — 日本語 — and more prose. ", 40), 12)...)
	args := `{"file_path":"/tmp/x.go","content":"` + strings.Repeat(`package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n`, 30) + `"}`
	f.tool(2, "tooluse_bench", "Write", split(args, 6)...)
	return f.stop("tool_use").metadata(12000, 8000, 3500, 1500).bytes()
}

// BenchmarkStream measures the stream translator on longStream, written in
// 1 KiB pieces as a proxy hands them over.
func BenchmarkStream(b *testing.B) {
	x := exchange(b, nil, "", streamRequest)
	providertest.BenchmarkWrites(b, x, NewTranslator(x, &State{}).(*Translator).NewStream, longStream(), 1024)
}

// BenchmarkConvertRequest measures the request converter on a long tool
// loop with thinking.
func BenchmarkConvertRequest(b *testing.B) {
	var msgs []string
	for i := range 40 {
		thought := "Thinking about step " + strings.Repeat("x", 200)
		msgs = append(msgs, `{"role":"assistant","content":[{"type":"thinking","thinking":"`+thought+`","signature":"`+bedrockSig("sig", thought)+`"},`+
			`{"type":"text","text":"`+strings.Repeat("Some text. ", 30)+`"},{"type":"tool_use","id":"t`+string(rune('a'+i%26))+`","name":"Read","input":{"path":"/x"}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t`+string(rune('a'+i%26))+`","content":"`+strings.Repeat("line of a file\\n", 80)+`"}]}`)
	}
	body := `{"model":"` + claude + `","max_tokens":32000,"stream":true,"thinking":{"type":"enabled","budget_tokens":10000},` +
		`"tools":[{"name":"Read","input_schema":{"type":"object","properties":{"path":{"type":"string"}}}}],` +
		`"messages":[{"role":"user","content":"Start"},` + strings.Join(msgs, ",") + `]}`
	x := exchange(b, nil, "", body)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ConvertRequest(x, Options{}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
