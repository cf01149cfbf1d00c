package openai

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/ssetest"
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
	x := providers.NewExchange(s, req, []byte(body), providers.ExchangeOptions{})
	x.MessageID = "msg_test"
	return x
}

const streamRequest = `{"model":"claude-test","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`

// runStream drives a Stream the way the response writer does: upstream bytes
// in writes of chunk bytes, the emitter's output collected after each; a
// failed Write or Close becomes an error event.
func runStream(t testing.TB, tr *Translator, upstream []byte, chunk int) (out []byte, err error) {
	t.Helper()
	x := tr.x
	em := providers.NewEmitter(x.Settings.Form, x.Settings.Signer)
	s := tr.NewStream(em)
	take := func() {
		out = append(out, em.Events()...)
		em.Flush()
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

// summary renders events one per line (ssetest.Summary, with message_start's
// message and message_delta's stop_sequence and usage), and accumulates them
// with the official SDK, which must accept every event.
func summary(t testing.TB, out []byte) ([]string, anthropic.Message) {
	t.Helper()
	events, err := ssetest.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	var msg anthropic.Message
	for _, ev := range events {
		if ev.Name == "error" {
			continue
		}
		var u anthropic.MessageStreamEventUnion
		if err := json.Unmarshal([]byte(ev.Data), &u); err != nil {
			t.Fatalf("SDK cannot decode %s: %v", ev.Name, err)
		}
		if err := msg.Accumulate(u); err != nil {
			t.Fatalf("SDK Accumulate(%s): %v", ev.Name, err)
		}
	}
	lines, err := ssetest.Summary(events, ssetest.MessageJSON|ssetest.StopSequence|ssetest.Usage)
	if err != nil {
		t.Fatal(err)
	}
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
