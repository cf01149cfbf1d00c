package caddymodule

import (
	"bytes"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/providers"
)

// A translated stream cut before the upstream reported its usage (Chat
// Completions sends it in a last chunk, after the content) would count no
// tokens against a named client's limits. It counts what was sent instead:
// the output from the content deltas the client got, the input from the
// request, both as the request matcher estimates tokens (bytesPerToken,
// erring high). docs/teams.md says so.

var (
	contentDeltaType = []byte(`"content_block_delta"`)
	deltaTextFields  = [][]string{{"delta", "text"}, {"delta", "thinking"}, {"delta", "partial_json"}}
)

// cutUsage counts a named client's usage of a translated stream cut
// before the upstream reported it.
type cutUsage struct {
	x *providers.Exchange
	// sentBytes is the content the stream sent.
	sentBytes int64
}

// observeSent adds the content of the delta events in events (whole SSE
// events) to the bytes a stream has sent.
func (s *cutUsage) observeSent(events []byte) {
	for len(events) > 0 {
		line := events
		if i := bytes.IndexByte(events, '\n'); i >= 0 {
			line, events = events[:i], events[i+1:]
		} else {
			events = nil
		}
		data, ok := bytes.CutPrefix(line, dataPrefix)
		if !ok || !bytes.Contains(data, contentDeltaType) {
			continue
		}
		jsonparser.EachKey(data, func(_ int, v []byte, _ jsonparser.ValueType, err error) {
			if err == nil {
				s.sentBytes += int64(len(v)) // escaped: errs high, as the estimate should
			}
		}, deltaTextFields...)
	}
}

// estimateCut fills the usage of a stream cut before the upstream reported
// it: the tokens the upstream did not report are estimated from what was
// sent.
func (s *cutUsage) estimateCut() {
	u := &s.x.Usage
	if u.OutputTokens == 0 && s.sentBytes > 0 {
		u.OutputTokens = (s.sentBytes + bytesPerToken - 1) / bytesPerToken
	}
	if u.InputTokens == 0 && u.CacheReadInputTokens == 0 && u.CacheCreationInputTokens == 0 {
		u.InputTokens = gatherStats(s.x.Request, s.x.Body).inputTokens
	}
}
