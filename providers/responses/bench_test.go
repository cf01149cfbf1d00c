package responses

import (
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	rt "github.com/thinkgate/thinkgate/providers/responses/responsestest"
)

// longStream is a long gpt-5 turn as the API streams it: a reasoning
// summary in three parts, a long answer, a function call whose arguments
// stream in small pieces; deltas of about 4 characters, as tokens come.
func longStream() []byte {
	part := strings.Repeat("Let me think about the structure of this problem. ", 15)
	b := rt.New("resp_bench", "gpt-5").Reasoning("rs_bench", strings.Repeat("gAAAA", 400), []string{part, part, part}, 4)
	b.Message("msg_bench", strings.Repeat("Here is part of the answer, with some code: `fmt.Println(\"hi\")` — 日本語 — and more prose. ", 40), 4)
	args := `{"file_path":"/tmp/x.go","content":"` + strings.Repeat(`package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n`, 30) + `"}`
	var pieces []string
	for i := 0; i < len(args); i += 6 {
		pieces = append(pieces, args[i:min(i+6, len(args))])
	}
	return b.Call("fc_bench", "call_bench", "Write", pieces...).Completed(rt.Usage(12000, 8000, 3500, 1500)).Bytes()
}

// BenchmarkStream measures the stream translator on longStream, written in
// 1 KiB pieces as a proxy hands them over.
func BenchmarkStream(b *testing.B) {
	x := exchange(b, nil, streamRequest)
	providertest.BenchmarkWrites(b, x, NewTranslator(x, new(State)).NewStream, longStream(), 1024)
}
