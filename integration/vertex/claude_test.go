package vertex_test

import (
	"net/http"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/googletest"
	"github.com/thinkgate/thinkgate/internal/testgw"
)

// claudeThinkingStream is Claude's native thinking and answer as Vertex
// streams them.
var claudeThinkingStream = testgw.SSE(
	testgw.Event{Name: "message_start", Data: `{"type":"message_start","message":{"id":"msg_vrtx_2","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":1}}}`},
	testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`},
	testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Two plus two is four."}}`},
	testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCkgIBxABGAIiQL"}}`},
	testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":0}`},
	testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`},
	testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"<thinking>Check: 2+2.</thinking>It is 4."}}`},
	testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":1}`},
	testgw.Event{Name: "message_delta", Data: `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":20}}`},
	testgw.Event{Name: "message_stop", Data: `{"type":"message_stop"}`},
)

// TestClaudeThinking: Claude's native thinking reaches the SDK whole, split
// into 5-byte writes; with split_tags, tags in its text become a thinking
// block of their own too.
func TestClaudeThinking(t *testing.T) {
	ts := googletest.NewTokenServer(t)
	up := mockVertex(t, func(w http.ResponseWriter, r *http.Request) {
		testgw.WriteChunks(w, "text/event-stream", claudeThinkingStream, 5)
	})
	params := userParams("claude-sonnet-4-5", "2+2?")
	params.Thinking = anthropic.ThinkingConfigParamOfEnabled(1024)

	gw := testgw.Start(t, slot, vertexSite(ts.WriteKeyFile(t), "", up))
	msg, _ := gw.Stream(params)
	if len(msg.Content) != 2 || msg.Content[0].Thinking != "Two plus two is four." || msg.Content[0].Signature != "EqQBCkgIBxABGAIiQL" ||
		msg.Content[1].Text != "<thinking>Check: 2+2.</thinking>It is 4." || msg.ID != "msg_vrtx_2" {
		t.Errorf("passthrough: %s", msg.RawJSON())
	}

	// A new config loads its credentials anew: a new endpoint issues its
	// first token again.
	ts = googletest.NewTokenServer(t)
	gw = testgw.Start(t, slot, vertexSite(ts.WriteKeyFile(t), "\tsplit_tags", up))
	msg, _ = gw.Stream(params)
	if len(msg.Content) != 3 || msg.Content[0].Thinking != "Two plus two is four." || msg.Content[0].Signature != "EqQBCkgIBxABGAIiQL" ||
		msg.Content[1].Type != "thinking" || msg.Content[1].Thinking != "Check: 2+2." || msg.Content[2].Text != "It is 4." {
		t.Errorf("split_tags: %s", msg.RawJSON())
	}
	if want := `{"anthropic_version":"vertex-2023-10-16","max_tokens":1024,"messages":[{"content":[{"text":"2+2?","type":"text"}],"role":"user"}],"stream":true,"thinking":{"budget_tokens":1024,"type":"enabled"}}`; string(up.Last(t).Body) != want {
		t.Errorf("body %s\nwant %s", up.Last(t).Body, want)
	}
}
