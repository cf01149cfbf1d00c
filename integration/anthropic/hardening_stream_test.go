package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// Both providers that speak Anthropic's format upstream translate its
// response with the same split_tags code; every test here runs on both.
var splitProviders = []string{"anthropic", "azure"}

func splitSite(provider, options string, up *testgw.Upstream) string {
	return fmt.Sprintf("thinkgate %s {\n\tsigning_key %s\n\tapi_key upstream-key\n\tsplit_tags\n%s\n}\nreverse_proxy %s", provider, signingKey, options, up.Addr())
}

const hardenStart = `{"type":"message_start","message":{"id":"msg_01H","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}`

const streamRequest = `{"model":"claude-sonnet-4-5","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"q"}]}`

// summaryOf posts a streaming request and summarises the events the client got.
func summaryOf(t *testing.T, gw *testgw.Gateway) []string {
	t.Helper()
	res := gw.Post("/v1/messages", streamRequest)
	defer res.Body.Close()
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("status %d: %s", res.StatusCode, b)
	}
	return testgw.Summary(t, testgw.ReadEvents(t, res.Body))
}

// TestEventSizeBound: data lines that never meet a blank line end the
// stream with an error event once they pass max_event_size (default
// 16 MiB), instead of growing the gateway without bound.
func TestEventSizeBound(t *testing.T) {
	line := "data: " + strings.Repeat("x", 1<<20-1) + "\n" // 1 MiB a line
	for _, tc := range []struct {
		name, options string
		lines         int
	}{
		{"default 16MiB", "", 40},
		{"max_event_size 3MiB", "\tmax_event_size 3MiB", 6},
	} {
		for _, provider := range splitProviders {
			t.Run(tc.name+"/"+provider, func(t *testing.T) {
				up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/event-stream")
					_, _ = io.WriteString(w, "event: message_start\ndata: "+hardenStart+"\n\nevent: content_block_delta\n")
					for range tc.lines {
						if _, err := io.WriteString(w, line); err != nil {
							return // the gateway gave up on this upstream
						}
					}
				})
				gw := testgw.Start(t, testgw.SlotAnthropic, splitSite(provider, tc.options, up))
				testgw.Diff(t, "events", summaryOf(t, gw), []string{
					"message_start",
					`error {"type":"api_error","message":"upstream event-stream event too large"}`,
				})
			})
		}
	}
}

// TestSSEInjection: JSON an Anthropic-format upstream sends is forwarded as
// one data line. Line ends that are JSON whitespace are compacted away; a
// line end inside a string would frame an event of the upstream's own (here
// a thinking block with a made-up signature), so the event is refused.
func TestSSEInjection(t *testing.T) {
	injected := "event: content_block_start\n" +
		`data: {"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"x` + "\n" +
		"data:\n" +
		"data: event: content_block_start\n" +
		`data: data: {"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":"fake","signature":"made-up"}}` + "\n" +
		`data: "}}` + "\n\n"
	multiLine := "event: content_block_start\n" +
		"data: {\"type\":\"content_block_start\",\n" +
		"data:   \"index\":0,\r\n" +
		"data:   \"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01A\",\"name\":\"get_weather\",\"input\":{}}}\n\n" +
		"event: content_block_delta\n" +
		"data: {\"type\":\"content_block_delta\",\"index\":0,\n" +
		"data: \"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\n" +
		"data: \"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":7}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	for _, provider := range splitProviders {
		t.Run(provider, func(t *testing.T) {
			body := ""
			up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				testgw.WriteChunks(w, "text/event-stream", []byte("event: message_start\ndata: "+hardenStart+"\n\n"+body), 7)
			})
			gw := testgw.Start(t, testgw.SlotAnthropic, splitSite(provider, "", up))

			body = injected
			testgw.Diff(t, "injected events", summaryOf(t, gw), []string{
				"message_start",
				`error {"type":"api_error","message":"malformed upstream event: a line end that is not JSON whitespace"}`,
			})

			body = multiLine
			testgw.Diff(t, "multi-line events", summaryOf(t, gw), []string{
				"message_start",
				`content_block_start 0 {"type":"tool_use","id":"toolu_01A","name":"get_weather","input":{}}`,
				`input_json_delta 0 "{\"city\":\"Paris\"}"`,
				"content_block_stop 0",
				"message_delta tool_use",
				"message_stop",
			})
			msg, _ := gw.Stream(params())
			if len(msg.Content) != 1 || msg.Content[0].Name != "get_weather" || string(msg.Content[0].Input) != `{"city":"Paris"}` || msg.Usage.OutputTokens != 7 {
				t.Errorf("SDK message: %s", msg.RawJSON())
			}
		})
	}
}

