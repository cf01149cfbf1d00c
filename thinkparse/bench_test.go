package thinkparse

import (
	"math/rand/v2"
	"strings"
	"testing"
)

var benchWords = strings.Fields(`the a of to and in is that for it as with was on be by this are
from or an which can at have not will but all more one has their its also when
request response model stream token parser buffer chunk server client proxy
latency throughput answer question reasoning step result value function error
configuration example because however therefore first second finally simply`)

// benchText returns about size bytes of English-like Markdown with a
// thinking span every spanEvery bytes (roughly).
func benchText(size, spanEvery int) []byte {
	rng := rand.New(rand.NewPCG(42, uint64(spanEvery)))
	var sb strings.Builder
	sentence := func() {
		n := 6 + rng.IntN(14)
		for i := range n {
			w := benchWords[rng.IntN(len(benchWords))]
			if i == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			} else {
				sb.WriteByte(' ')
			}
			switch rng.IntN(40) {
			case 0:
				w = "`" + w + "()`"
			case 1:
				w = "**" + w + "**"
			case 2:
				w = "[" + w + "](https://example.com/" + w + ")"
			case 3:
				w += ","
			}
			sb.WriteString(w)
		}
		sb.WriteString(". ")
	}
	next := spanEvery
	for k := 0; sb.Len() < size; k++ {
		switch rng.IntN(12) {
		case 0:
			sb.WriteString("## ")
			sentence()
			sb.WriteString("\n\n")
		case 1:
			for range 3 {
				sb.WriteString("- ")
				sentence()
				sb.WriteString("\n")
			}
			sb.WriteString("\n")
		case 2:
			sb.WriteString("```go\nfunc f(a, b int) bool { return a < b && b > 0 }\n// <div> not a tag\n```\n\n")
		default:
			for range 1 + rng.IntN(4) {
				sentence()
			}
			sb.WriteString("\n\n")
		}
		for sb.Len() >= next {
			if k%5 == 4 {
				sb.WriteString(`<thinking thought="Check the &quot;numbers&quot; again." thought_type="verification" confidence="0.8"></thinking>`)
			} else {
				sb.WriteString("<thinking>")
				sentence()
				sentence()
				sb.WriteString("</thinking>")
			}
			next += spanEvery
		}
	}
	return []byte(sb.String()[:size])
}

func BenchmarkParse(b *testing.B) {
	const size = 1 << 20
	for _, d := range []struct {
		name  string
		every int
	}{{"sparse", 8 << 10}, {"dense", 200}} {
		data := benchText(size, d.every)
		for _, chunk := range []struct {
			name string
			n    int
		}{{"16", 16}, {"4k", 4 << 10}} {
			b.Run(d.name+"-"+chunk.name, func(b *testing.B) {
				p := New(Options{}, nopSink{})
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					p.Reset(nopSink{})
					for i := 0; i < len(data); i += chunk.n {
						p.Write(data[i:min(i+chunk.n, len(data))])
					}
					p.Close()
				}
			})
		}
	}
}

// TestBenchTextShape keeps the benchmark input honest: it has the intended
// number of spans and the parser finds them all.
func TestBenchTextShape(t *testing.T) {
	for _, c := range []struct{ every, min int }{{8 << 10, 100}, {200, 3000}} {
		data := benchText(1<<20, c.every)
		r := &recorder{}
		p := New(Options{}, r)
		p.Write(data)
		p.Close()
		spans := 0
		for _, e := range r.evs {
			if e.Kind == 'S' {
				spans++
			}
		}
		if spans < c.min || spans > (1<<20)/c.every+2 {
			t.Fatalf("every %d: %d spans", c.every, spans)
		}
		if r.err != "" {
			t.Fatal(r.err)
		}
	}
}
