package caddymodule

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
)

// passthroughStream is an Anthropic stream with CRLF lines, a delta line
// over maxObservedLine that mentions "usage", and a delta whose text looks
// like a usage object.
var passthroughStream = "event: message_start\r\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"model\":\"claude-up\",\"usage\":{\"input_tokens\":100,\"cache_creation_input_tokens\":5,\"cache_read_input_tokens\":7,\"output_tokens\":1}}}\r\n\r\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"" + strings.Repeat("x", maxObservedLine) + "\\\"usage\\\"\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\\\"usage\\\":{\\\"output_tokens\\\":999}\"}}\n\n" +
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":20}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

// passthroughMessage is a Message body of about size bytes whose content
// holds text that looks like a usage member.
func passthroughMessage(size int) string {
	return `{"id":"msg_1","type":"message","model":"claude-up","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"\"usage\": {\"output_tokens\": 999}` +
		strings.Repeat("y", size) + `"}],"stop_reason":"end_turn","usage" : {"input_tokens":100,"cache_creation_input_tokens":5,"cache_read_input_tokens":7,"output_tokens":20}}`
}

// readPassthrough feeds body to a new reader in writes of n bytes.
func readPassthrough(x *providers.Exchange, tc *exchangeTrace, count bool, status int, body string, n int) {
	r := newPassthroughReader(x, tc, count, status)
	if r == nil {
		return
	}
	for b := []byte(body); len(b) > 0; {
		k := min(n, len(b))
		r.write(b[:k])
		b = b[k:]
	}
	r.end()
}

// TestPassthroughReader: one reading of a passed-through response gives
// the span and a named client the same usage: a stream's is
// message_start's, updated by message_delta's, whatever the write sizes; a
// Message body's is its own usage member, not one inside its content, also
// past the bound of a body read whole (the span then reads only the
// usage); a line over the bound is skipped, not misread. Only a 2xx's
// usage is counted.
func TestPassthroughReader(t *testing.T) {
	want := emit.Usage{InputTokens: 100, OutputTokens: 20, CacheCreationInputTokens: 5, CacheReadInputTokens: 7}
	cases := []struct {
		name   string
		stream bool
		body   string
		whole  bool // the span reads the Message, not only its usage
	}{
		{"stream", true, passthroughStream, true},
		{"body", false, passthroughMessage(2 * maxUsageTail), true},
		{"body over the whole-body bound", false, passthroughMessage(maxObservedBody), false},
	}
	for _, c := range cases {
		for _, n := range []int{1, 7, 4096, 1 << 21} {
			if n < 7 && len(c.body) > 1<<20 {
				continue
			}
			t.Run(fmt.Sprintf("%s/writes of %d", c.name, n), func(t *testing.T) {
				for _, traced := range []bool{false, true} {
					for _, count := range []bool{false, true} {
						x := &providers.Exchange{Streaming: c.stream}
						var tc *exchangeTrace
						if traced {
							tc = &exchangeTrace{responseReading: responseReading{partIdx: -1}}
						}
						readPassthrough(x, tc, count, 200, c.body, n)
						if wantX := map[bool]emit.Usage{true: want}[count]; x.Usage != wantX {
							t.Errorf("traced=%v count=%v: the client counts %+v, want %+v", traced, count, x.Usage, wantX)
						}
						if !traced {
							continue
						}
						if !tc.sawUsage || tc.usage != want {
							t.Errorf("count=%v: the span's usage %+v (seen %v), want %+v", count, tc.usage, tc.sawUsage, want)
						}
						got := fmt.Sprint(tc.id, "|", tc.model, "|", tc.stopReason, "|", tc.thinkingBlocks)
						if wantSpan := map[bool]string{true: "msg_1|claude-up|end_turn|1", false: "|||0"}[c.whole]; got != wantSpan {
							t.Errorf("count=%v: the span read id|model|stop|thinking %q, want %q", count, got, wantSpan)
						}
					}
				}
			})
		}
	}
	t.Run("error", func(t *testing.T) {
		body := `{"type":"error","error":{"type":"overloaded_error","message":"busy"},"usage":{"input_tokens":3}}`
		x := &providers.Exchange{}
		tc := &exchangeTrace{responseReading: responseReading{partIdx: -1}}
		readPassthrough(x, tc, true, 529, body, 5)
		if x.Usage != (emit.Usage{}) || tc.errType != "overloaded_error" {
			t.Errorf("a 529: the client counts %+v, the span's error type %q", x.Usage, tc.errType)
		}
		if r := newPassthroughReader(x, nil, true, 529); r != nil {
			t.Errorf("a 529 without a span is read")
		}
	})
}
