package jsonbytes

import (
	"strings"
	"testing"
)

// BenchmarkAppendJSONStringNoHTML: the request encoder's escaper on the
// strings BenchmarkAppendJSONString uses, and on code, whose markup it
// writes as it is.
func BenchmarkAppendJSONStringNoHTML(b *testing.B) {
	words := strings.Fields("the model reasons about a question and writes an answer with code, numbers 42 and 3.14, café 你好 🎯")
	var long strings.Builder
	for i := 0; long.Len() < 4096; i++ {
		long.WriteString(words[(i*7)%len(words)] + " ")
	}
	code := strings.Repeat("\tif a < b && c > d {\n\t\treturn \"<tag>\" + s[i:j]\n\t}\n", 40)
	for _, tc := range []struct{ name, s string }{
		{"mixed", "The model said: \"x < y && y > z\".\nNext line with ünïcödé and a tab\t."},
		{"delta", "writes an answer with code, café and 你好 then numbers 42 and 3.14 so 🎯 the model reasons"},
		{"long", long.String()},
		{"ascii", "the model reasons about a question and writes an answer with code"},
		{"code", code},
	} {
		b.Run(tc.name, func(b *testing.B) {
			dst := make([]byte, 0, 2*len(tc.s))
			b.ReportAllocs()
			b.SetBytes(int64(len(tc.s)))
			for b.Loop() {
				dst = AppendStringNoHTML(dst[:0], tc.s)
			}
		})
	}
}
