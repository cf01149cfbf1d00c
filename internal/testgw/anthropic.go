package testgw

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
)

// AnthropicTextStream is an Anthropic-format upstream's stream of one text
// block, its text_delta pieces runeChunk runes each, with usage 21 in, 87 out
// and the id msg_up1.
func AnthropicTextStream(text string, runeChunk int) []byte {
	ev := []Event{
		{Name: "message_start", Data: `{"type":"message_start","message":{"id":"msg_up1","type":"message","role":"assistant","model":"up-model","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":21,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`},
		{Name: "content_block_start", Data: `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
		{Name: "ping", Data: `{"type": "ping"}`},
	}
	runes := []rune(text)
	for i := 0; i < len(runes); i += runeChunk {
		piece, _ := json.Marshal(string(runes[i:min(i+runeChunk, len(runes))]))
		ev = append(ev, Event{Name: "content_block_delta", Data: fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%s}}`, piece)})
	}
	ev = append(ev,
		Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":0}`},
		Event{Name: "message_delta", Data: `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":87}}`},
		Event{Name: "message_stop", Data: `{"type":"message_stop"}`},
	)
	return SSE(ev...)
}

// StreamingUpstream answers every request with body as an SSE stream,
// written in pieces of byteChunk bytes.
func StreamingUpstream(t testing.TB, body []byte, byteChunk int) *Upstream {
	return NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		WriteChunks(w, "text/event-stream; charset=utf-8", body, byteChunk)
	})
}
