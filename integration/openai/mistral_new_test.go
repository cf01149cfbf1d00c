package openai_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/internal/testgw"
)

// magistralStream is a Magistral answer: content as arrays of thinking and
// text chunks.
var magistralStream = testgw.SSE(
	testgw.Event{Data: `{"id":"m1","object":"chat.completion.chunk","model":"magistral-medium-2509","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`},
	testgw.Event{Data: `{"id":"m1","object":"chat.completion.chunk","model":"magistral-medium-2509","choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"Recall the alphabet: "}]}]},"finish_reason":null}]}`},
	testgw.Event{Data: `{"id":"m1","object":"chat.completion.chunk","model":"magistral-medium-2509","choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"A, B, C. Café 思考"}]}]},"finish_reason":null}]}`},
	testgw.Event{Data: `{"id":"m1","object":"chat.completion.chunk","model":"magistral-medium-2509","choices":[{"index":0,"delta":{"content":[{"type":"text","text":"A, B "}]},"finish_reason":null}]}`},
	testgw.Event{Data: `{"id":"m1","object":"chat.completion.chunk","model":"magistral-medium-2509","choices":[{"index":0,"delta":{"content":[{"type":"text","text":"and C."}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":30,"total_tokens":42}}`},
	testgw.Event{Data: `[DONE]`},
)

const magistralThinking = "Recall the alphabet: A, B, C. Café 思考"

// TestMistralThinkingChunks: Magistral's thinking chunks reach the SDK as a
// signed thinking block and its text chunks as text, for every split; with
// reasoning_history mistral that block goes back as a thinking chunk.
func TestMistralThinkingChunks(t *testing.T) {
	for _, n := range []int{1, 13, 4096} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			up := streaming(t, magistralStream, n)
			gw := testgw.Start(t, testgw.SlotOpenAI, site("\treasoning_history mistral\n\tthinking_mode none\n\tmodel claude-* magistral-medium-2509", up))
			msg, types := gw.Stream(userParams())
			if len(msg.Content) != 2 || msg.Content[0].Thinking != magistralThinking || msg.Content[0].Signature != sig(magistralThinking) ||
				msg.Content[1].Text != "A, B and C." || msg.StopReason != "end_turn" || msg.Usage.OutputTokens != 30 {
				t.Errorf("message %+v", msg)
			}
			if types[0] != "message_start" || types[len(types)-1] != "message_stop" {
				t.Errorf("events %v", types)
			}
			// The next turn sends the block back in Mistral's form.
			params := userParams()
			params.Messages = append(params.Messages, msg.ToParam(), anthropic.NewUserMessage(anthropic.NewTextBlock("And the next?")))
			gw.Stream(params)
			want := `{"model":"magistral-medium-2509","messages":[{"role":"user","content":"What are the first three letters of the alphabet?"},` +
				`{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":` + q(magistralThinking) + `}]},{"type":"text","text":"A, B and C."}]},` +
				`{"role":"user","content":"And the next?"}],"max_tokens":1024,"stream":true,"stream_options":{"include_usage":true}}`
			if body := up.Last(t).Body; !golden.EqualJSON(t, body, []byte(want)) {
				t.Errorf("upstream body %s\nwant %s", body, want)
			}
		})
	}
}

// TestMistralNonStreaming: a whole Magistral message becomes the same blocks.
func TestMistralNonStreaming(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"m2","object":"chat.completion","model":"magistral-small-2509","choices":[{"index":0,"message":{"role":"assistant","tool_calls":null,"content":[`+
			`{"type":"thinking","thinking":[{"type":"text","text":"`+magistralThinking+`"}]},{"type":"text","text":"A, B and C."}]},"finish_reason":"stop"}],`+
			`"usage":{"prompt_tokens":7,"total_tokens":19,"completion_tokens":12}}`)
	})
	gw := testgw.Start(t, testgw.SlotOpenAI, site("", up))
	client := gw.Client()
	msg, err := client.Messages.New(context.Background(), userParams())
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 2 || msg.Content[0].Thinking != magistralThinking || msg.Content[0].Signature != sig(magistralThinking) ||
		msg.Content[1].Text != "A, B and C." || msg.Usage.OutputTokens != 12 {
		t.Errorf("message %+v", msg)
	}
}
