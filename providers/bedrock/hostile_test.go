package bedrock

import (
	"encoding/binary"
	"strings"
	"testing"
)

// TestStreamHostileFrames: InvokeModel's event stream, fed hostile frames,
// ends with the error that names what was wrong: an HTTP error when
// nothing was sent, else an error event after what came before.
func TestStreamHostileFrames(t *testing.T) {
	start := claudeStream(t, claudeEvents[:3]...) // a thinking block under way
	delta := chunk(t, claudeEvents[2])
	flip := func(i int) []byte {
		out := append([]byte(nil), delta...)
		out[i] ^= 0x55
		return out
	}
	badLength := append([]byte(nil), delta...)
	binary.BigEndian.PutUint32(badLength, 1<<30)
	giant := chunk(t, `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"`+strings.Repeat("z", 2<<20)+`"}}`)
	for _, tc := range []struct {
		name     string
		body     []byte
		maxEvent int
		want     string
		sent     bool
	}{
		{name: "prelude CRC", body: append(start, flip(9)...), want: "checksum mismatch", sent: true},
		{name: "prelude CRC, frame not yet whole", body: append(start, flip(9)[:16]...), want: "frame prelude checksum mismatch", sent: true},
		{name: "message CRC", body: append(start, flip(len(delta)-1)...), want: "frame checksum mismatch", sent: true},
		{name: "payload altered", body: append(start, flip(len(delta)-8)...), want: "frame checksum mismatch", sent: true},
		{name: "length out of range", body: append(start, badLength...), want: "bad frame prelude", sent: true},
		{name: "frame past max_event_size", body: append(claudeStream(t, claudeEvents[0]), giant...), maxEvent: 1 << 20, want: "upstream event-stream event too large", sent: true},
		{name: "a block that never ends, cut off", body: start, want: "upstream stream ended before message_stop", sent: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testSettings(false)
			s.MaxEventSize = tc.maxEvent
			out, e := translate(t, exchange(t, s, streamRequest, "/v1/messages"), tc.body)
			if tc.sent {
				if e != nil {
					t.Fatalf("an HTTP error after content: %v", e)
				}
				i := strings.LastIndex(string(out), "event: error\ndata: ")
				if i < 0 || !strings.Contains(string(out[i:]), tc.want) || !strings.HasSuffix(string(out), "\n\n") {
					t.Fatalf("the stream does not end with the error event %q:\n%s", tc.want, out)
				}
				return
			}
			if e == nil || !strings.Contains(e.Message, tc.want) {
				t.Fatalf("error %v, want %q", e, tc.want)
			}
		})
	}
}