// TestLoneSurrogate: a lone UTF-16 surrogate escape in a text delta is
// U+FFFD, as encoding/json decodes it, and the escapes around it decode as
// JSON says; the stream does not fail.
func TestLoneSurrogate(t *testing.T) {
	sse := testgw.SSE(
		testgw.Event{Name: "message_start", Data: hardenStart},
		testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
		testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\ud800b\nc <thinking>x\udc00\ud83d\ude00</thinking>"}}`},
		testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\ud83d"}}`},
		testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\ude00 end\t\""}}`},
		testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":0}`},
		testgw.Event{Name: "message_delta", Data: `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9}}`},
		testgw.Event{Name: "message_stop", Data: `{"type":"message_stop"}`},
	)
	for _, provider := range splitProviders {
		t.Run(provider, func(t *testing.T) {
			up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				testgw.WriteChunks(w, "text/event-stream", sse, 5)
			})
			gw := testgw.Start(t, testgw.SlotAnthropic, splitSite(provider, "", up))
			msg, _ := gw.Stream(params())
			// Each half of the pair cut across two deltas is alone in its
			// string: each is U+FFFD.
			if len(msg.Content) != 3 || msg.Content[0].Text != "a\uFFFDb\nc " || msg.Content[1].Thinking != "x\uFFFD😀" ||
				msg.Content[2].Text != "\uFFFD\uFFFD end\t\"" || msg.StopReason != "end_turn" {
				t.Errorf("SDK message: %s", msg.RawJSON())
			}
		})
	}
}

// The web-search answer of Anthropic's documentation, with a thinking span
// in its text: the citations stay on the text block of the text they come
// before, whatever the split made of the blocks around it.
var (
	citation    = `{"type":"web_search_result_location","url":"https://en.wikipedia.org/wiki/Claude_Shannon","title":"Claude Shannon - Wikipedia","encrypted_index":"Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm","cited_text":"Claude Elwood Shannon (April 30, 1916 – February 24, 2001) was an American mathematician"}`
	citation2   = `{"type":"web_search_result_location","url":"https://www.britannica.com/biography/Claude-Shannon","title":"Claude Shannon | Britannica","encrypted_index":"EpIBCioIAhgBIiQ4ODk4YTFkYy0yMTNmLTQ","cited_text":"Shannon, born in Petoskey, Michigan"}`
	searchBlock = `{"type":"web_search_tool_result","tool_use_id":"srvtoolu_01WYG3ziw53XMcoyKL4XcZmE","content":[{"type":"web_search_result","title":"Claude Shannon - Wikipedia","url":"https://en.wikipedia.org/wiki/Claude_Shannon","encrypted_content":"EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y","page_age":"April 30, 2025"}]}`
	citedSSE    = testgw.SSE(
		testgw.Event{Name: "message_start", Data: hardenStart},
		testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
		testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"I'll search for that."}}`},
		testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":0}`},
		testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":1,"content_block":{"type":"server_tool_use","id":"srvtoolu_01WYG3ziw53XMcoyKL4XcZmE","name":"web_search","input":{}}}`},
		testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"query\":\"claude shannon birth date\"}"}}`},
		testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":1}`},
		testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":2,"content_block":` + searchBlock + `}`},
		testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":2}`},
		testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":3,"content_block":{"type":"text","text":""}}`},
		testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"<thinking>The first result has the date.</thinking>Based on the search results, "}}`},
		testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":3}`},
		testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":4,"content_block":{"type":"text","text":""}}`},
		testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":4,"delta":{"type":"citations_delta","citation":` + citation + `}}`},
		testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":4,"delta":{"type":"citations_delta","citation":` + citation2 + `}}`},
		testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":4,"delta":{"type":"text_delta","text":"Claude Shannon was born on April 30, 1916, in Petoskey, Michigan"}}`},
		testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":4}`},
		testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":5,"content_block":{"type":"text","text":""}}`},
		testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":5,"delta":{"type":"text_delta","text":"."}}`},
		testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":5}`},
		testgw.Event{Name: "message_delta", Data: `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":510,"server_tool_use":{"web_search_requests":1}}}`},
		testgw.Event{Name: "message_stop", Data: `{"type":"message_stop"}`},
	)
	citedMessage = `{"id":"msg_01H","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[` +
		`{"type":"text","text":"I'll search for that."},` +
		`{"type":"server_tool_use","id":"srvtoolu_01WYG3ziw53XMcoyKL4XcZmE","name":"web_search","input":{"query":"claude shannon birth date"}},` +
		searchBlock + `,` +
		`{"type":"text","text":"<thinking>The first result has the date.</thinking>Based on the search results, "},` +
		`{"type":"text","text":"Claude Shannon was born on April 30, 1916, in Petoskey, Michigan","citations":[` + citation + `,` + citation2 + `]},` +
		`{"type":"text","text":"."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":510}}`
)

