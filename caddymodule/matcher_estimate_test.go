package caddymodule

import (
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/providers/wire"
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
			for _, read := range []func([]byte) (*wire.Request, error){wire.ParseRequest, wire.ScanRequest} {
				req, err := read([]byte(c.body))
				if err != nil {
					t.Fatal(err)
				}
				s := gatherStats(req, []byte(c.body))
				if s.inputTokens != c.want || s.image != c.image || s.document != c.doc {
					t.Errorf("estimate %d image %v document %v; want %d %v %v", s.inputTokens, s.image, s.document, c.want, c.image, c.doc)
				}
			}
		})
	}
}

// TestInputTokenEstimateErrsHigh: English prose and code, whose tokens
// run about four characters each, are estimated higher than that.
func TestInputTokenEstimateErrsHigh(t *testing.T) {
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog near the riverbank. ", 200)
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"` + prose + `"}]}`)
	req, err := wire.ParseRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	if got, atFour := gatherStats(req, body).inputTokens, int64(len(prose)/4); got <= atFour {
		t.Errorf("estimate %d is not above %d, four characters a token", got, atFour)
	}
}

// gatherStatsTyped is the estimate read from the decoded history: the
// reference gatherStats, which reads the body a block at a time, is held
// to.
func gatherStatsTyped(req *wire.Request) *requestStats {
	s := new(requestStats)
	var textBytes, tokens int64
	var walk func(blocks []wire.Block)
	walk = func(blocks []wire.Block) {
		for _, b := range blocks {
			switch b.Type {
			case "text":
				textBytes += int64(len(b.Text))
			case "thinking":
				textBytes += int64(len(b.Thinking))
			case "redacted_thinking":
				textBytes += int64(len(b.Data))
			case "tool_use", "server_tool_use":
				textBytes += int64(len(b.Name) + len(b.Input))
			case "tool_result":
				if b.Content != nil {
					walk(b.Content.Blocks)
				}
			case "image":
				s.image = true
				tokens += imageTokens
			case "document":
				s.document = true
				switch {
				case b.Source == nil:
					tokens += unseenDocumentTokens
				case b.Source.Type == "base64":
					tokens += int64(len(b.Source.Data)) * 3 / 4
				case b.Source.Type == "text":
					tokens += int64(len(b.Source.Data)+bytesPerToken-1) / bytesPerToken
				case b.Source.Type == "content":
					tokens += int64(len(b.Raw)+bytesPerToken-1) / bytesPerToken
				default:
					tokens += unseenDocumentTokens
				}
			default:
				textBytes += int64(len(b.Raw))
			}
		}
	}
	walk(req.System.Blocks)
	for _, m := range req.Messages {
		tokens += messageTokens
		walk(m.Content.Blocks)
	}
	for _, t := range req.Tools {
		textBytes += int64(len(t.Raw))
	}
	if len(req.Tools) > 0 {
		tokens += toolUseTokens
	}
	s.inputTokens = tokens + (textBytes+bytesPerToken-1)/bytesPerToken
	return s
}

// FuzzInputTokenEstimate: the estimate read from the body a block at a
// time is the one read from the decoded history, for any request,
// whichever way it was read.
func FuzzInputTokenEstimate(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","system":[{"type":"text","text":"s\u00e9"}],"messages":[{"role":"user","content":[{"type":"text","text":"a\"b"},{"type":"image","source":{"type":"url","url":"u"}},{"type":"tool_result","tool_use_id":"t","content":[{"type":"tool_result","content":[{"type":"text","text":"deep"}]},{"type":"text","text":"x"}]}]}]}`,
		`{"model":"m","messages":[{"Role":"user","CONTENT":[{"Type":"text","Text":"odd","text":null},{"type":"document","Source":{"type":"text","data":"d"}},{"type":"search_result","source":"s","content":[]}]},{"role":"assistant","content":[{"type":"tool_use","name":"n\u0061","input":{ "a" : 1 }},{"type":"thinking","thinking":"t","signature":"s"},{"type":"redacted_thinking","data":"d"}]}],"tools":[{"name":"x","input_schema":{}}]}`,
		`{"model":"m","Messages":[{"role":"user","content":"a"}],"messages":null,"messages":[{"role":"user","content":"bb"}],"SYSTEM":"sys"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		parsed, err := wire.ParseRequest(body)
		if err != nil {
			return
		}
		want := gatherStatsTyped(parsed)
		for _, read := range []func([]byte) (*wire.Request, error){wire.ParseRequest, wire.ScanRequest} {
			req, err := read(body)
			if err != nil {
				t.Fatal(err)
			}
			if got := gatherStats(req, body); *got != *want {
				t.Fatalf("%s\nfrom the body %+v\ndecoded %+v", body, *got, *want)
			}
		}
	})
}
