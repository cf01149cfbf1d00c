package jsonbytes

import "testing"

// benchEscaped is a text_delta string as Anthropic and OpenAI escape it.
var benchEscaped = []byte(`The quick \"brown\" fox\njumps over the lazy dog \u2014 caf\u00e9 \ud83d\ude00, then \\ a tab\t.`)

func BenchmarkAppendUnescaped(b *testing.B) {
	dst := make([]byte, 0, 256)
	b.SetBytes(int64(len(benchEscaped)))
	b.ReportAllocs()
	for b.Loop() {
		dst, _ = AppendUnescaped(dst[:0], benchEscaped)
	}
}
