package amazonq

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

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
	req, err := providers.ParseRequest([]byte(body))
	if err != nil {
		t.Fatalf("ParseRequest: %v", err)
	}
	x := providers.NewExchange(s, req, []byte(body), nil)
	x.MessageID = "msg_test"
	return x
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

// summary reduces an SSE body to one line per event, consecutive deltas of
// one block and type coalesced (like testgw.Summary, without Caddy).
func summary(t testing.TB, sse []byte) []string {
	t.Helper()
	var out []string
	var lastKey string
	var acc strings.Builder
	flush := func() {
		if lastKey != "" {
			out = append(out, lastKey+" "+quote(acc.String()))
			lastKey = ""
			acc.Reset()
		}
	}
	var dec providers.SSEDecoder
	err := dec.Write(sse, func(event, data []byte) error {
		var d struct {
			Type         string          `json:"type"`
			Index        int             `json:"index"`
			ContentBlock json.RawMessage `json:"content_block"`
			Delta        struct {
				Type        string  `json:"type"`
				Text        string  `json:"text"`
				Thinking    string  `json:"thinking"`
				Signature   string  `json:"signature"`
				PartialJSON string  `json:"partial_json"`
				StopReason  *string `json:"stop_reason"`
			} `json:"delta"`
			Usage json.RawMessage `json:"usage"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatalf("event %s: %v: %s", event, err, data)
		}
		if d.Type != string(event) {
			t.Fatalf("event %s carries type %q", event, d.Type)
		}
		if string(event) == "content_block_delta" {
			var text string
			switch d.Delta.Type {
			case "text_delta":
				text = d.Delta.Text
			case "thinking_delta":
				text = d.Delta.Thinking
			case "signature_delta":
				text = "SIG"
			case "input_json_delta":
				text = d.Delta.PartialJSON
			}
			key := d.Delta.Type + " " + itoa(d.Index)
			if key != lastKey {
				flush()
				lastKey = key
			}
			acc.WriteString(text)
			return nil
		}
		flush()
		switch string(event) {
		case "content_block_start":
			out = append(out, "content_block_start "+itoa(d.Index)+" "+string(d.ContentBlock))
		case "content_block_stop":
			out = append(out, "content_block_stop "+itoa(d.Index))
		case "message_delta":
			sr := "null"
			if d.Delta.StopReason != nil {
				sr = *d.Delta.StopReason
			}
			out = append(out, "message_delta "+sr+" "+string(d.Usage))
		case "error":
			out = append(out, "error "+string(d.Error))
		default:
			out = append(out, string(event))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	flush()
	return out
}

// quote is a JSON string without HTML escaping, as the test texts are written.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func diff(t testing.TB, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s differs.\n--- got\n%s\n--- want\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
