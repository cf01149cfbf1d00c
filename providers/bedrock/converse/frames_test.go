package converse

import (
	"bytes"
	"encoding/json"

	"github.com/thinkgate/thinkgate/internal/eventstreamtest"
)

// frames builds a ConverseStream answer frame by frame with the SDK's
// encoder, as Bedrock sends it (each payload padded with "p").
type frames struct{ b bytes.Buffer }

func (f *frames) frame(headers map[string]string, payload []byte) *frames {
	f.b.Write(eventstreamtest.Frame(headers, payload))
	return f
}

// event adds an event whose payload is fields with Bedrock's padding.
func (f *frames) event(typ string, fields map[string]any) *frames {
	fields["p"] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
	payload, err := json.Marshal(fields)
	if err != nil {
		panic(err)
	}
	f.b.Write(eventstreamtest.Event(typ, payload))
	return f
}

func (f *frames) exception(typ, message string) *frames {
	f.b.Write(eventstreamtest.Exception(typ, message))
	return f
}

func (f *frames) start() *frames {
	return f.event("messageStart", map[string]any{"role": "assistant"})
}

func (f *frames) text(i int, parts ...string) *frames {
	for _, p := range parts {
		f.event("contentBlockDelta", map[string]any{"contentBlockIndex": i, "delta": map[string]any{"text": p}})
	}
	return f.event("contentBlockStop", map[string]any{"contentBlockIndex": i})
}

func (f *frames) reasoning(i int, signature string, parts ...string) *frames {
	for _, p := range parts {
		f.event("contentBlockDelta", map[string]any{"contentBlockIndex": i, "delta": map[string]any{"reasoningContent": map[string]any{"text": p}}})
	}
	if signature != "" {
		f.event("contentBlockDelta", map[string]any{"contentBlockIndex": i, "delta": map[string]any{"reasoningContent": map[string]any{"signature": signature}}})
	}
	return f.event("contentBlockStop", map[string]any{"contentBlockIndex": i})
}

func (f *frames) redacted(i int, data string) *frames {
	f.event("contentBlockDelta", map[string]any{"contentBlockIndex": i, "delta": map[string]any{"reasoningContent": map[string]any{"redactedContent": data}}})
	return f.event("contentBlockStop", map[string]any{"contentBlockIndex": i})
}

func (f *frames) tool(i int, id, name string, input ...string) *frames {
	f.event("contentBlockStart", map[string]any{"contentBlockIndex": i, "start": map[string]any{"toolUse": map[string]any{"toolUseId": id, "name": name}}})
	for _, p := range input {
		f.event("contentBlockDelta", map[string]any{"contentBlockIndex": i, "delta": map[string]any{"toolUse": map[string]any{"input": p}}})
	}
	return f.event("contentBlockStop", map[string]any{"contentBlockIndex": i})
}

func (f *frames) stop(reason string) *frames {
	return f.event("messageStop", map[string]any{"stopReason": reason})
}

func (f *frames) metadata(in, out, cacheRead, cacheWrite int) *frames {
	return f.event("metadata", map[string]any{
		"usage": map[string]any{"inputTokens": in, "outputTokens": out, "totalTokens": in + out + cacheRead + cacheWrite,
			"cacheReadInputTokens": cacheRead, "cacheWriteInputTokens": cacheWrite},
		"metrics": map[string]any{"latencyMs": 812},
	})
}

func (f *frames) bytes() []byte { return f.b.Bytes() }

// corrupt returns frame with byte i flipped.
func corrupt(frame []byte, i int) []byte {
	out := append([]byte(nil), frame...)
	out[i] ^= 0x55
	return out
}
