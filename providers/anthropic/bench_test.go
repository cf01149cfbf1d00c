package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// benchStream is a long Anthropic stream of 8–64-byte text deltas with a
// thinking span every few hundred bytes, as the end-to-end benchmark uses.
func benchStream(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the model reasons about a question and writes an answer with code, numbers 42 and 3.14, café 你好 🎯")
	var text strings.Builder
	for text.Len() < n {
		text.WriteString("<thinking>")
		for k := 100 + rng.IntN(200); k > 0; k -= 6 {
			text.WriteString(words[rng.IntN(len(words))] + " ")
		}
		text.WriteString("</thinking>")
		for k := 200 + rng.IntN(300); k > 0; k -= 6 {
			text.WriteString(words[rng.IntN(len(words))] + " ")
		}
	}
	s := text.String()
	var b strings.Builder
	b.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_b\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n")
	b.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	for len(s) > 0 {
		k := min(8+rng.IntN(57), len(s))
		for k < len(s) && s[k]&0xC0 == 0x80 {
			k++
		}
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":%s}}\n\n", jsonString(s[:k]))
		s = s[k:]
	}
	b.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
	b.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":9}}\n\n")
	b.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	return []byte(b.String())
}

// jsonString encodes s as the model APIs do, with '<' raw (encoding/json
// would write \u003c, which the APIs do not).
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// BenchmarkSplitStream: upstream bytes in 16 KiB writes through the split_tags
// translator and the emitter, the per-stream hot path of `thinkgate anthropic`.
func BenchmarkSplitStream(b *testing.B) {
	body := benchStream(1 << 20)
	settings := &providers.Settings{SplitTags: true, Signer: emit.NewSigner([]byte("k"))}
	req := &wire.Request{Model: "m"}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	em := emit.NewEmitter(emit.FormThinking, settings.Signer)
	buf := make([]byte, 16<<10)
	for b.Loop() {
		x := providers.NewExchange(settings, req, nil, providers.ExchangeOptions{})
		em.Flush()
		s := NewSplitStream(x, em)
		*em = *emit.NewEmitter(emit.FormThinking, settings.Signer)
		for p := body; len(p) > 0; p = p[min(16<<10, len(p)):] {
			// Through one buffer, as reverse_proxy hands its reads over:
			// the bytes are in cache, not read from a 4 MB body.
			n := copy(buf, p)
			if err := s.Write(buf[:n]); err != nil {
				b.Fatal(err)
			}
			em.Flush()
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
