package claudecode_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/eventstreamtest"
	"github.com/thinkgate/thinkgate/internal/googletest"
	"github.com/thinkgate/thinkgate/internal/testgw"
	"github.com/thinkgate/thinkgate/providers/openai/openaitest"
	rt "github.com/thinkgate/thinkgate/providers/responses/responsestest"
)

// What the test model thinks and says. The upstream answers by what the
// request holds: the second prompt gets answer3; the Read tool's result
// (the note's marker) or the SDK's prompt gets thinking2 and answer2;
// anything else gets thinking1 and a call of the Read tool.
const (
	noteMarker = "note-marker-7781"
	turn2Mark  = "CLAUDE-TURN-2"
	sdkMark    = "SDK-STREAM"
	thinking1  = "The user wants the note read. I will use the Read tool."
	thinking2  = "The note holds the marker; I can answer now."
	answer2    = "The note says " + noteMarker + "."
	answer3    = "You asked about the note before; it says " + noteMarker + "."
)

// step is which answer a request gets.
type step int

const (
	stepToolCall step = iota
	stepAnswer
	stepSecondTurn
)

func stepOf(body []byte) step {
	switch {
	case bytes.Contains(body, []byte(turn2Mark)):
		return stepSecondTurn
	case bytes.Contains(body, []byte(noteMarker)), bytes.Contains(body, []byte(sdkMark)):
		return stepAnswer
	}
	return stepToolCall
}

// provider is one provider under test: the site's thinkgate block, an
// upstream speaking its format, and what of the first turn's thinking the
// upstream must receive back in the requests after it.
type provider struct {
	name string
	site func(up *testgw.Upstream) string
	// path is the upstream path every Messages call must arrive at.
	path string
	// answer writes the upstream's answer for a step, with the Read call's
	// input.
	answer func(w http.ResponseWriter, s step, readInput string)
	// authorize, where set, is the Authorization header every request
	// must carry; authorizePrefix, where set, its start (an access token
	// the gateway fetched).
	authorize, authorizePrefix string
	// thinkingBack is what the upstream receives of thinking1 in the
	// requests after the first.
	thinkingBack string
}

func sse(w http.ResponseWriter, body []byte) {
	testgw.WriteChunks(w, "text/event-stream", body, 97)
}

