package openai

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// reasoningStreams seed the fuzz targets below with the reasoning shapes of
// Mistral's content chunks and OpenRouter's reasoning_details.
var reasoningStreams = []string{mistralStream}

// FuzzTranslateReasoning: the stream translator never panics and writes
// only well-formed events for any upstream bytes split anywhere, seeded
// with content chunks and reasoning details.
func FuzzTranslateReasoning(f *testing.F) {
	for _, s := range reasoningStreams {
		f.Add([]byte(s), []byte{3, 1, 7})
	}
	p := New(Config{APIKey: "k"})
	f.Fuzz(func(t *testing.T, upstream, splits []byte) { fuzzcheck.Stream(t, p, upstream, splits) })
}

// FuzzConvertMessage: a non-streaming body becomes either a Message the
// SDK shape accepts (valid JSON, blocks with a type) or an Anthropic 5xx
// error; never a panic.
func FuzzConvertMessage(f *testing.F) {
	for _, s := range reasoningMessages {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		x := exchange(t, nil, nonStreamRequest)
		out, err := NewTranslator(x, nil, 0).Message(body)
		if err != nil {
			var e *wire.Error
			if !errors.As(err, &e) || e.Status < 400 {
				t.Fatalf("error is not an Anthropic error: %#v", err)
			}
			return
		}
		var m struct {
			Type    string
			Content []struct{ Type string }
		}
		if err := json.Unmarshal(out, &m); err != nil || m.Type != "message" {
			t.Fatalf("not a message: %s", out)
		}
		for _, b := range m.Content {
			if b.Type == "" {
				t.Fatalf("block without a type: %s", out)
			}
		}
	})
}

var reasoningMessages = []string{
	`{"choices":[{"message":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"a"}]},{"type":"text","text":"b"}]},"finish_reason":"stop"}]}`,
}

// FuzzRewriteReasoning: with every reasoning option on, the request
// converter never panics, rejects input only with an Anthropic 4xx error,
// and otherwise builds a well-formed upstream request. Seeds carry blocks
// signed as OpenRouter details under fuzzcheck's key.
func FuzzRewriteReasoning(f *testing.F) {
	for _, s := range fuzzcheck.Seeds {
		f.Add([]byte(s), uint8(0))
	}
	k := emit.NewSigner([]byte("k"))
	hist, _ := json.Marshal([]map[string]string{
		{"type": "thinking", "thinking": "t", "signature": k.Sign(emit.OriginOpenRouter, `{"type":"reasoning.text","signature":"s","index":0}`, "t")},
		{"type": "redacted_thinking", "data": k.Sign(emit.OriginOpenRouter, `{"type":"reasoning.encrypted","data":"d"}`, "")},
		{"type": "thinking", "thinking": "u", "signature": k.Sign(emit.OriginOpenRouter, `{"type":"reasoning.text"`, "u")},
		{"type": "text", "text": "a"},
	})
	f.Add([]byte(`{"model":"m","max_tokens":9,"thinking":{"type":"enabled","budget_tokens":5000},"messages":[{"role":"user","content":"q"},{"role":"assistant","content":`+string(hist)+`}]}`), uint8(1))
	configs := []Config{
		{ReasoningHistory: HistoryOpenRouter, ThinkingMode: ModeOpenRouter},
		{ReasoningHistory: HistoryMistral, ThinkingMode: ModeBoth},
		{ReasoningHistory: HistoryOpenRouter, ThinkingMode: ModeEffort},
	}
	f.Fuzz(func(t *testing.T, body []byte, which uint8) {
		fuzzcheck.Rewrite(t, New(configs[int(which)%len(configs)]), body)
	})
}
