// Package ssetest helps tests read and compare Anthropic event streams,
// without Caddy. Parse and Summary turn a stream into one readable line per
// event, for tests that state the sequence they expect. Coalesce is for
// byte-exact comparisons: the emitter merges the deltas of one block that
// reach it in one upstream read, so the same answer fed in different chunks
// yields the same events but different delta boundaries; Coalesce removes
// that difference and nothing else.
package ssetest

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
)

// Coalesce returns sse with every run of content_block_delta events of the
// same index and delta type (text, thinking, input JSON) merged into one
// event, written as the emitter writes it. Other events are kept as they are.
func Coalesce(sse []byte) []byte {
	var out []byte
	var run struct {
		active bool
		index  int
		typ    string
		text   []byte
	}
	flush := func() {
		if !run.active {
			return
		}
		field := map[string]string{"text_delta": "text", "thinking_delta": "thinking", "input_json_delta": "partial_json"}[run.typ]
		out = append(out, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":"...)
		out = strconv.AppendInt(out, int64(run.index), 10)
		out = append(out, `,"delta":{"type":"`+run.typ+`","`+field+`":`...)
		out = jsonbytes.AppendString(out, run.text)
		out = append(out, "}}\n\n"...)
		run.active, run.text = false, nil
	}
	for _, frame := range bytes.SplitAfter(sse, []byte("\n\n")) {
		if len(frame) == 0 {
			continue
		}
		if bytes.HasPrefix(frame, []byte("event: content_block_delta\ndata: ")) {
			var ev eventData
			data := bytes.TrimSpace(frame[len("event: content_block_delta\ndata: "):])
			if json.Unmarshal(data, &ev) == nil {
				// Signatures are whole values, not pieces: they stay as they are.
				piece, ok := ev.Delta.text()
				if !ok || ev.Delta.Type == "signature_delta" {
					flush()
					out = append(out, frame...)
					continue
				}
				if !run.active || run.index != ev.Index || run.typ != ev.Delta.Type {
					flush()
					run.active, run.index, run.typ = true, ev.Index, ev.Delta.Type
				}
				run.text = append(run.text, piece...)
				continue
			}
		}
		flush()
		out = append(out, frame...)
	}
	flush()
	return out
}

// Chunks splits p into writes of n bytes, the last one shorter: how a test
// hands a stream to a decoder as an upstream that writes n bytes at a time.
func Chunks(p []byte, n int) [][]byte {
	var out [][]byte
	for len(p) > n {
		out = append(out, p[:n])
		p = p[n:]
	}
	return append(out, p)
}