func anthropicEvents(model string, s step, readInput string) []testgw.Event {
	var ev []testgw.Event
	add := func(name string, v map[string]any) {
		v["type"] = name
		b, _ := json.Marshal(v)
		ev = append(ev, testgw.Event{Name: name, Data: string(b)})
	}
	add("message_start", map[string]any{"message": map[string]any{"id": "msg_01", "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 30, "output_tokens": 1}}})
	index := 0
	block := func(start map[string]any, deltas ...map[string]any) {
		add("content_block_start", map[string]any{"index": index, "content_block": start})
		for _, d := range deltas {
			add("content_block_delta", map[string]any{"index": index, "delta": d})
		}
		add("content_block_stop", map[string]any{"index": index})
		index++
	}
	thinking := func(text, sig string) {
		block(map[string]any{"type": "thinking", "thinking": "", "signature": ""},
			map[string]any{"type": "thinking_delta", "thinking": text}, map[string]any{"type": "signature_delta", "signature": sig})
	}
	text := func(s string) {
		block(map[string]any{"type": "text", "text": ""}, map[string]any{"type": "text_delta", "text": s})
	}
	stop := "end_turn"
	switch s {
	case stepToolCall:
		thinking(thinking1, "sig-one")
		block(map[string]any{"type": "tool_use", "id": "toolu_01Read", "name": "Read", "input": map[string]any{}},
			map[string]any{"type": "input_json_delta", "partial_json": readInput})
		stop = "tool_use"
	case stepAnswer:
		thinking(thinking2, "sig-two")
		text(answer2)
	case stepSecondTurn:
		text(answer3)
	}
	add("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 20}})
	add("message_stop", map[string]any{})
	return ev
}

// converseFrame is one ConverseStream event frame.
func converseFrame(typ string, fields map[string]any) []byte {
	payload, _ := json.Marshal(fields)
	return eventstreamtest.Event(typ, payload)
}

// converseStream is the step's answer as Bedrock's ConverseStream sends it.
func converseStream(s step, readInput string) []byte {
	var frames [][]byte
	index := 0
	delta := func(d map[string]any) {
		frames = append(frames, converseFrame("contentBlockDelta", map[string]any{"contentBlockIndex": index, "delta": d}))
	}
	stopBlock := func() {
		frames = append(frames, converseFrame("contentBlockStop", map[string]any{"contentBlockIndex": index}))
		index++
	}
	reasoning := func(text, sig string) {
		delta(map[string]any{"reasoningContent": map[string]any{"text": text}})
		delta(map[string]any{"reasoningContent": map[string]any{"signature": sig}})
		stopBlock()
	}
	frames = append(frames, converseFrame("messageStart", map[string]any{"role": "assistant"}))
	stop := "end_turn"
	switch s {
	case stepToolCall:
		reasoning(thinking1, "converse-sig-one")
		frames = append(frames, converseFrame("contentBlockStart", map[string]any{"contentBlockIndex": index,
			"start": map[string]any{"toolUse": map[string]any{"toolUseId": "tooluse_read1", "name": "Read"}}}))
		delta(map[string]any{"toolUse": map[string]any{"input": readInput}})
		stopBlock()
		stop = "tool_use"
	case stepAnswer:
		reasoning(thinking2, "converse-sig-two")
		delta(map[string]any{"text": answer2})
		stopBlock()
	case stepSecondTurn:
		delta(map[string]any{"text": answer3})
		stopBlock()
	}
	frames = append(frames, converseFrame("messageStop", map[string]any{"stopReason": stop}),
		converseFrame("metadata", map[string]any{"usage": map[string]any{"inputTokens": 30, "outputTokens": 20, "totalTokens": 50}}))
	return bytes.Join(frames, nil)
}

// The Bedrock model ids: Claude goes to InvokeModel, DeepSeek to Converse.
const (
	bedrockClaude   = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	bedrockDeepSeek = "deepseek.r1-v1:0"
)

func q(s string) string { b, _ := json.Marshal(s); return string(b) }

func providers(t *testing.T) []provider {
	t.Setenv("THINKGATE_UPSTREAM_KEY", "upstream-key")
	t.Setenv("THINKGATE_BEDROCK_KEY", testgw.BedrockAPIKey)
	// Vertex AI's access tokens come from an offline Google token server.
	googleKey := googletest.NewTokenServer(t).WriteKeyFile(t)
	vertexSite := func(model string, up *testgw.Upstream) string {
		return "thinkgate vertex {\n\tproject my-project\n\tlocation us-east5\n\tcredentials_file " + googleKey +
			"\n\tmodel claude-* " + model + "\n}\nreverse_proxy " + up.Addr()
	}
	const vertexPrefix = "/v1/projects/my-project/locations/us-east5/publishers/"
	return []provider{
		{
			name: "anthropic",
			site: func(up *testgw.Upstream) string {
				return "thinkgate anthropic {\n\tapi_key {env.THINKGATE_UPSTREAM_KEY}\n}\nreverse_proxy " + up.Addr()
			},
			path: "/v1/messages",
			answer: func(w http.ResponseWriter, s step, in string) {
				sse(w, testgw.SSE(anthropicEvents("claude-sonnet-4-5", s, in)...))
			},
			thinkingBack: `"signature":"sig-one"`,
		},
		{
			name: "azure",
			site: func(up *testgw.Upstream) string {
				return "thinkgate azure {\n\tapi_key {env.THINKGATE_UPSTREAM_KEY}\n}\nreverse_proxy " + up.Addr()
			},
			path: "/anthropic/v1/messages",
			answer: func(w http.ResponseWriter, s step, in string) {
				sse(w, testgw.SSE(anthropicEvents("claude-sonnet-4-5", s, in)...))
			},
			thinkingBack: `"signature":"sig-one"`,
		},
		{
			name: "bedrock",
			site: func(up *testgw.Upstream) string {
				return "thinkgate bedrock {\n\tregion us-east-1\n\tapi_key {env.THINKGATE_BEDROCK_KEY}\n\tmodel claude-* " + bedrockClaude + "\n}\nreverse_proxy " + up.Addr()
			},
			path:      "/model/" + bedrockClaude + "/invoke-with-response-stream",
			authorize: "Bearer " + testgw.BedrockAPIKey,
			answer: func(w http.ResponseWriter, s step, in string) {
				testgw.WriteChunks(w, testgw.BedrockEventStreamType, testgw.BedrockChunks(anthropicEvents("claude-sonnet-4-5", s, in)), 97)
			},
			thinkingBack: `"signature":"sig-one"`,
		},
		{
			name: "bedrock-converse",
			site: func(up *testgw.Upstream) string {
				return "thinkgate bedrock {\n\tregion us-east-1\n\tapi_key {env.THINKGATE_BEDROCK_KEY}\n\tmodel claude-* " + bedrockDeepSeek + "\n}\nreverse_proxy " + up.Addr()
			},
			path:      "/model/" + bedrockDeepSeek + "/converse-stream",
			authorize: "Bearer " + testgw.BedrockAPIKey,
			answer: func(w http.ResponseWriter, s step, in string) {
				testgw.WriteChunks(w, testgw.BedrockEventStreamType, converseStream(s, in), 97)
			},
			thinkingBack: "converse-sig-one",
		},
		{
			name: "amazonq",
			site: func(up *testgw.Upstream) string {
				return "thinkgate amazonq {\n\tapi_key {env.THINKGATE_UPSTREAM_KEY}\n}\nreverse_proxy " + up.Addr()
			},
			path: "/",
			answer: func(w http.ResponseWriter, s step, in string) {
				var events [][]byte
				add := func(typ, payload string) {
					events = append(events, eventstreamtest.AmazonQEvent(typ, []byte(payload)))
				}
				text := func(s string) { add("assistantResponseEvent", fmt.Sprintf(`{"content":%s}`, q(s))) }
				switch s {
				case stepToolCall:
					text("<thinking>" + thinking1 + "</thinking>")
					add("toolUseEvent", `{"toolUseId":"tooluse_read1","name":"Read"}`)
					add("toolUseEvent", fmt.Sprintf(`{"toolUseId":"tooluse_read1","input":%s}`, q(in)))
					add("toolUseEvent", `{"toolUseId":"tooluse_read1","stop":true}`)
				case stepAnswer:
					text("<thinking>" + thinking2 + "</thinking>" + answer2)
				case stepSecondTurn:
					text(answer3)
				}
				add("metadataEvent", `{"tokenUsage":{"uncachedInputTokens":30,"outputTokens":20,"totalTokens":50}}`)
				testgw.WriteChunks(w, testgw.BedrockEventStreamType, bytes.Join(events, nil), 97)
			},
			thinkingBack: thinking1,
		},
		{
			name: "openai",
			site: func(up *testgw.Upstream) string {
				return "thinkgate openai {\n\tapi_key {env.THINKGATE_UPSTREAM_KEY}\n\tmodel claude-* gpt-4.1\n}\nreverse_proxy " + up.Addr()
			},
			path: "/v1/chat/completions",
			answer: func(w http.ResponseWriter, s step, in string) {
				c := openaitest.New()
				switch s {
				case stepToolCall:
					c.Content("<thinking>"+thinking1+"</thinking>", 9).ToolStart(0, "call_read1", "Read").ToolArgs(0, in).Finish("tool_calls")
				case stepAnswer:
					c.Content("<thinking>"+thinking2+"</thinking>"+answer2, 9).Finish("stop")
				case stepSecondTurn:
					c.Content(answer3, 9).Finish("stop")
				}
				sse(w, c.Usage(30, 20, 0).Done().Bytes())
			},
			thinkingBack: thinking1,
		},
		{
			name: "responses",
			site: func(up *testgw.Upstream) string {
				return "thinkgate responses {\n\tapi_key {env.THINKGATE_UPSTREAM_KEY}\n\tmodel claude-* gpt-5\n}\nreverse_proxy " + up.Addr()
			},
			path: "/v1/responses",
			answer: func(w http.ResponseWriter, s step, in string) {
				b := rt.New("resp_1", "gpt-5")
				switch s {
				case stepToolCall:
					b.Reasoning("rs_1", "enc-reasoning-one", []string{thinking1}, 9).Call("fc_1", "call_read1", "Read", in)
				case stepAnswer:
					b.Reasoning("rs_2", "enc-reasoning-two", []string{thinking2}, 9).Message("msg_2", answer2, 9)
				case stepSecondTurn:
					b.Message("msg_3", answer3, 9)
				}
				sse(w, b.Completed(rt.Usage(30, 0, 20, 5)).Bytes())
			},
			thinkingBack: "enc-reasoning-one",
		},
		{
			name: "vertex",
			site: func(up *testgw.Upstream) string {
				return vertexSite("claude-sonnet-4-5@20250929", up)
			},
			path:            vertexPrefix + "anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict",
			authorizePrefix: "Bearer ya29.test-access-token-",
			answer: func(w http.ResponseWriter, s step, in string) {
				sse(w, testgw.SSE(anthropicEvents("claude-sonnet-4-5", s, in)...))
			},
			thinkingBack: `"signature":"sig-one"`,
		},
		{
			name: "vertex-gemini",
			site: func(up *testgw.Upstream) string {
				return vertexSite("gemini-2.5-pro", up)
			},
			path:            vertexPrefix + "google/models/gemini-2.5-pro:streamGenerateContent",
			authorizePrefix: "Bearer ya29.test-access-token-",
			answer:          geminiAnswer,
			thinkingBack:    "gemini-sig-one",
		},
		{
			name: "gemini",
			site: func(up *testgw.Upstream) string {
				return "thinkgate gemini {\n\tapi_key {env.THINKGATE_UPSTREAM_KEY}\n\tmodel claude-* gemini-2.5-pro\n}\nreverse_proxy " + up.Addr()
			},
			path:         "/v1beta/models/gemini-2.5-pro:streamGenerateContent",
			answer:       geminiAnswer,
			thinkingBack: "gemini-sig-one",
		},
	}
}

// recording starts p's upstream: every request is recorded; a Messages
// call at p's path gets the answer of its step, anything else a 404 the
// test reports.
func recording(t *testing.T, p provider, readInput string) *testgw.Upstream {
	return testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		var body bytes.Buffer
		_, _ = body.ReadFrom(r.Body)
		if p.authorize != "" && r.Header.Get("Authorization") != p.authorize ||
			p.authorizePrefix != "" && !strings.HasPrefix(r.Header.Get("Authorization"), p.authorizePrefix) {
			t.Errorf("%s upstream: Authorization %q", p.name, r.Header.Get("Authorization"))
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		if !strings.HasPrefix(r.URL.Path, p.path) {
			t.Errorf("%s upstream: unexpected %s %s", p.name, r.Method, r.URL.Path)
			http.NotFound(w, r)
			return
		}
		p.answer(w, stepOf(body.Bytes()), readInput)
	})
}

// geminiAnswer is a Gemini streamGenerateContent answer for a step, from
// Google AI Studio or Vertex AI alike.
func geminiAnswer(w http.ResponseWriter, s step, in string) {
	var parts string
	switch s {
	case stepToolCall:
		parts = fmt.Sprintf(`{"text":%s,"thought":true},{"functionCall":{"name":"Read","args":%s},"thoughtSignature":"gemini-sig-one"}`, q(thinking1), in)
	case stepAnswer:
		parts = fmt.Sprintf(`{"text":%s,"thought":true},{"text":%s}`, q(thinking2), q(answer2))
	case stepSecondTurn:
		parts = fmt.Sprintf(`{"text":%s}`, q(answer3))
	}
	body := fmt.Sprintf(`data: {"candidates":[{"content":{"role":"model","parts":[%s]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":30,"candidatesTokenCount":20,"totalTokenCount":50},"modelVersion":"gemini-2.5-pro"}`+"\r\n\r\n", parts)
	sse(w, []byte(body))
}
