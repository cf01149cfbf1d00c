package converse

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers"
)

var testSigner = providers.NewSigner([]byte("test-signing-key"))

func testSettings() *providers.Settings {
	return &providers.Settings{DefaultThinking: true, Signer: testSigner}
}

// exchange parses body as the handler does and prepares an exchange.
func exchange(t testing.TB, s *providers.Settings, path, body string) *providers.Exchange {
	t.Helper()
	if s == nil {
		s = testSettings()
	}
	if path == "" {
		path = "/v1/messages"
	}
	req, err := providers.ParseRequest([]byte(body))
	if err != nil {
		t.Fatalf("ParseRequest: %v", err)
	}
	x := providers.NewExchange(s, req, []byte(body), providers.ExchangeOptions{Path: path})
	x.MessageID = "msg_test"
	return x
}

// bedrockSig is the gateway's signature of a thinking block from Bedrock.
func bedrockSig(signature, thinking string) string {
	return testSigner.Sign(providers.OriginBedrock, signature, thinking)
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

func q(s string) string { return ssetest.Quote(s) }

func usageJSON(in, out, cacheWrite, cacheRead int) string {
	return fmt.Sprintf(`{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d}`, in, cacheWrite, cacheRead, out)
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

func textBlockLines(i int, text string) []string {
	return []string{
		fmt.Sprintf(`content_block_start %d {"type":"text","text":""}`, i),
		fmt.Sprintf("text_delta %d %s", i, q(text)),
		fmt.Sprintf("content_block_stop %d", i),
	}
}

func toolBlockLines(i int, id, name, input string) []string {
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
