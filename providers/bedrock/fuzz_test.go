package bedrock

import (
	"testing"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
)

// FuzzStream: whatever frames and cuts the upstream sends, the chunk
// decoder never panics and writes only well-formed events.
func FuzzStream(f *testing.F) {
	seeds := [][]byte{
		claudeStream(f, claudeEvents...),
		append(claudeStream(f, claudeEvents[:7]...), exception(f, "throttlingException", "slow down")...),
		chunk(f, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}`),
		chunk(f, "{\"type\":\"message_start\",\n\"message\":{}}"),
		frameChunkPayload(f, `{"bytes":"e30="}`),
		[]byte(`{"message":"no"}`),
		// Hostile frames: a corrupt CRC, a length out of range.
		append(claudeStream(f, claudeEvents[:3]...), func() []byte { c := chunk(f, claudeEvents[3]); c[len(c)-1] ^= 1; return c }()...),
		append(claudeStream(f, claudeEvents[:2]...), 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
	}
	for _, s := range seeds {
		f.Add(s, []byte{3, 1, 200})
		f.Add(s, []byte{})
	}
	f.Fuzz(func(t *testing.T, upstream, splits []byte) {
		fuzzcheck.Stream(t, keyProvider(t, Config{API: APIInvoke}), upstream, splits)
	})
}

// FuzzRewrite: any request converts to a well-formed InvokeModel request
// or is refused with a 4xx.
func FuzzRewrite(f *testing.F) {
	for _, s := range fuzzcheck.Seeds {
		f.Add(s)
	}
	f.Add(invokeRequest)
	f.Fuzz(func(t *testing.T, body string) {
		fuzzcheck.Rewrite(t, keyProvider(t, Config{API: APIInvoke}), []byte(body))
	})
}
