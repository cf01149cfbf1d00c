package emit

import (
	"testing"

	"github.com/thinkgate/thinkgate/providers/sse"
)

func TestAppendSSE(t *testing.T) {
	got := appendSSE([]byte("prefix|"), "content_block_delta", []byte(`{"type":"content_block_delta"}`))
	want := "prefix|event: content_block_delta\ndata: {\"type\":\"content_block_delta\"}\n\n"
	if string(got) != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	var d sse.Decoder
	var events []string
	err := d.Write(got[len("prefix|"):], func(event, data []byte) error {
		events = append(events, string(event)+" "+string(data))
		return nil
	})
	if err != nil || len(events) != 1 || events[0] != `content_block_delta {"type":"content_block_delta"}` {
		t.Fatalf("round trip: %q %v", events, err)
	}
}
