package responses

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers"
)

const testSigningKey = "test-signing-key"

var testSigner = providers.NewSigner([]byte(testSigningKey))

func testSettings() *providers.Settings {
	return &providers.Settings{DefaultThinking: true, Signer: testSigner}
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

// runStream drives a Stream the way the response writer does: upstream
// bytes in writes of chunk bytes, the emitter's output taken after each; a
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

// summary renders events one per line and accumulates them with the
// official SDK, which must accept every event.
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
	lines, err := ssetest.Summary(events, ssetest.StopSequence|ssetest.Usage)
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

// q is s as the summary writes a text.
func q(s string) string { return ssetest.Quote(s) }

// respSig is the gateway's signature of a thinking block from a reasoning item.
func respSig(id, encrypted, thinking string) string {
	return testSigner.Sign(providers.OriginResponses, id+"\n"+encrypted, thinking)
}

func usageJSON(in, out, cacheRead int) string {
	return fmt.Sprintf(`{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":%d,"output_tokens":%d}`, in, cacheRead, out)
}

func thinkingBlock(i int, text, signature string) []string {
	return []string{
		fmt.Sprintf(`content_block_start %d {"type":"thinking","thinking":""}`, i),
		fmt.Sprintf("thinking_delta %d %s", i, q(text)),
		fmt.Sprintf("signature_delta %d %s", i, q(signature)),
		fmt.Sprintf("content_block_stop %d", i),
	}
}

func redactedBlock(i int, data string) []string {
	return []string{
		fmt.Sprintf(`content_block_start %d {"type":"redacted_thinking","data":%s}`, i, q(data)),
		fmt.Sprintf("content_block_stop %d", i),
	}
}

func textBlock(i int, text string) []string {
	return []string{
		fmt.Sprintf(`content_block_start %d {"type":"text","text":""}`, i),
		fmt.Sprintf("text_delta %d %s", i, q(text)),
		fmt.Sprintf("content_block_stop %d", i),
	}
}

func toolBlock(i int, id, name, input string) []string {
	return []string{
		fmt.Sprintf(`content_block_start %d {"type":"tool_use","id":%s,"name":%s,"input":{}}`, i, q(id), q(name)),
		fmt.Sprintf("input_json_delta %d %s", i, q(input)),
		fmt.Sprintf("content_block_stop %d", i),
	}
}

func seq(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func line(s ...string) []string { return s }

// writeSizes are the upstream write sizes every stream is tested with.
var writeSizes = []int{1, 2, 3, 7, 64, 1 << 20}

func jsonValid(b []byte) bool { return json.Valid(b) }
