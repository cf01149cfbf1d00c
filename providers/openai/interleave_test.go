package openai

import (
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers/openai/openaitest"
)

// piece is one delta of a chat completion stream, to be put in any order.
type piece func(c *openaitest.Chunks)

func reasoningPiece(s string) piece { return func(c *openaitest.Chunks) { c.ReasoningContent(s, 0) } }
func contentPiece(s string) piece   { return func(c *openaitest.Chunks) { c.Content(s, 0) } }
func toolStartPiece(i int, id, name string) piece {
	return func(c *openaitest.Chunks) { c.ToolStart(i, id, name) }
}
func argsPiece(i int, s string) piece { return func(c *openaitest.Chunks) { c.ToolArgs(i, s) } }

func chatStream(pieces ...[]piece) []byte {
	c := openaitest.New()
	for _, ps := range pieces {
		for _, p := range ps {
			p(c)
		}
	}
	return c.Finish("tool_calls").Usage(10, 20, 0).Done().Bytes()
}

// TestStreamInterleavedItems: reasoning, content and tool calls (by
// index) whose deltas interleave give each piece's content once, in the
// blocks docs/thinking.md ("Items that interleave") describes. Golden files
// hold the events and the Message the SDK accumulates from them.
func TestStreamInterleavedItems(t *testing.T) {
	r := []piece{reasoningPiece("Weather first, "), reasoningPiece("then time.")}
	m := []piece{contentPiece("Checking "), contentPiece("both.")}
	a := []piece{toolStartPiece(0, "call_a", "get_weather"), argsPiece(0, `{"city":`), argsPiece(0, `"Paris"}`)}
	b := []piece{toolStartPiece(1, "call_b", "get_time"), argsPiece(1, `{"tz":`), argsPiece(1, `"CET"}`)}
	for _, tc := range []struct {
		name     string
		upstream []byte
	}{
		{"sequential", chatStream(r, m, a, b)},
		{"reasoning_and_content_alternate", chatStream(providertest.Alternate(r, m), a, b)},
		{"reasoning_during_call", chatStream(m, a[:2], r, a[2:], b)},
		{"calls_alternate", chatStream(r, m, providertest.Alternate(a, b))},
		{"content_between_call_fragments", chatStream(r, a[:2], m[:1], b[:1], a[2:], m[1:], b[1:])},
		{"call_index_reused_with_a_new_id", chatStream(r, a, []piece{toolStartPiece(0, "call_c", "get_time"), argsPiece(0, `{}`)})},
	} {
		t.Run(tc.name, func(t *testing.T) { interleave.Golden(t, tc.name, tc.upstream, "") })
	}
}

// FuzzInterleave: tool calls are independent of each other: their
// fragments interleaved in any order (each call's own in its order, the
// calls beginning in their order) give the Message the SDK accumulates
// from the calls sent one after another.
func FuzzInterleave(f *testing.F) {
	calls := [][]piece{
		{toolStartPiece(0, "call_a", "get_weather"), argsPiece(0, `{"city":`), argsPiece(0, `"Paris",`), argsPiece(0, `"unit":"C"}`)},
		{toolStartPiece(1, "call_b", "get_time"), argsPiece(1, `{"tz":`), argsPiece(1, `"CET"}`)},
		{toolStartPiece(2, "call_c", "noop"), argsPiece(2, `{}`)},
	}
	lead := []piece{reasoningPiece("Plan: "), reasoningPiece("three calls."), contentPiece("Calling.")}
	want := interleave.Message(f, chatStream(lead, calls[0], calls[1], calls[2]))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{2, 1, 0, 2, 1, 0, 2, 1, 0})
	f.Add([]byte{1, 1, 1, 2, 2, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, choice []byte) {
		next := make([]int, len(calls))
		var order []piece
		for k := 0; ; k++ {
			var open []int
			for i, c := range calls {
				// A call begins after the calls before it began: the
				// order blocks begin in is the Message's order.
				if next[i] < len(c) && (next[i] > 0 || i == 0 || next[i-1] > 0) {
					open = append(open, i)
				}
			}
			if len(open) == 0 {
				break
			}
			i := open[0]
			if k < len(choice) {
				i = open[int(choice[k])%len(open)]
			}
			order = append(order, calls[i][next[i]])
			next[i]++
		}
		if got := interleave.Message(t, chatStream(lead, order)); got != want {
			t.Fatalf("the Message differs from the sequential one:\n%s\n--- sequential:\n%s", got, want)
		}
	})
}

// runInterleaved translates upstream in writes of n bytes.
func runInterleaved(t testing.TB, upstream []byte, n int) ([]byte, error) {
	x := exchange(t, nil, streamRequest)
	return runStream(t, NewTranslator(x, nil, 0), upstream, n)
}

var interleave = providertest.Interleave{Detail: ssetest.MessageJSON | ssetest.StopSequence | ssetest.Usage, Run: runInterleaved}
