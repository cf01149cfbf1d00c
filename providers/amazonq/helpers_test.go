package amazonq

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/thinkgate/thinkgate/internal/providertest"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers"
)

// fixedNow is the clock of every converted request in the unit tests.
var fixedNow = time.Date(2025, 11, 7, 21, 16, 1, 724e6, time.FixedZone("", 8*3600))

const fixedNowText = "Friday, 2025-11-07T21:16:01.724+08:00"

func testSettings() *providers.Settings {
	return &providers.Settings{
		SplitTags:       true,
		DefaultThinking: true,
		Signer:          providers.NewSigner([]byte("test-signing-key")),
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
	t.Helper()
	var b bytes.Buffer
	if err := eventstream.NewEncoder().Encode(&b, eventstream.Message{Headers: headers, Payload: []byte(payload)}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func eventFrame(t testing.TB, eventType, payload string) []byte {
	return encodeFrame(t, eventstream.Headers{
		{Name: ":message-type", Value: eventstream.StringValue("event")},
		{Name: ":event-type", Value: eventstream.StringValue(eventType)},
		{Name: ":content-type", Value: eventstream.StringValue("application/json")},
	}, payload)
}

func exceptionFrame(t testing.TB, name, payload string) []byte {
	return encodeFrame(t, eventstream.Headers{
		{Name: ":message-type", Value: eventstream.StringValue("exception")},
		{Name: ":exception-type", Value: eventstream.StringValue(name)},
		{Name: ":content-type", Value: eventstream.StringValue("application/json")},
	}, payload)
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
	events, err := ssetest.Parse(sse)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := ssetest.Summary(events, ssetest.Usage|ssetest.MaskSignatures)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func diff(t testing.TB, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s differs.\n--- got\n%s\n--- want\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
