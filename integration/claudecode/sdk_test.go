package claudecode_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// sdkScript streams one message with the TypeScript SDK's
// messages.stream(), collecting its thinking and text events, and prints
// the accumulated finalMessage() with them as one JSON line.
const sdkScript = `
const path = require('path');
const { default: Anthropic } = require(path.join(process.env.SDK_DIR, 'node_modules', '@anthropic-ai', 'sdk'));
const client = new Anthropic({ baseURL: process.env.GATEWAY, apiKey: 'client-key', maxRetries: 0 });
(async () => {
	const stream = client.messages.stream({
		model: 'claude-sonnet-4-5',
		max_tokens: 4096,
		thinking: { type: 'enabled', budget_tokens: 2048 },
		messages: [{ role: 'user', content: 'Say what the note says. ' + process.env.MARK }],
	});
	const events = [], thinking = [], text = [];
	stream.on('streamEvent', (e) => events.push(e.type));
	stream.on('thinking', (d) => thinking.push(d));
	stream.on('text', (d) => text.push(d));
	const message = await stream.finalMessage();
	console.log(JSON.stringify({ message, events, thinking: thinking.join(''), text: text.join('') }));
})().catch((e) => { console.error(e); process.exit(1); });
`

// TestTypeScriptSDK streams through the gateway with the pinned
// @anthropic-ai/sdk, for each provider: its stream events and the message
// finalMessage() accumulates hold the thinking, with a signature, and the
// answer.
func TestTypeScriptSDK(t *testing.T) {
	needNode(t)
	sdk := install(t, "@anthropic-ai/sdk", sdkVersion)
	script := filepath.Join(t.TempDir(), "stream.js")
	if err := os.WriteFile(script, []byte(sdkScript), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range providers(t) {
		t.Run(p.name, func(t *testing.T) {
			up := recording(t, p, "{}")
			gw := testgw.Start(t, testgw.SlotClaudeCode, p.site(up))
			ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, "node", script)
			cmd.Env = append(os.Environ(), "SDK_DIR="+sdk, "GATEWAY="+gw.URL, "MARK="+sdkMark)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("node: %v\n%s\n%s", err, out, stderr.String())
			}
			var got struct {
				Message struct {
					Content []struct {
						Type      string `json:"type"`
						Thinking  string `json:"thinking"`
						Signature string `json:"signature"`
						Text      string `json:"text"`
					} `json:"content"`
					StopReason string `json:"stop_reason"`
				} `json:"message"`
				Events   []string `json:"events"`
				Thinking string   `json:"thinking"`
				Text     string   `json:"text"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			c := got.Message.Content
			if len(c) != 2 || c[0].Type != "thinking" || c[0].Thinking != thinking2 || c[0].Signature == "" ||
				c[1].Type != "text" || c[1].Text != answer2 || got.Message.StopReason != "end_turn" {
				t.Errorf("finalMessage: %s", out)
			}
			if got.Thinking != thinking2 || got.Text != answer2 {
				t.Errorf("thinking events %q, text events %q", got.Thinking, got.Text)
			}
			if ev := got.Events; len(ev) < 8 || ev[0] != "message_start" || ev[len(ev)-1] != "message_stop" ||
				strings.Count(strings.Join(ev, " "), "content_block_start") != 2 {
				t.Errorf("events: %q", ev)
			}
			if n := len(up.Requests()); n != 1 {
				t.Errorf("the upstream received %d requests, want 1", n)
			}
		})
	}
}
