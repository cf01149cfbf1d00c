package openai

import (
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/openai/openaitest"
)

// longStream is a realistic long answer: DeepSeek-style reasoning, then
// content with interleaved <thinking> spans, a tool call whose arguments
// stream in small pieces, usage and [DONE]; deltas of about 4 characters, as
// servers send tokens.
func longStream() []byte {
	c := openaitest.New()
	c.ReasoningContent(strings.Repeat("Let me think about the structure of this problem. ", 40), 4)
	for i := 0; i < 20; i++ {
		c.Content("Here is part of the answer, with some code: `fmt.Println(\"hi\")` and more prose. "+
			"<thinking>Check the edge cases: empty input, unicode — 日本語 — and very long lines.</thinking>"+
			"The edge cases are handled as follows. ", 4)
	}
	c.ToolStart(0, "call_bench", "Write")
	args := `{"file_path":"/tmp/x.go","content":"` + strings.Repeat(`package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n`, 30) + `"}`
	for i := 0; i < len(args); i += 6 {
		c.ToolArgs(0, args[i:min(i+6, len(args))])
	}
	return c.Finish("tool_calls").Usage(12000, 3500, 8000).Done().Bytes()
}

// BenchmarkStream measures the stream translator on longStream, written in
// 1 KiB pieces as a proxy hands them over.
func BenchmarkStream(b *testing.B) { benchmarkWrites(b, longStream(), 1024) }

// benchmarkWrites runs upstream through the stream translator in writes of
// chunk bytes.
func benchmarkWrites(b *testing.B, up []byte, chunk int) {
	x := exchange(b, nil, streamRequest)
	tr := NewTranslator(x, &State{}, 0)
	providertest.BenchmarkWrites(b, x, tr.NewStream, up, chunk)
}

// TestStreamSteadyStateAllocs: once a stream is under way, content (tags
// included), reasoning and tool-argument deltas allocate nothing.
func TestStreamSteadyStateAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts: skipped under -short")
	}
	for _, tc := range []struct {
		name   string
		warmup *openaitest.Chunks
		cycle  []byte
	}{
		{"content with tags", openaitest.New().Content("warm <thinking>up</thinking> ", 0),
			openaitest.New().Content("Some text, <thinking>a \"quoted\" thought\n</thinking> and an answer — ünïcödé. ", 5).Bytes()},
		{"reasoning", openaitest.New().ReasoningContent("warm", 0),
			openaitest.New().ReasoningContent("Reasoning with \"escapes\"\n and more. ", 4).Bytes()},
		{"tool arguments", openaitest.New().ToolStart(0, "call_1", "Write").ToolArgs(0, `{"content":"`),
			openaitest.New().ToolArgs(0, `line\n\"q\" `).ToolArgs(0, `more text `).Bytes()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := exchange(t, nil, streamRequest)
			em := emit.NewEmitter(x.Settings.Form, x.Settings.Signer)
			s := NewTranslator(x, nil, 0).NewStream(em)
			// The cycle's opening chunk is the role chunk; cut it off.
			cycle := tc.cycle[strings.Index(string(tc.cycle), "\n\n")+2:]
			warm := tc.warmup.Bytes()
			for i := 0; i < 3; i++ {
				warm = append(warm, cycle...)
			}
			if err := s.Write(warm); err != nil {
				t.Fatal(err)
			}
			em.Flush()
			allocs := testing.AllocsPerRun(200, func() {
				for p := cycle; len(p) > 0; {
					n := min(37, len(p))
					if err := s.Write(p[:n]); err != nil {
						t.Fatal(err)
					}
					p = p[n:]
				}
				em.Flush()
			})
			if allocs != 0 {
				t.Errorf("%v allocations per cycle of %d bytes, want 0", allocs, len(cycle))
			}
		})
	}
}

// BenchmarkContentStream: the end-to-end benchmark's kind of stream (go run
// ./bench) in small form: content in pieces of 37 characters with a
// <thinking> span every few hundred bytes, in the 16 KiB writes
// reverse_proxy hands over.
func BenchmarkContentStream(b *testing.B) {
	c := openaitest.New()
	for i := 0; i < 2000; i++ {
		c.Content("<thinking>the model reasons about a question, café 你好 🎯, numbers 42 and 3.14 and more reasoning "+
			"before it answers</thinking>then writes an answer with code, lists and prose so that every byte path of the "+
			"parser and the JSON writer is exercised, including unicode like naïve and emoji 🎯 and the usual punctuation.\n", 37)
	}
	benchmarkWrites(b, c.Finish("stop").Usage(10, 1000, 0).Done().Bytes(), 16<<10)
}
