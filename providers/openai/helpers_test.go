package openai

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/providers"
)

const testSigningKey = "test-signing-key"

func testSettings() *providers.Settings {
	return &providers.Settings{
		SplitTags:       true,
		DefaultThinking: true,
		Signer:          providers.NewSigner([]byte(testSigningKey)),
	}
}

// exchange parses body as the handler does and prepares an exchange.
func exchange(t testing.TB, s *providers.Settings, body string) *providers.Exchange {
	t.Helper()
	if s == nil {
		s = testSettings()
	}
	req, err := providers.ParseRequest([]byte(body))
	if err != nil {
		t.Fatalf("ParseRequest: %v", err)
	}
	x := providers.NewExchange(s, req, []byte(body), nil)
	x.MessageID = "msg_test"
	return x
}

const streamRequest = `{"model":"claude-test","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`

// runStream drives a Stream the way the response writer does: upstream bytes
// in writes of chunk bytes, the emitter's output collected after each; a
// failed Write or Close becomes an error event.
func runStream(t testing.TB, x *providers.Exchange, upstream []byte, chunk int) (out []byte, err error) {
	t.Helper()
	em := providers.NewEmitter(x.Settings.Form, x.Settings.Signer)
	s := NewStream(x, em)
	take := func() {
		out = append(out, em.Buf...)
		em.Buf = em.Buf[:0]
	}
	take()
	for p := upstream; len(p) > 0 && err == nil; {
		n := min(chunk, len(p))
		err = s.Write(p[:n])
		p = p[n:]
		if err == nil {
			take()
		}
	}
	if err == nil {
		err = s.Close()
	}
	if err != nil {
		e := providers.AsError(err)
		em.Fail(e.Type, e.Message)
	}
	take()
	return out, err
}

type event struct{ name, data string }

func parseSSE(t testing.TB, b []byte) []event {
	t.Helper()
	var evs []event
	for _, frame := range strings.Split(strings.TrimSuffix(string(b), "\n\n"), "\n\n") {
		if frame == "" {
			continue
		}
		lines := strings.Split(frame, "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "event: ") || !strings.HasPrefix(lines[1], "data: ") {
			t.Fatalf("bad SSE frame %q", frame)
		}
		evs = append(evs, event{lines[0][7:], lines[1][6:]})
	}
	return evs
}

// summary renders events one per line, consecutive deltas of one block and
// type merged, and accumulates them with the official SDK, which must accept
// every event.
func summary(t testing.TB, out []byte) ([]string, anthropic.Message) {
	t.Helper()
	var lines []string
	var msg anthropic.Message
	lastKey, acc := "", ""
	flush := func() {
		if lastKey != "" {
			q, _ := json.Marshal(acc)
			lines = append(lines, lastKey+" "+string(q))
			lastKey, acc = "", ""
		}
	}
	for _, ev := range parseSSE(t, out) {
		var d struct {
			Type         string          `json:"type"`
			Index        int             `json:"index"`
			ContentBlock json.RawMessage `json:"content_block"`
			Message      json.RawMessage `json:"message"`
			Delta        struct {
				Type, Text, Thinking, Signature string
				PartialJSON                     string  `json:"partial_json"`
				StopReason                      *string `json:"stop_reason"`
				StopSequence                    *string `json:"stop_sequence"`
			} `json:"delta"`
			Usage json.RawMessage `json:"usage"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(ev.data), &d); err != nil {
			t.Fatalf("event %s: %v: %s", ev.name, err, ev.data)
		}
		if d.Type != ev.name {
			t.Fatalf("event %s has type %q", ev.name, d.Type)
		}
		if ev.name != "error" {
			var u anthropic.MessageStreamEventUnion
			if err := json.Unmarshal([]byte(ev.data), &u); err != nil {
				t.Fatalf("SDK cannot decode %s: %v", ev.name, err)
			}
			if err := msg.Accumulate(u); err != nil {
				t.Fatalf("SDK Accumulate(%s): %v", ev.name, err)
			}
		}
		if ev.name == "content_block_delta" {
			var text string
			switch d.Delta.Type {
			case "text_delta":
				text = d.Delta.Text
			case "thinking_delta":
				text = d.Delta.Thinking
			case "signature_delta":
				text = d.Delta.Signature
			case "input_json_delta":
				text = d.Delta.PartialJSON
			}
			key := fmt.Sprintf("%s %d", d.Delta.Type, d.Index)
			if key != lastKey {
				flush()
				lastKey = key
			}
			acc += text
			continue
		}
		flush()
		switch ev.name {
		case "message_start":
			lines = append(lines, "message_start "+string(d.Message))
		case "content_block_start":
			lines = append(lines, fmt.Sprintf("content_block_start %d %s", d.Index, d.ContentBlock))
		case "content_block_stop":
			lines = append(lines, fmt.Sprintf("content_block_stop %d", d.Index))
		case "message_delta":
			sr, ss := "null", "null"
			if d.Delta.StopReason != nil {
				sr = *d.Delta.StopReason
			}
			if d.Delta.StopSequence != nil {
				ss = *d.Delta.StopSequence
			}
			lines = append(lines, fmt.Sprintf("message_delta %s %s %s", sr, ss, d.Usage))
		case "error":
			lines = append(lines, "error "+string(d.Error))
		default:
			lines = append(lines, ev.name)
		}
	}
	flush()
	return lines, msg
}

func diff(t testing.TB, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s differs.\n--- got\n%s\n--- want\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func readFile(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
