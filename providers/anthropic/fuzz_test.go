package anthropic

import (
	"testing"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
)

// FuzzRewrite: the request converter never panics, rejects input only with
// an Anthropic 4xx error, and otherwise builds a well-formed upstream request.
func FuzzRewrite(f *testing.F) {
	for _, s := range fuzzcheck.Seeds {
		f.Add([]byte(s))
	}
	p := New(Config{APIKey: "k"})
	f.Fuzz(func(t *testing.T, body []byte) { fuzzcheck.Rewrite(t, p, body) })
}

// FuzzTranslate: the stream translator never panics and writes only
// well-formed events, for any upstream bytes split anywhere.
func FuzzTranslate(f *testing.F) {
	f.Add([]byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a <thinking>b\\\\\"</thinking>c\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":5}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"), []byte{3, 1, 7})
	// An upstream framing an event of its own inside a raw block's data.
	f.Add([]byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\"}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"redacted_thinking\",\ndata: \"data\":\"x\n\ndata: \nevent: content_block_start\ndata: {}\"}}\n\n"), []byte{5})
	p := New(Config{APIKey: "k"})
	f.Fuzz(func(t *testing.T, upstream, splits []byte) { fuzzcheck.Stream(t, p, upstream, splits) })
}
