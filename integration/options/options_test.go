// Package options_test checks through a real Caddy that the handler's
// parser and hint options reach the tag parser and the upstream request,
// and that a provider module registered from outside caddymodule is served
// as its ProviderInfo says (plugin_test.go).
package options_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

func site(provider, options string, up *testgw.Upstream) string {
	return fmt.Sprintf("thinkgate %s {\n\tsigning_key test-signing-key\n%s\n}\nreverse_proxy %s", provider, options, up.Addr())
}

func userParams() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     "claude-test",
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What are the first three letters of the alphabet?"))},
	}
}

// TestParserOptions: the handler's tag options reach the parser.
func TestParserOptions(t *testing.T) {
	fence := "Code:\n```\n<thinking>literal</thinking>\n```\n"
	cases := []struct {
		name, options, text string
		want                []string // block type: content
	}{
		{"tags and start_in_thinking", "\ttags think\n\tstart_in_thinking", "plan first</think>The answer.",
			[]string{"thinking: plan first", "text: The answer."}},
		{"without them the text is untouched", "", "plan first</think>The answer.",
			[]string{"text: plan first</think>The answer."}},
		{"tags in a code fence stay text", "", fence, []string{"text: " + fence}},
		{"parse_in_code_fences", "\tparse_in_code_fences", fence,
			[]string{"text: Code:\n```\n", "thinking: literal", "text: \n```\n"}},
		{"max_tag_length releases a longer tag as text", "\tmax_tag_length 24", `<thinking thought="far too long for the bound">x</thinking>`,
			[]string{`text: <thinking thought="far too long for the bound">x`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			up := testgw.StreamingUpstream(t, testgw.AnthropicTextStream(c.text, 3), 5)
			gw := testgw.Start(t, testgw.SlotOptions, site("anthropic", "\tsplit_tags\n"+c.options, up))
			msg, _ := gw.Stream(userParams())
			var got []string
			for _, b := range msg.Content {
				got = append(got, b.Type+": "+b.Text+b.Thinking)
			}
			testgw.Diff(t, "blocks", got, c.want)
		})
	}
}

// TestHintOptions: thinking_hint and default_thinking shape what a
// tag-based upstream is asked.
func TestHintOptions(t *testing.T) {
	chunks := "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		testgw.WriteChunks(w, "text/event-stream", []byte(chunks), 64)
	})
	for _, c := range []struct {
		name, options, request, wantHint string
	}{
		{"custom hint with the budget", "\tthinking_hint \"Think in <thinking> tags, at most {budget} tokens.\"",
			`{"model":"m","max_tokens":4096,"stream":true,"thinking":{"type":"enabled","budget_tokens":2048},"messages":[{"role":"user","content":"q"}]}`,
			"Think in <thinking> tags, at most 2048 tokens."},
		{"default hint when thinking is not mentioned", "",
			`{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"q"}]}`,
			"<thinking_mode>interleaved</thinking_mode><max_thinking_length>16000</max_thinking_length>"},
		{"default_thinking off: no hint", "\tdefault_thinking off",
			`{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"q"}]}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			gw := testgw.Start(t, testgw.SlotOptions, site("openai", c.options, up))
			res, body := gw.PostRead("/v1/messages", c.request)
			if res.StatusCode != 200 {
				t.Fatalf("%d %s", res.StatusCode, body)
			}
			sent := string(up.Last(t).Body)
			hasHint := strings.Contains(sent, "thinking_mode") || strings.Contains(sent, "Think in")
			want := `{"role":"system","content":"` + c.wantHint + `"}`
			if c.wantHint == "" && hasHint || c.wantHint != "" && !strings.Contains(sent, want) {
				t.Errorf("upstream body %s\nwant hint %q", sent, c.wantHint)
			}
		})
	}
}