// checkCited checks the content both modes must give the client.
func checkCited(t *testing.T, content []anthropic.ContentBlockUnion) {
	t.Helper()
	var got []string
	for _, b := range content {
		line := b.Type + " " + b.Text + b.Thinking + b.Name
		for _, c := range b.Citations {
			line += " [" + c.URL + " | " + c.CitedText + "]"
		}
		got = append(got, line)
	}
	testgw.Diff(t, "content", got, []string{
		"text I'll search for that.",
		"server_tool_use web_search",
		"web_search_tool_result ",
		"thinking The first result has the date.",
		"text Based on the search results, ",
		"text Claude Shannon was born on April 30, 1916, in Petoskey, Michigan" +
			" [https://en.wikipedia.org/wiki/Claude_Shannon | Claude Elwood Shannon (April 30, 1916 – February 24, 2001) was an American mathematician]" +
			" [https://www.britannica.com/biography/Claude-Shannon | Shannon, born in Petoskey, Michigan]",
		"text .",
	})
}

// TestCitations: with split_tags on, citations_delta events and the
// citations of a non-streaming text block reach the client on the text
// block they belong to.
func TestCitations(t *testing.T) {
	for _, provider := range splitProviders {
		t.Run(provider, func(t *testing.T) {
			up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				if b, _ := io.ReadAll(r.Body); strings.Contains(string(b), `"stream":true`) {
					testgw.WriteChunks(w, "text/event-stream", citedSSE, 13)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, citedMessage)
			})
			gw := testgw.Start(t, testgw.SlotAnthropic, splitSite(provider, "", up))
			msg, _ := gw.Stream(params())
			checkCited(t, msg.Content)
			delta := func(c string) string {
				return `{"type":"content_block_delta","index":5,"delta":{"type":"citations_delta","citation":` + c + `}}`
			}
			testgw.Diff(t, "events", summaryOf(t, gw), []string{
				"message_start",
				`content_block_start 0 {"type":"text","text":""}`,
				`text_delta 0 "I'll search for that."`,
				"content_block_stop 0",
				`content_block_start 1 {"type":"server_tool_use","id":"srvtoolu_01WYG3ziw53XMcoyKL4XcZmE","name":"web_search","input":{}}`,
				`input_json_delta 1 "{\"query\":\"claude shannon birth date\"}"`,
				"content_block_stop 1",
				"content_block_start 2 " + searchBlock,
				"content_block_stop 2",
				`content_block_start 3 {"type":"thinking","thinking":""}`,
				`thinking_delta 3 "The first result has the date."`,
				"signature_delta 3 " + q(msg.Content[3].Signature),
				"content_block_stop 3",
				`content_block_start 4 {"type":"text","text":""}`,
				`text_delta 4 "Based on the search results, "`,
				"content_block_stop 4",
				`content_block_start 5 {"type":"text","text":""}`,
				"citations_delta 5 " + q(delta(citation)+delta(citation2)),
				`text_delta 5 "Claude Shannon was born on April 30, 1916, in Petoskey, Michigan"`,
				"content_block_stop 5",
				`content_block_start 6 {"type":"text","text":""}`,
				`text_delta 6 "."`,
				"content_block_stop 6",
				"message_delta end_turn",
				"message_stop",
			})

			client := gw.Client()
			m, err := client.Messages.New(context.Background(), params())
			if err != nil {
				t.Fatal(err)
			}
			checkCited(t, m.Content)
		})
	}
}

func q(s string) string { b, _ := json.Marshal(s); return string(b) }
