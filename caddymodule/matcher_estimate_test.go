package caddymodule

import (
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/providers"
)

// TestInputTokenEstimate: the estimate's parts, each on its own.
func TestInputTokenEstimate(t *testing.T) {
	text300 := strings.Repeat("abc", 100)
	pdf := strings.Repeat("QUJD", 250) // 1000 base64 characters, 750 bytes
	for _, c := range []struct {
		name, body string
		want       int64
		image, doc bool
	}{
		{"text: bytes/3 plus each message's framing",
			`{"model":"m","messages":[{"role":"user","content":"` + text300 + `"}]}`, 100 + messageTokens, false, false},
		{"an odd byte rounds up", `{"model":"m","messages":[{"role":"user","content":"abcd"}]}`, 2 + messageTokens, false, false},
		{"the system prompt counts",
			`{"model":"m","system":"` + text300 + `","messages":[{"role":"user","content":"abc"}]}`, 101 + messageTokens, false, false},
		{"an image is a fixed cost, not its bytes",
			`{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + pdf + `"}}]}]}`,
			imageTokens + messageTokens, true, false},
		{"an image inside a tool result",
			`{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{"type":"url","url":"https://x/y.png"}},{"type":"text","text":"abc"}]}]}]}`,
			imageTokens + 1 + messageTokens, true, false},
		{"a base64 document: a token per byte of its data",
			`{"model":"m","messages":[{"role":"user","content":[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + pdf + `"}}]}]}`,
			750 + messageTokens, false, true},
		{"a URL document: a fixed cost",
			`{"model":"m","messages":[{"role":"user","content":[{"type":"document","source":{"type":"url","url":"https://x/y.pdf"}}]}]}`,
			unseenDocumentTokens + messageTokens, false, true},
		{"tools: their definitions plus the tool-use instructions",
			`{"model":"m","tools":[{"name":"get_weather","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"abc"}]}`,
			toolUseTokens + (int64(len(`{"name":"get_weather","input_schema":{"type":"object"}}`))+2)/3 + 1 + messageTokens, false, false},
		{"tool use: the name and the input",
			`{"model":"m","messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"abc","input":{"q":1}}]}]}`,
			(3+int64(len(`{"q":1}`))+2)/3 + messageTokens, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := providers.ParseRequest([]byte(c.body))
			if err != nil {
				t.Fatal(err)
			}
			s := gatherStats(req)
			if s.inputTokens != c.want || s.image != c.image || s.document != c.doc {
				t.Errorf("estimate %d image %v document %v; want %d %v %v", s.inputTokens, s.image, s.document, c.want, c.image, c.doc)
			}
		})
	}
}

// TestInputTokenEstimateErrsHigh: English prose and code, whose tokens
// run about four characters each, are estimated higher than that.
func TestInputTokenEstimateErrsHigh(t *testing.T) {
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog near the riverbank. ", 200)
	req, err := providers.ParseRequest([]byte(`{"model":"m","messages":[{"role":"user","content":"` + prose + `"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, atFour := gatherStats(req).inputTokens, int64(len(prose)/4); got <= atFour {
		t.Errorf("estimate %d is not above %d, four characters a token", got, atFour)
	}
}
