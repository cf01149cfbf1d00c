package openai

import (
	"testing"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
	"github.com/thinkgate/thinkgate/providers/emit"
)

// shapeSeeds are upstream streams that probe the shaped fast path: runs of
// content chunks, chunks whose head matches but whose tail does not (a
// finish_reason, usage), escapes that end or do not end the string, a
// control character, CRLF and colon-without-space framing, named events,
// and a content chunk after [DONE].
var shapeSeeds = []string{
	`data: {"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}

data: {"id":"c","choices":[{"index":0,"delta":{"content":"Hello <thin"},"finish_reason":null}]}

data: {"id":"c","choices":[{"index":0,"delta":{"content":"king>quiet \"thought\\\\\"</thinking>"},"finish_reason":null}]}

data: {"id":"c","choices":[{"index":0,"delta":{"content":" caf\u00e9 \\u003cb\\u003e"},"finish_reason":null}]}

data: {"id":"c","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}

data: {"id":"c","choices":[{"index":0,"delta":{"content":"y"},"finish_reason":null}],"usage":{"prompt_tokens":3,"completion_tokens":4}}

data: [DONE]

data: {"id":"c","choices":[{"index":0,"delta":{"content":"after done"},"finish_reason":null}]}

`,
	"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\r\n\r\ndata: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\ndata:{\"choices\":[{\"delta\":{\"content\":\"c\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"d\"}}]}\n\nevent: error\ndata: {\"choices\":[{\"delta\":{\"content\":\"e\"}}]}\n\n",
	"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"b\x01\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"c\\\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"d\"}}]}\n: comment\nid: 7\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"e\"}},{\"delta\":{\"content\":\"f\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"g\"}}]}\n\n",
	`data: {"choices":[{"delta":{"content":"a"}}]}

data: {"choices":[{"delta":{"content":"b","tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":"{"}}]}}]}

data: {"choices":[{"delta":{"content":"c"}}]}

data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"}"}}]}}]}

data: {"choices":[{"delta":{"content":"d"}}]}

data: {"choices":[{"delta":{"content":"e"}}]}
data: {"choices":[{"delta":{"content":"f"}}]}

data: [DONE]

`,
}

// FuzzShape: the fast path for content chunks (WriteShaped) emits exactly
// what the general path emits, for any upstream bytes split anywhere.
func FuzzShape(f *testing.F) {
	fuzzcheck.AddSplits(f, shapeSeeds...)
	f.Fuzz(sameAsGeneralPath)
}

// TestShapeEverySplit runs the seeds through both paths at every chunk size.
func TestShapeEverySplit(t *testing.T) {
	fuzzcheck.EverySplit(t, append(shapeSeeds, string(longStream())), 300, sameAsGeneralPath)
}

func sameAsGeneralPath(t *testing.T, upstream, splits []byte) {
	t.Helper()
	run := func(shaped bool) fuzzcheck.Run {
		x := exchange(t, nil, streamRequest)
		em := emit.NewEmitter(x.Settings.Form, x.Settings.Signer)
		s := NewTranslator(x, &State{}, 0).NewStream(em).(*StreamTranslator)
		write := s.Write
		if !shaped {
			write = func(p []byte) error {
				if s.t.done {
					return nil
				}
				err := s.dec.Write(p, s.onEvent)
				s.flushContent()
				return err
			}
		}
		return fuzzcheck.Run{Write: write, Close: s.Close, Em: em}
	}
	fuzzcheck.SameOutput(t, upstream, splits, run(true), run(false))
}
