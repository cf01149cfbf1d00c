package anthropic

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

const (
	shapeStart = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n"
	shapeText  = "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":%d,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
	shapeDelta = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":%d,\"delta\":{\"type\":\"text_delta\",\"text\":\"%s\"}}\n\n"
	shapeStop  = "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":%d}\n\n"
	shapeEnd   = "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":5}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
)

func f(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// shapeSeeds probe the fast path for text_delta events: runs of deltas with
// tags split across them, escapes, a delta after its block stopped (sent
// together with the stop, so one write carries both), a tool_use block's
// deltas under the same index, and a stream that ends without message_stop.
var shapeSeeds = []string{
	shapeStart + f(shapeText, 0) + f(shapeDelta, 0, "Hello <thin") + f(shapeDelta, 0, "king>a \\\"quoted\\\" \\\\u003c thought") +
		f(shapeDelta, 0, "</thinking> caf\\u00e9 \\u003cb\\u003e") + f(shapeDelta, 0, "done") + f(shapeStop, 0) + shapeEnd,
	shapeStart + f(shapeText, 0) + f(shapeDelta, 0, "a") +
		strings.Replace(f(shapeDelta, 0, "b"), "\n\n", "\r\r", 1) + strings.Replace(f(shapeStop, 0), "\n\n", "\r\r", 1) + "\n\n" +
		f(shapeDelta, 0, "after stop") +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{}}}\n\n" +
		f(shapeDelta, 1, "not text") + f(shapeStop, 1) + f(shapeText, 2) + f(shapeDelta, 2, "<thinking>x") + f(shapeDelta, 2, "y") + shapeEnd,
	shapeStart + f(shapeText, 0) + f(shapeDelta, 0, "a") + f(shapeDelta, 0, "b\x01") + f(shapeDelta, 0, "c\\") + f(shapeDelta, 0, "d"),
}

// FuzzShape: the fast path for text_delta events (WriteShaped) emits exactly
// what the general path emits, for any upstream bytes split anywhere.
func FuzzShape(f *testing.F) {
	fuzzcheck.AddSplits(f, shapeSeeds...)
	f.Fuzz(sameAsGeneralPath)
}

// TestShapeEverySplit runs the seeds through both paths at every chunk size.
func TestShapeEverySplit(t *testing.T) {
	fuzzcheck.EverySplit(t, append(shapeSeeds, string(benchStream(4<<10))), 400, sameAsGeneralPath)
}

func sameAsGeneralPath(t *testing.T, upstream, splits []byte) {
	t.Helper()
	settings := &providers.Settings{SplitTags: true, Signer: emit.NewSigner([]byte("k"))}
	run := func(shaped bool) fuzzcheck.Run {
		x := providers.NewExchange(settings, &wire.Request{Model: "m"}, nil, providers.ExchangeOptions{})
		em := emit.NewEmitter(emit.FormThinking, settings.Signer)
		s := NewSplitStream(x, em)
		write := s.Write
		if !shaped {
			write = func(p []byte) error {
				err := s.dec.Write(p, s.onEvent)
				s.parseText()
				return err
			}
		}
		return fuzzcheck.Run{Write: write, Close: s.Close, Em: em}
	}
	fuzzcheck.SameOutput(t, upstream, splits, run(true), run(false))
}
