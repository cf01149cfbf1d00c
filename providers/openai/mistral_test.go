package openai

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers/emit"
)

// mistralStream is a Magistral answer as its API streams it: content as
// arrays of thinking and text chunks, a tag inside the text.
const mistralStream = `data: {"id":"m1","object":"chat.completion.chunk","model":"magistral-medium-2509","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}

data: {"id":"m1","object":"chat.completion.chunk","model":"magistral-medium-2509","choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"The user wants "}]}]},"finish_reason":null}]}

data: {"id":"m1","object":"chat.completion.chunk","model":"magistral-medium-2509","choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"A, B, C. \"Easy\"."}]}]},"finish_reason":null}]}

data: {"id":"m1","object":"chat.completion.chunk","model":"magistral-medium-2509","choices":[{"index":0,"delta":{"content":[{"type":"text","text":"The first three "}]},"finish_reason":null}]}

data: {"id":"m1","object":"chat.completion.chunk","model":"magistral-medium-2509","choices":[{"index":0,"delta":{"content":"letters are "},"finish_reason":null}]}

data: {"id":"m1","object":"chat.completion.chunk","model":"magistral-medium-2509","choices":[{"index":0,"delta":{"content":[{"type":"text","text":"A, B and C."},{"type":"reference","reference_ids":[1]}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":25,"total_tokens":35}}

data: [DONE]

`

// TestMistralStream: thinking chunks become one signed thinking block, text
// chunks (and plain string content between them) one text block, for every
// split of the upstream's bytes; the SDK accumulates the stream.
func TestMistralStream(t *testing.T) {
	thinking := `The user wants A, B, C. "Easy".`
	want := []string{messageStart}
	want = append(want, thinkingBlock(0, thinking)...)
	want = append(want, ssetest.TextBlock(1, "The first three letters are A, B and C.")...)
	want = append(want, "message_delta end_turn null "+ssetest.UsageJSON(10, 25, 0), "message_stop")
	for _, n := range []int{1, 7, 64, 1 << 16} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			x := exchange(t, nil, streamRequest)
			out, err := runStream(t, NewTranslator(x, nil, 0), []byte(mistralStream), n)
			if err != nil {
				t.Fatal(err)
			}
			got, msg := summary(t, out)
			if n == 1<<16 {
				diff(t, "events", got, want)
			} else if msg.Content[0].Thinking != thinking || msg.Content[1].Text != "The first three letters are A, B and C." {
				t.Errorf("content %+v", msg.Content)
			}
			if msg.Content[0].Signature != sig(thinking) {
				t.Errorf("signature %q", msg.Content[0].Signature)
			}
		})
	}
}

// TestMistralStreamTags: text chunks are content like any other: tags in
// them are split; a thinking chunk given as a string is accepted too.
func TestMistralStreamTags(t *testing.T) {
	up := `data: {"choices":[{"delta":{"content":[{"type":"thinking","thinking":"plan"},{"type":"text","text":"x <thinking>y</thinking>z"}]}}]}

data: {"choices":[{"delta":{},"finish_reason":"stop"}]}

data: [DONE]

`
	out, err := runStream(t, NewTranslator(exchange(t, nil, streamRequest), nil, 0), []byte(up), 1<<16)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := summary(t, out)
	want := []string{messageStart}
	want = append(want, thinkingBlock(0, "plan")...)
	want = append(want, ssetest.TextBlock(1, "x ")...)
	want = append(want, thinkingBlock(2, "y")...)
	want = append(want, ssetest.TextBlock(3, "z")...)
	want = append(want, "message_delta end_turn null "+ssetest.UsageJSON(0, 0, 0), "message_stop")
	diff(t, "events", got, want)
}

// TestMistralMessage: a whole Magistral message becomes the same blocks.
func TestMistralMessage(t *testing.T) {
	body := `{"id":"m2","object":"chat.completion","model":"magistral-small-2509","choices":[{"index":0,"message":{"role":"assistant","tool_calls":null,"content":[` +
		`{"type":"thinking","thinking":[{"type":"text","text":"Think "},{"type":"text","text":"twice."}]},{"type":"text","text":"Answer: "},{"type":"text","text":"42."}]},` +
		`"finish_reason":"stop"}],"usage":{"prompt_tokens":7,"total_tokens":19,"completion_tokens":12}}`
	x := exchange(t, nil, nonStreamRequest)
	out, err := NewTranslator(x, nil, 0).Message([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	golden.JSON(t, "messages/mistral.json", out)
	var m anthropic.Message
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Content) != 2 || m.Content[0].Thinking != "Think twice." || m.Content[0].Signature != sig("Think twice.") || m.Content[1].Text != "Answer: 42." {
		t.Errorf("content %+v", m.Content)
	}
}

// TestMistralHistory: with reasoning_history mistral, history thinking goes
// back as thinking chunks in place; by default it does not.
func TestMistralHistory(t *testing.T) {
	x := exchange(t, nil, readFile(t, "requests/history.in.json"))
	body, _, err := ConvertRequest(x, Config{ReasoningHistory: HistoryMistral})
	if err != nil {
		t.Fatal(err)
	}
	golden.JSON(t, "requests/history_mistral.out.json", body)

	req := `{"model":"magistral-medium-2509","max_tokens":99,"thinking":{"type":"disabled"},"messages":[{"role":"user","content":"q"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"plan","signature":"x"},{"type":"text","text":"a"},{"type":"thinking","thinking":"more"},{"type":"text","text":"b"}]},` +
		`{"role":"user","content":"again"}]}`
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{ReasoningHistory: HistoryMistral}, `[{"type":"thinking","thinking":[{"type":"text","text":"plan"}]},{"type":"text","text":"a"},{"type":"thinking","thinking":[{"type":"text","text":"more"}]},{"type":"text","text":"b"}]`},
		{Config{}, `"ab"`},
	} {
		body, _, err := ConvertRequest(exchange(t, nil, req), tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		var sent struct {
			Messages []struct{ Content json.RawMessage }
		}
		_ = json.Unmarshal(body, &sent)
		if got := string(sent.Messages[1].Content); got != tc.want {
			t.Errorf("%+v: assistant content %s, want %s", tc.cfg, got, tc.want)
		}
	}
}

var _ = emit.OriginTags
