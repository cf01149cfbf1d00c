package gemini

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/cputime"
	"github.com/thinkgate/thinkgate/providers/emit"
)

// longStream is a realistic long Gemini answer: 300 thought chunks, a
// signature, 1200 text chunks with escapes and non-ASCII text, a function
// call, and usageMetadata on every chunk as Gemini sends it.
func longStream() []byte {
	var b strings.Builder
	usage := func(i int) string {
		return fmt.Sprintf(`"usageMetadata": {"promptTokenCount": 5321,"candidatesTokenCount": %d,"totalTokenCount": %d,"cachedContentTokenCount": 4096,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 5321}],"thoughtsTokenCount": 1200},"modelVersion": "gemini-2.5-pro","responseId": "Xk1raPyQJ8bUz7IPtp7U2QQ"`, i, 5321+i)
	}
	for i := range 300 {
		fmt.Fprintf(&b, "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Considering step %d of the plan: the \\\"cache\\\" layer must stay warm, so \",\"thought\": true}],\"role\": \"model\"},\"index\": 0}],%s}\r\n\r\n", i, usage(i))
	}
	fmt.Fprintf(&b, "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"\",\"thoughtSignature\": \"%s\"}],\"role\": \"model\"},\"index\": 0}],%s}\r\n\r\n", strings.Repeat("CiQB0e2Kb7", 40), usage(0))
	for i := range 1200 {
		fmt.Fprintf(&b, "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Line %d — the gateway streams text\\nwith escapes \\u00e9 and ordinary words. \"}],\"role\": \"model\"},\"index\": 0}],%s}\r\n\r\n", i, usage(i))
	}
	fmt.Fprintf(&b, "data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"write_file\",\"args\": {\"path\": \"a.txt\",\"content\": \"hello\"}},\"thoughtSignature\": \"%s\"}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}],%s}\r\n\r\n", strings.Repeat("Q2FsbA==", 1), usage(1200))
	return []byte(b.String())
}

// BenchmarkStream translates the whole long stream, fed in 4 KiB writes as
// reverse_proxy would hand them over. allocs/op counts the per-stream setup
// (emitter, translator, parser buffers, the tool id); nothing is allocated
// per chunk (see BenchmarkStreamSteadyState).
func BenchmarkStream(b *testing.B) {
	body := longStream()
	s := testSettings()
	x := exchange(b, s, streamRequest)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	defer reportCPU(b, len(body))()
	for b.Loop() {
		em := emit.NewEmitter(s.Form, s.Signer)
		st := NewTranslator(x).NewStream(em)
		for p := body; len(p) > 0; {
			n := min(4096, len(p))
			if err := st.Write(p[:n]); err != nil {
				b.Fatal(err)
			}
			p = p[n:]
			em.Flush()
		}
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStreamSteadyState feeds text and thought chunks to one open
// stream: the per-delta hot path must not allocate.
func BenchmarkStreamSteadyState(b *testing.B) {
	for _, c := range []struct {
		name      string
		splitTags bool
		chunk     string
	}{
		{"text", false, "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Line — the gateway streams text\\nwith escapes \\u00e9 and words. \"}],\"role\": \"model\"},\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 5321,\"candidatesTokenCount\": 17,\"totalTokenCount\": 5338,\"thoughtsTokenCount\": 1200},\"modelVersion\": \"gemini-2.5-pro\"}\r\n\r\n"},
		{"thought", false, "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Considering the \\\"cache\\\" layer; it must stay warm. \",\"thought\": true}],\"role\": \"model\"},\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 5321,\"totalTokenCount\": 5338,\"thoughtsTokenCount\": 1200}}\r\n\r\n"},
		{"text_split_tags", true, "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Line — the gateway streams text <b>with</b> words. \"}],\"role\": \"model\"},\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 5321,\"candidatesTokenCount\": 17}}\r\n\r\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := testSettings()
			s.SplitTags = c.splitTags
			x := exchange(b, s, streamRequest)
			em := emit.NewEmitter(s.Form, s.Signer)
			st := NewTranslator(x).NewStream(em)
			chunk := []byte(c.chunk)
			for range 10 { // warm the buffers
				_ = st.Write(chunk)
				em.Flush()
			}
			b.SetBytes(int64(len(chunk)))
			b.ReportAllocs()
			defer reportCPU(b, len(chunk))()
			for b.Loop() {
				if err := st.Write(chunk); err != nil {
					b.Fatal(err)
				}
				em.Flush()
			}
		})
	}
}

// reportCPU adds "cpu-MB/s": bytes translated per CPU-second of the process.
func reportCPU(b *testing.B, bytesPerOp int) func() {
	start := cputime.Process()
	return func() {
		if d := cputime.Process() - start; d > 0 {
			b.ReportMetric(float64(bytesPerOp)*float64(b.N)/d.Seconds()/1e6, "cpu-MB/s")
		}
	}
}

// TestSteadyStateAllocs pins the zero: a text or thought chunk on an open
// stream allocates nothing.
func TestSteadyStateAllocs(t *testing.T) {
	for _, chunk := range []string{
		"data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"plain text é\\n\"}],\"role\": \"model\"},\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 5,\"candidatesTokenCount\": 1}}\r\n\r\n",
		"data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"a thought\",\"thought\": true}],\"role\": \"model\"},\"index\": 0}]}\n\n",
	} {
		s := testSettings()
		x := exchange(t, s, streamRequest)
		em := emit.NewEmitter(s.Form, s.Signer)
		st := NewTranslator(x).NewStream(em)
		b := []byte(chunk)
		for range 10 {
			_ = st.Write(b)
			em.Flush()
		}
		if n := testing.AllocsPerRun(200, func() {
			_ = st.Write(b[:17])
			_ = st.Write(b[17:])
			em.Flush()
		}); n != 0 {
			t.Errorf("%d allocations per chunk for %q", int(n), chunk)
		}
	}
}
