package converse

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/providers"
)

// TestStreamHostileFrames: each hostile upstream ends the stream with the
// error that names what was wrong: an HTTP error when nothing was sent, an
// error event after the content that came before it.
func TestStreamHostileFrames(t *testing.T) {
	text := new(frames).start().text(0, "Hi").bytes()
	one := new(frames).event("contentBlockDelta", map[string]any{"contentBlockIndex": 1, "delta": map[string]any{"text": "x"}}).bytes()
	badLength := append([]byte(nil), one...)
	binary.BigEndian.PutUint32(badLength, 1<<30)
	many := new(frames).start()
	for i := range MaxBlocks + 1 {
		many.event("contentBlockDelta", map[string]any{"contentBlockIndex": i, "delta": map[string]any{"text": "x"}})
	}
	held := new(frames).start().event("contentBlockStart", map[string]any{"contentBlockIndex": 0, "start": map[string]any{"toolUse": map[string]any{"toolUseId": "t1", "name": "f"}}}).
		event("contentBlockDelta", map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"toolUse": map[string]any{"input": `{"a":`}}})
	for range providers.MaxHeld/(1<<20) + 1 {
		held.event("contentBlockDelta", map[string]any{"contentBlockIndex": 1, "delta": map[string]any{"text": strings.Repeat("y", 1<<20)}})
	}
	giant := new(frames).start().event("contentBlockDelta", map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"text": strings.Repeat("z", 2<<20)}})
	for _, tc := range []struct {
		name     string
		upstream []byte
		maxEvent int
		want     string
		sent     bool // content went out before the error
	}{
		{name: "prelude CRC", upstream: append(text, corrupt(one, 9)...), want: "checksum mismatch", sent: true},
		{name: "message CRC", upstream: append(text, corrupt(one, len(one)-1)...), want: "frame checksum mismatch", sent: true},
		{name: "prelude CRC, frame not yet whole", upstream: append(text, corrupt(one, 9)[:20]...), want: "frame prelude checksum mismatch", sent: true},
		{name: "payload altered", upstream: append(text, corrupt(one, len(one)-6)...), want: "frame checksum mismatch", sent: true},
		{name: "length out of range", upstream: append(text, badLength...), want: "bad frame prelude", sent: true},
		{name: "frame past max_event_size", upstream: giant.bytes(), maxEvent: 1 << 20, want: "upstream event-stream event too large"},
		{name: "more blocks than MaxBlocks", upstream: many.bytes(), want: "more than 4096 content blocks", sent: true},
		{name: "other blocks held past MaxHeld while a tool call streams", upstream: held.bytes(), want: "more than 4 MiB of other blocks", sent: true},
		{name: "tool input for a block never started", upstream: new(frames).start().event("contentBlockDelta", map[string]any{"contentBlockIndex": 3, "delta": map[string]any{"toolUse": map[string]any{"input": "{}"}}}).bytes(),
			want: "tool input for a content block that is not a tool call"},
		{name: "a block that never ends, cut off", upstream: new(frames).start().event("contentBlockDelta", map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"reasoningContent": map[string]any{"text": "endless"}}}).bytes(),
			want: "without messageStop", sent: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testSettings()
			s.MaxEventSize = tc.maxEvent
			x := exchange(t, s, "", streamRequest)
			out, err, httpErr := runStream(t, x, tc.upstream, 1<<16)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if tc.sent != (httpErr == nil) {
				t.Fatalf("content sent %v, but HTTP error %v", tc.sent, httpErr)
			}
			if !tc.sent {
				return
			}
			lines, _ := summary(t, out)
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, "error ") || !strings.Contains(last, tc.want) {
				t.Fatalf("the stream does not end with the error event: %v", lines)
			}
		})
	}
}

// TestStreamEndlessReasoningStreams: a reasoning block that never stops
// costs no memory: each delta reaches the client with the write that
// carried it.
func TestStreamEndlessReasoningStreams(t *testing.T) {
	x := exchange(t, nil, "", streamRequest)
	tr := NewTranslator(x, &State{})
	var out []byte
	s := providertest.OpenStream(x, tr.Handle(200, map[string][]string{"Content-Type": {EventStreamType}}).NewStream,
		func(events []byte) { out = append(out, events...) }, 16<<10)
	if err := s.Write(new(frames).start().bytes()); err != nil {
		t.Fatal(err)
	}
	piece := strings.Repeat("think ", 700)
	frame := new(frames).event("contentBlockDelta", map[string]any{"contentBlockIndex": 0, "delta": map[string]any{"reasoningContent": map[string]any{"text": piece}}}).bytes()
	for i := range 2000 {
		out = out[:0]
		if err := s.Write(frame); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		if !strings.Contains(string(out), "thinking_delta") || !strings.Contains(string(out), "think think") {
			t.Fatalf("write %d: the delta did not reach the client with its write: %q", i, out)
		}
	}
}
