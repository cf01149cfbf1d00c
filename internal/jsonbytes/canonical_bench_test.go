package jsonbytes

import (
	"encoding/json"
	"strings"
	"testing"
)

// canonicalBenchTexts: a tool's output of source code (an escape every few
// bytes, some non-ASCII) and plain ASCII prose.
var canonicalBenchTexts = []struct{ name, text string }{
	{"code", strings.Repeat("func main() {\n\tfmt.Println(\"héllo, \\\"wörld\\\"\")\t// 日本語\n}\n", 80)},
	{"prose", strings.Repeat("I should look at the file and then run the tests again. ", 80)},
}

// BenchmarkScanString: finding a string's end and telling whether it is
// canonical in one walk, against ValidString's walk of the same string.
func BenchmarkScanString(b *testing.B) {
	for _, c := range canonicalBenchTexts {
		q, _ := json.Marshal(c.text)
		b.Run(c.name+"/ScanString", func(b *testing.B) {
			b.SetBytes(int64(len(q)))
			for b.Loop() {
				if end, _, _ := ScanString(q, 0); end != len(q) {
					b.Fatal(end)
				}
			}
		})
		b.Run(c.name+"/ValidString", func(b *testing.B) {
			b.SetBytes(int64(len(q)))
			for b.Loop() {
				if end := ValidString(q, 0); end != len(q) {
					b.Fatal(end)
				}
			}
		})
	}
}

// BenchmarkAppendCanonical: copying a string canonical as it is, and one
// with a \/ to rewrite at its end.
func BenchmarkAppendCanonical(b *testing.B) {
	for _, c := range canonicalBenchTexts {
		q, _ := json.Marshal(c.text)
		rewrite := append(q[:len(q)-1:len(q)-1], `\/"`...)
		for _, v := range []struct {
			name string
			s    []byte
		}{{c.name, q}, {c.name + "/rewrite", rewrite}} {
			b.Run(v.name, func(b *testing.B) {
				b.SetBytes(int64(len(v.s)))
				var dst []byte
				for b.Loop() {
					var end int
					if dst, end, _, _ = AppendCanonical(dst[:0], v.s, 0); end != len(v.s) {
						b.Fatal(end)
					}
				}
			})
		}
	}
}
