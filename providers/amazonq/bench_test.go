package amazonq

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/providers/awsstream"
	"github.com/thinkgate/thinkgate/providers/emit"
)

// benchStream is a long, realistic answer: a 4 KiB thinking span and a
// 32 KiB answer in 16-byte text events, a tool call in 64 fragments, and
// the closing metadata.
func benchStream(t testing.TB) (data []byte, frames int) {
	var parts [][]byte
	add := func(f []byte) { parts = append(parts, f); frames++ }
	text := func(s string) {
		for len(s) > 0 {
			n := min(16, len(s))
			add(textFrame(t, s[:n]))
			s = s[n:]
		}
	}
	text("<thinking>" + strings.Repeat("The user asks about the weather; ", 128) + "</thinking>")
	text(strings.Repeat("Paris is sunny & 18°C today, \"nice\".\n", 880))
	add(eventFrame(t, "toolUseEvent", `{"toolUseId":"tooluse_bench","name":"get_weather"}`))
	input, _ := json.Marshal(map[string]string{"city": strings.Repeat("Paris", 100)})
	for i := 0; i < 64; i++ {
		lo, hi := i*len(input)/64, (i+1)*len(input)/64
		frag, _ := json.Marshal(string(input[lo:hi]))
		add(eventFrame(t, "toolUseEvent", `{"toolUseId":"tooluse_bench","input":`+string(frag)+`}`))
	}
	add(eventFrame(t, "toolUseEvent", `{"toolUseId":"tooluse_bench","stop":true}`))
	add(eventFrame(t, "metadataEvent", `{"tokenUsage":{"uncachedInputTokens":1200,"outputTokens":9000}}`))
	return concat(parts...), frames
}

// BenchmarkStream measures the translator on benchStream written in
// 1400-byte pieces (one TCP segment each), output discarded per write.
func BenchmarkStream(b *testing.B) {
	data, frames := benchStream(b)
	x := exchange(b, testSettings(), basicRequest)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		em := emit.NewEmitter(x.Settings.Form, x.Settings.Signer)
		s := NewTranslator(x).NewStream(em).(*StreamTranslator)
		for p := data; len(p) > 0; {
			n := min(1400, len(p))
			if err := s.Write(p[:n]); err != nil {
				b.Fatal(err)
			}
			em.Flush()
			p = p[n:]
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(frames), "frames/op")
}

// decodedText returns a decoded text frame.
func decodedText(t testing.TB, s string) awsstream.Message {
	var got awsstream.Message
	dec := awsstream.NewDecoder(func(m awsstream.Message) error {
		got = awsstream.Message{Headers: m.Headers, Payload: append([]byte(nil), m.Payload...)}
		return nil
	})
	if err := dec.Write(textFrame(t, s)); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestHandleSteadyStateAllocs: once a frame is decoded, the translation of
// a text event (JSON field, tag parser, emitter) does not allocate. The
// allocations of BenchmarkStream are the aws-sdk-go-v2 decoder's own.
func TestHandleSteadyStateAllocs(t *testing.T) {
	x := exchange(t, testSettings(), basicRequest)
	em := emit.NewEmitter(x.Settings.Form, x.Settings.Signer)
	s := NewTranslator(x).NewStream(em).(*StreamTranslator)
	plain := decodedText(t, "plain answer text, \"quoted\" & escaped\n")
	think := decodedText(t, "<thinking>a thought</thinking>after")
	for i := 0; i < 100; i++ { // warm up: buffers reach their size, the mode is decided
		_ = s.handle(plain)
		_ = s.handle(think)
		em.Flush()
	}
	allocs := testing.AllocsPerRun(1000, func() {
		_ = s.handle(plain)
		_ = s.handle(think)
		em.Flush()
	})
	if allocs != 0 {
		t.Errorf("%v allocations per pair of text events", allocs)
	}
}

// BenchmarkHandle is the gateway's own share: translating decoded text events.
func BenchmarkHandle(b *testing.B) {
	x := exchange(b, testSettings(), basicRequest)
	em := emit.NewEmitter(x.Settings.Form, x.Settings.Signer)
	s := NewTranslator(x).NewStream(em).(*StreamTranslator)
	m := decodedText(b, "Paris is sunny & 18°C today.")
	b.SetBytes(int64(len(m.Payload)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = s.handle(m)
		em.Flush()
	}
}
