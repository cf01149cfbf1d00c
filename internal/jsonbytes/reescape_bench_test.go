package jsonbytes

import (
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkScanString: finding a string's end and checking it is canonical
// in one walk, on source code (an escape every few words) and on prose,
// against ValidString's walk of the same string.
func BenchmarkScanString(b *testing.B) {
	for _, c := range []struct{ name, text string }{
		{"code", strings.Repeat("func main() {\n\tfmt.Println(\"héllo, \\\"wörld\\\"\")\t// 日本語\n}\n", 1000)},
		{"prose", strings.Repeat("I should look at the file and then run the tests again. ", 1000)},
	} {
		q, _ := json.Marshal(c.text)
		b.Run(c.name+"/ScanString", func(b *testing.B) {
			b.SetBytes(int64(len(q)))
			for b.Loop() {
				if end, _ := ScanString(q, 0); end != len(q) {
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
