package amazonq

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/thinkgate/thinkgate/internal/eventstreamtest"
	"github.com/thinkgate/thinkgate/internal/providertest"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
)

// fixedNow is the clock of every converted request in the unit tests.
var fixedNow = time.Date(2025, 11, 7, 21, 16, 1, 724e6, time.FixedZone("", 8*3600))

const fixedNowText = "Friday, 2025-11-07T21:16:01.724+08:00"

func testSettings() *providers.Settings {
	return &providers.Settings{
		SplitTags:       true,
		DefaultThinking: true,
		Signer:          emit.NewSigner([]byte("test-signing-key")),
	}
}

func testProvider(cfg Config) *Provider {
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return fixedNow }
	}
	return New(cfg)
}

// exchange parses an Anthropic request body into an Exchange.
func exchange(t testing.TB, s *providers.Settings, body string) *providers.Exchange {
	t.Helper()
	return providertest.Exchange(t, s, body)
}

// Frames as Amazon Q sends them, encoded with the same library's Encoder.

func encodeFrame(t testing.TB, headers eventstream.Headers, payload string) []byte {
	return eventstreamtest.Encode(headers, []byte(payload))
}

func eventFrame(t testing.TB, eventType, payload string) []byte {
	return eventstreamtest.AmazonQEvent(eventType, []byte(payload))
}

func exceptionFrame(t testing.TB, name, payload string) []byte {
	return eventstreamtest.AmazonQException(name, []byte(payload))
}

func errorFrame(t testing.TB, code, msg string) []byte {
	return encodeFrame(t, eventstream.Headers{
		{Name: ":message-type", Value: eventstream.StringValue("error")},
		{Name: ":error-code", Value: eventstream.StringValue(code)},
		{Name: ":error-message", Value: eventstream.StringValue(msg)},
	}, "")
}

// encodeFrameHeaders encodes a frame with only a :message-type header.
func encodeFrameHeaders(t testing.TB, messageType, payload string) []byte {
	return encodeFrame(t, eventstream.Headers{{Name: ":message-type", Value: eventstream.StringValue(messageType)}}, payload)
}

func textFrame(t testing.TB, s string) []byte {
	b, _ := json.Marshal(map[string]string{"content": s})
	return eventFrame(t, "assistantResponseEvent", string(b))
}

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// summary reduces an SSE body to one line per event (ssetest.Summary),
// with message_delta's usage and signatures masked.
func summary(t testing.TB, sse []byte) []string {
	t.Helper()
	return providertest.Lines(t, sse, ssetest.Usage|ssetest.MaskSignatures)
}
