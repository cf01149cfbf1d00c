package caddymodule

import (
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/providers"
)

// TestUsageScanner: a passed-through stream's usage is message_start's,
// updated by message_delta's, whatever the write sizes; a Message body's
// is its own usage member, not one inside its content; a line over the
// bound is skipped, not misread.
func TestUsageScanner(t *testing.T) {
	stream := "event: message_start\r\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":100,\"cache_creation_input_tokens\":5,\"cache_read_input_tokens\":7,\"output_tokens\":1}}}\r\n\r\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"" + strings.Repeat("x", maxUsageLine) + "\\\"usage\\\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\\\"usage\\\":{\\\"output_tokens\\\":999}\"}}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":20}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	want := providers.Usage{InputTokens: 100, OutputTokens: 20, CacheCreationInputTokens: 5, CacheReadInputTokens: 7}
	for _, n := range []int{1, 7, 64, 1 << 20} {
		x := &providers.Exchange{}
		s := &usageScanner{x: x, stream: true}
		for b := []byte(stream); len(b) > 0; {
			k := min(n, len(b))
			s.write(b[:k])
			b = b[k:]
		}
		s.end()
		if x.Usage != want {
			t.Errorf("stream in writes of %d: %+v, want %+v", n, x.Usage, want)
		}
	}
	body := `{"type":"message","content":[{"type":"text","text":"\"usage\": {\"output_tokens\": 999}` + strings.Repeat("y", 2*maxUsageLine) + `"}],"usage" : {"input_tokens":100,"cache_creation_input_tokens":5,"cache_read_input_tokens":7,"output_tokens":20}}`
	for _, n := range []int{3, 4096, 1 << 20} {
		x := &providers.Exchange{}
		s := &usageScanner{x: x}
		for b := []byte(body); len(b) > 0; {
			k := min(n, len(b))
			s.write(b[:k])
			b = b[k:]
		}
		s.end()
		if x.Usage != want {
			t.Errorf("body in writes of %d: %+v, want %+v", n, x.Usage, want)
		}
	}
}
