// Package tracing_test runs thinkgate behind Caddy's tracing directive, with
// the OTLP exporter sending to a receiver in the test, and checks the
// GenAI attributes of the spans it decodes (docs/operations.md#traces).
package tracing_test

import (
	"compress/gzip"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/thinkgate/thinkgate/internal/testgw"
	"github.com/thinkgate/thinkgate/providers/openai/openaitest"
)

// slot is this package's own ports (testgw's list names the older packages).
const slot = testgw.SlotTracing

const clientKey = "tg-client-key-1"

// clientID is thinkgate's id of the client presenting clientKey.
var clientID = func() string { s := sha256.Sum256([]byte(clientKey)); return hex.EncodeToString(s[:]) }()

// site puts thinkgate under Caddy's tracing directive.
func site(thinkgate, upstream string) string {
	return fmt.Sprintf("tracing {\n\tspan thinkgate\n}\n%s\nreverse_proxy %s", thinkgate, upstream)
}

func request(stream bool) string {
	return fmt.Sprintf(`{"model":"claude-test","max_tokens":1000,"stream":%v,"messages":[{"role":"user","content":"What is 2+2?"}]}`, stream)
}

// exchange is one traced request: what the client got and its span.
type exchange struct {
	status      int
	body        string
	id          string // the message id the client got
	span        *tracepb.Span
	traceparent string // what the upstream received
}

// send posts body with a traceparent of a new trace and returns the
// exchange once its span is exported.
func send(t *testing.T, gw *testgw.Gateway, up *testgw.Upstream, body string, headers ...string) exchange {
	t.Helper()
	traceID, parentID := randomHex(16), randomHex(8)
	headers = append(headers, "traceparent", "00-"+traceID+"-"+parentID+"-01")
	res, got := gw.PostRead("/v1/messages", body, headers...)
	x := exchange{status: res.StatusCode, body: got, span: otlp.span(t, traceID)}
	if parent := hex.EncodeToString(x.span.ParentSpanId); parent != parentID {
		t.Errorf("span's parent %s, want the client's %s", parent, parentID)
	}
	x.id = messageID(got)
	if up != nil && len(up.Requests()) > 0 {
		x.traceparent = up.Last(t).Header.Get("Traceparent")
	}
	return x
}

// messageID reads the id of a Message or of a stream's message_start.
func messageID(body string) string {
	if strings.HasPrefix(body, "event:") {
		_, data, _ := strings.Cut(body, "data: ")
		data, _, _ = strings.Cut(data, "\n")
		body = data
	}
	var v struct {
		ID      string `json:"id"`
		Message struct {
			ID string `json:"id"`
		} `json:"message"`
	}
	_ = json.Unmarshal([]byte(body), &v)
	return v.ID + v.Message.ID
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// checkUpstreamTrace: the upstream got the trace context of the span, as
// reverse_proxy alone would send it.
func checkUpstreamTrace(t *testing.T, x exchange) {
	t.Helper()
	want := "00-" + hex.EncodeToString(x.span.TraceId) + "-" + hex.EncodeToString(x.span.SpanId) + "-01"
	if x.traceparent != want {
		t.Errorf("upstream traceparent %q, want %q (the gateway's span)", x.traceparent, want)
	}
}

// checkSpan compares the span's attributes, and its first-content event and
// status, with what the exchange should have told it.
func checkSpan(t *testing.T, x exchange, stream bool, want []string) {
	t.Helper()
	if x.status != http.StatusOK {
		t.Fatalf("status %d: %s", x.status, x.body)
	}
	got := attrs(x.span.Attributes, "gen_ai.response.time_to_first_chunk")
	testgw.Diff(t, "span attributes", got, want)
	ttfc := attr(x.span.Attributes, "gen_ai.response.time_to_first_chunk")
	first := event(x.span, "thinkgate.first_content")
	if stream {
		if ttfc == "" || first == nil {
			t.Errorf("stream without time_to_first_chunk (%q) or the first-content event (%v)", ttfc, first)
		} else if first.TimeUnixNano < x.span.StartTimeUnixNano || first.TimeUnixNano > x.span.EndTimeUnixNano {
			t.Errorf("first-content event at %d, outside the span [%d, %d]", first.TimeUnixNano, x.span.StartTimeUnixNano, x.span.EndTimeUnixNano)
		}
	} else if ttfc != "" || first != nil {
		t.Errorf("non-streaming answer with time_to_first_chunk %q or a first-content event", ttfc)
	}
	if x.span.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("span status %v for a 200", x.span.Status)
	}
	if e := event(x.span, "gen_ai.client.inference.operation.details"); e != nil {
		t.Errorf("content recorded without trace_content: %v", e)
	}
}

const thinking, answer = "Add them.", "Four."

// TestOpenAI: a Chat Completions upstream, streamed and not.
func TestOpenAI(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"stream":true`) {
			testgw.WriteChunks(w, "text/event-stream",
				openaitest.New().Content("<thinking>"+thinking+"</thinking>"+answer, 4).Finish("stop").Usage(20, 9, 6).Done().Bytes(), 7)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1730000000,"model":"gpt-4.1-mini-2025-04-14","choices":[{"index":0,"message":{"role":"assistant","content":"<thinking>`+
			thinking+`</thinking>`+answer+`"},"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":6}}}`)
	})
	gw := testgw.Start(t, slot, site(`thinkgate openai {
	api_key sk-openai
	client_keys `+clientKey+`
	model claude-* gpt-4.1-mini
	signing_key test-signing-key
}`, up.Addr()))
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			x := send(t, gw, up, request(stream), "x-api-key", clientKey)
			checkSpan(t, x, stream, []string{
				"gen_ai.operation.name=chat",
				"gen_ai.provider.name=openai",
				"gen_ai.request.max_tokens=1000",
				"gen_ai.request.model=claude-test",
				fmt.Sprintf("gen_ai.request.stream=%v", stream),
				"gen_ai.response.finish_reasons=[end_turn]",
				"gen_ai.response.id=" + x.id,
				"gen_ai.response.model=gpt-4.1-mini",
				"gen_ai.usage.cache_creation.input_tokens=0",
				"gen_ai.usage.cache_read.input_tokens=6",
				"gen_ai.usage.input_tokens=14",
				"gen_ai.usage.output_tokens=9",
				"thinkgate.client=" + clientID,
				"thinkgate.provider=openai",
				"thinkgate.thinking_blocks=1",
			})
			checkUpstreamTrace(t, x)
		})
	}
}

// geminiChunk is one GenerateContentResponse of parts, with finishReason and
// usageMetadata when finish is set.
func geminiChunk(parts, finish string) string {
	c := `{"candidates":[{"content":{"parts":[` + parts + `],"role":"model"}`
	if finish != "" {
		c += `,"finishReason":"` + finish + `"`
	}
	c += `,"index":0}]`
	if finish != "" {
		c += `,"usageMetadata":{"promptTokenCount":20,"candidatesTokenCount":5,"thoughtsTokenCount":4,"cachedContentTokenCount":6,"totalTokenCount":29}`
	}
	return c + `,"modelVersion":"gemini-2.5-flash","responseId":"mAeQaL2oFsK"}`
}

// TestGemini: a Gemini upstream with thought parts, streamed and not.
func TestGemini(t *testing.T) {
	thought := `{"text":"` + thinking + `","thought":true}`
	text := `{"text":"` + answer + `"}`
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
			testgw.WriteChunks(w, "text/event-stream",
				[]byte("data: "+geminiChunk(thought, "")+"\r\n\r\ndata: "+geminiChunk(text, "STOP")+"\r\n\r\n"), 11)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, geminiChunk(thought+","+text, "STOP"))
	})
	gw := testgw.Start(t, slot, site(`thinkgate gemini {
	api_key gemini-key
	client_keys `+clientKey+`
	model claude-* gemini-2.5-flash
	signing_key test-signing-key
}`, up.Addr()))
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			x := send(t, gw, up, request(stream), "x-api-key", clientKey)
			checkSpan(t, x, stream, []string{
				"gen_ai.operation.name=chat",
				"gen_ai.provider.name=gcp.gemini",
				"gen_ai.request.max_tokens=1000",
				"gen_ai.request.model=claude-test",
				fmt.Sprintf("gen_ai.request.stream=%v", stream),
				"gen_ai.response.finish_reasons=[end_turn]",
				"gen_ai.response.id=" + x.id,
				"gen_ai.response.model=gemini-2.5-flash",
				"gen_ai.usage.cache_creation.input_tokens=0",
				"gen_ai.usage.cache_read.input_tokens=6",
				"gen_ai.usage.input_tokens=14",
				"gen_ai.usage.output_tokens=9",
				"thinkgate.client=" + clientID,
				"thinkgate.provider=gemini",
				"thinkgate.thinking_blocks=1",
			})
			checkUpstreamTrace(t, x)
		})
	}
}

// anthropicStream is an Anthropic upstream's stream: a thinking block and
// a text block, with cache reads and writes in its usage.
var anthropicStream = testgw.SSE(
	testgw.Event{Name: "message_start", Data: `{"type":"message_start","message":{"id":"msg_01UpstreamId","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":20,"cache_creation_input_tokens":5,"cache_read_input_tokens":7,"output_tokens":1}}}`},
	testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`},
	testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"` + thinking + `"}}`},
	testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}`},
	testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":0}`},
	testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`},
	testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"` + answer + `"}}`},
	testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":1}`},
	testgw.Event{Name: "message_delta", Data: `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9}}`},
	testgw.Event{Name: "message_stop", Data: `{"type":"message_stop"}`},
)

const anthropicMessage = `{"id":"msg_01UpstreamId","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[` +
	`{"type":"thinking","thinking":"` + thinking + `","signature":"c2ln"},{"type":"text","text":"` + answer + `"}],` +
	`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":20,"cache_creation_input_tokens":5,"cache_read_input_tokens":7,"output_tokens":9}}`

// TestAnthropic: an Anthropic upstream passed through untouched, streamed
// and not; the client's name comes from the {http.thinkgate.client}
// placeholder (what thinkgate_clients sets; map stands in for it here).
func TestAnthropic(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"stream":true`) {
			testgw.WriteChunks(w, "text/event-stream", anthropicStream, 13)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, anthropicMessage)
	})
	gw := testgw.Start(t, slot, fmt.Sprintf(`map {http.request.header.X-Team} {http.thinkgate.client} {
	default team-a
}
%s`, site(`thinkgate anthropic {
	api_key sk-ant
	client_keys `+clientKey+`
}`, up.Addr())))
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			x := send(t, gw, up, request(stream), "x-api-key", clientKey)
			if x.id != "msg_01UpstreamId" {
				t.Errorf("the client got message id %q", x.id)
			}
			checkSpan(t, x, stream, []string{
				"gen_ai.operation.name=chat",
				"gen_ai.provider.name=anthropic",
				"gen_ai.request.max_tokens=1000",
				"gen_ai.request.model=claude-test",
				fmt.Sprintf("gen_ai.request.stream=%v", stream),
				"gen_ai.response.finish_reasons=[end_turn]",
				"gen_ai.response.id=msg_01UpstreamId",
				"gen_ai.response.model=claude-sonnet-4-5-20250929",
				"gen_ai.usage.cache_creation.input_tokens=5",
				"gen_ai.usage.cache_read.input_tokens=7",
				"gen_ai.usage.input_tokens=20",
				"gen_ai.usage.output_tokens=9",
				"thinkgate.client=team-a",
				"thinkgate.provider=anthropic",
				"thinkgate.thinking_blocks=1",
			})
			checkUpstreamTrace(t, x)
		})
	}
}

// TestAnthropicNamedClient: one passed-through response, read once, gives
// the span and the named client's count (thinkgate_clients, seen in its
// tokens_total) the same usage, streamed and not, from an upstream that
// answers plain or, asked by the transport, gzip-compressed.
func TestAnthropicNamedClient(t *testing.T) {
	var compress atomic.Bool
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		stream := strings.Contains(string(body), `"stream":true`)
		if compress.Load() && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Type", map[bool]string{true: "text/event-stream", false: "application/json"}[stream])
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			_, _ = io.WriteString(zw, map[bool]string{true: string(anthropicStream), false: anthropicMessage}[stream])
			_ = zw.Close()
			return
		}
		if stream {
			testgw.WriteChunks(w, "text/event-stream", anthropicStream, 13)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, anthropicMessage)
	})
	gw := testgw.Start(t, slot, `handle /metrics {
	metrics
}
thinkgate_clients /v1/* {
	client metered {
		key metered-key
		tokens_per_day 1000000
	}
}
`+site(`thinkgate anthropic {
	api_key sk-ant
}`, up.Addr()))
	counted := func(direction string) float64 {
		return gw.Metric(t, "caddy_thinkgate_tokens_total", map[string]string{"client": "metered", "provider": "anthropic", "direction": direction})
	}
	usage := []struct {
		direction, attr string
		want            float64 // the upstream's usage
	}{
		{"input", "gen_ai.usage.input_tokens", 20},
		{"output", "gen_ai.usage.output_tokens", 9},
		{"cache_read", "gen_ai.usage.cache_read.input_tokens", 7},
		{"cache_creation", "gen_ai.usage.cache_creation.input_tokens", 5},
	}
	for _, c := range []struct{ stream, gzip bool }{{true, false}, {false, false}, {true, true}, {false, true}} {
		stream := c.stream
		t.Run(fmt.Sprintf("stream=%v/gzip=%v", c.stream, c.gzip), func(t *testing.T) {
			compress.Store(c.gzip)
			before := map[string]float64{}
			for _, u := range usage {
				before[u.direction] = counted(u.direction)
			}
			x := send(t, gw, up, request(stream), "x-api-key", "metered-key")
			if x.status != http.StatusOK || x.id != "msg_01UpstreamId" {
				t.Fatalf("the client got %d, message id %q: %s", x.status, x.id, x.body)
			}
			if got := up.Last(t).Header.Get("Accept-Encoding"); got != "gzip" {
				t.Errorf("upstream Accept-Encoding %q, want the transport's gzip", got)
			}
			if got := attr(x.span.Attributes, "thinkgate.client"); got != "metered" {
				t.Errorf("span's client %q", got)
			}
			// The metrics are recorded before the handler returns, so
			// before the span ends and is exported.
			for _, u := range usage {
				span := attr(x.span.Attributes, u.attr)
				client := counted(u.direction) - before[u.direction]
				if span != fmt.Sprint(u.want) || client != u.want {
					t.Errorf("%s: the span says %q, the client counted %v, want both %v", u.direction, span, client, u.want)
				}
			}
		})
	}
}

// TestFailure: an upstream error sets the span's error status and
// error.type, the Anthropic error type the client got.
func TestFailure(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`)
	})
	gw := testgw.Start(t, slot, site(`thinkgate openai {
	api_key sk-openai
	model claude-* gpt-4.1-mini
}`, up.Addr()))
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			x := send(t, gw, up, request(stream))
			if x.status != http.StatusTooManyRequests || !strings.Contains(x.body, `"type":"rate_limit_error"`) {
				t.Fatalf("client got %d %s", x.status, x.body)
			}
			testgw.Diff(t, "span attributes", attrs(x.span.Attributes), []string{
				"error.type=rate_limit_error",
				"gen_ai.operation.name=chat",
				"gen_ai.provider.name=openai",
				"gen_ai.request.max_tokens=1000",
				"gen_ai.request.model=claude-test",
				fmt.Sprintf("gen_ai.request.stream=%v", stream),
				"gen_ai.response.model=gpt-4.1-mini",
				"thinkgate.provider=openai",
				"thinkgate.thinking_blocks=0",
			})
			if x.span.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || x.span.Status.GetMessage() != "rate_limit_error" {
				t.Errorf("span status %v, want an error", x.span.Status)
			}
		})
	}
}

// fallbackSite is a fallback from an OpenAI-compatible first step to a
// Gemini second, under tracing.
func fallbackSite(first, second string) string {
	return fmt.Sprintf(`tracing {
	span thinkgate
}
thinkgate_fallback {
	try {
		thinkgate openai {
			api_key sk-openai
			model claude-* gpt-4.1-mini
		}
		reverse_proxy %s
	}
	try {
		thinkgate gemini {
			api_key gemini-key
			model claude-* gemini-2.5-flash
			signing_key test-signing-key
		}
		reverse_proxy %s
	}
}`, first, second)
}

// TestFallback: the span carries the answering step's attributes and its
// number, an event for the step that failed over, and no error; when the
// last step fails too, the span fails with its error.
func TestFallback(t *testing.T) {
	first := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":{"message":"overloaded","type":"server_error"}}`)
	})
	secondFails := false
	second := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if secondFails {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}`)
			return
		}
		if strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
			testgw.WriteChunks(w, "text/event-stream", []byte("data: "+geminiChunk(`{"text":"`+answer+`"}`, "STOP")+"\r\n\r\n"), 9)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, geminiChunk(`{"text":"`+answer+`"}`, "STOP"))
	})
	gw := testgw.Start(t, slot, fallbackSite(first.Addr(), second.Addr()))
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			x := send(t, gw, second, request(stream))
			checkSpan(t, x, stream, []string{
				"gen_ai.operation.name=chat",
				"gen_ai.provider.name=gcp.gemini",
				"gen_ai.request.max_tokens=1000",
				"gen_ai.request.model=claude-test",
				fmt.Sprintf("gen_ai.request.stream=%v", stream),
				"gen_ai.response.finish_reasons=[end_turn]",
				"gen_ai.response.id=" + x.id,
				"gen_ai.response.model=gemini-2.5-flash",
				"gen_ai.usage.cache_creation.input_tokens=0",
				"gen_ai.usage.cache_read.input_tokens=6",
				"gen_ai.usage.input_tokens=14",
				"gen_ai.usage.output_tokens=9",
				"thinkgate.fallback.step=2",
				"thinkgate.provider=gemini",
				"thinkgate.thinking_blocks=0",
			})
			e := event(x.span, "thinkgate.fallback.step_failed")
			if e == nil {
				t.Fatal("no event for the failed first step")
			}
			testgw.Diff(t, "failed step event", attrs(e.Attributes), []string{
				"thinkgate.fallback.failure=503",
				"thinkgate.fallback.step=1",
				"thinkgate.provider=openai",
			})
			checkUpstreamTrace(t, x)
			// The first step's upstream got the same trace context.
			if tp := first.Last(t).Header.Get("Traceparent"); tp != x.traceparent {
				t.Errorf("first step's upstream traceparent %q, want %q", tp, x.traceparent)
			}
		})
	}
	t.Run("every step fails", func(t *testing.T) {
		secondFails = true
		defer func() { secondFails = false }()
		x := send(t, gw, second, request(false))
		if x.status != http.StatusTooManyRequests {
			t.Fatalf("client got %d %s", x.status, x.body)
		}
		if got := attr(x.span.Attributes, "error.type"); got != "rate_limit_error" {
			t.Errorf("error.type %q, want rate_limit_error", got)
		}
		if got := attr(x.span.Attributes, "thinkgate.fallback.step"); got != "2" {
			t.Errorf("thinkgate.fallback.step %q, want 2", got)
		}
		// A 4xx: Caddy's HTTP instrumentation leaves a server span's
		// status alone, so this is thinkgate's.
		if x.span.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || x.span.Status.GetMessage() != "rate_limit_error" {
			t.Errorf("span status %v, want an error", x.span.Status)
		}
	})
}

// TestTraceContent: with trace_content the span gets the conventions'
// opt-in event with the request's messages and the response's content,
// the text within the bound.
func TestTraceContent(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"stream":true`) {
			testgw.WriteChunks(w, "text/event-stream", anthropicStream, 13)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, anthropicMessage)
	})
	const req = `{"model":"claude-test","max_tokens":1000,"stream":%v,"system":"Be brief.","messages":[` +
		`{"role":"user","content":"What is 2+2?"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"calc","input":{"expr":"2+2"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"4"},{"type":"text","text":"So?"}]}]}`
	for _, c := range []struct {
		name, bound string
		stream      bool
		want        []string
	}{
		{"stream", "1KiB", true, []string{
			`gen_ai.input.messages=[{"role":"user","parts":[{"type":"text","content":"What is 2+2?"}]},` +
				`{"role":"assistant","parts":[{"type":"tool_call","id":"toolu_1","name":"calc","arguments":{"expr":"2+2"}}]},` +
				`{"role":"user","parts":[{"type":"tool_call_response","content":"4","id":"toolu_1"},{"type":"text","content":"So?"}]}]`,
			`gen_ai.output.messages=[{"role":"assistant","parts":[{"type":"reasoning","content":"Add them."},{"type":"text","content":"Four."}],"finish_reason":"end_turn"}]`,
			`gen_ai.system_instructions=[{"type":"text","content":"Be brief."}]`,
			"thinkgate.content.truncated=false",
		}},
		{"message", "1KiB", false, []string{
			`gen_ai.input.messages=[{"role":"user","parts":[{"type":"text","content":"What is 2+2?"}]},` +
				`{"role":"assistant","parts":[{"type":"tool_call","id":"toolu_1","name":"calc","arguments":{"expr":"2+2"}}]},` +
				`{"role":"user","parts":[{"type":"tool_call_response","content":"4","id":"toolu_1"},{"type":"text","content":"So?"}]}]`,
			`gen_ai.output.messages=[{"role":"assistant","parts":[{"type":"reasoning","content":"Add them."},{"type":"text","content":"Four."}],"finish_reason":"end_turn"}]`,
			`gen_ai.system_instructions=[{"type":"text","content":"Be brief."}]`,
			"thinkgate.content.truncated=false",
		}},
		// 12 bytes each way: the system prompt's 9 and 3 of the first message;
		// the reasoning's 9 and 3 of the answer.
		{"bounded", "12B", true, []string{
			`gen_ai.input.messages=[{"role":"user","parts":[{"type":"text","content":"Wha"}]}]`,
			`gen_ai.output.messages=[{"role":"assistant","parts":[{"type":"reasoning","content":"Add them."},{"type":"text","content":"Fou"}],"finish_reason":"end_turn"}]`,
			`gen_ai.system_instructions=[{"type":"text","content":"Be brief."}]`,
			"thinkgate.content.truncated=true",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			gw := testgw.Start(t, slot, site(`thinkgate anthropic {
	api_key sk-ant
	trace_content `+c.bound+`
}`, up.Addr()))
			x := send(t, gw, up, fmt.Sprintf(req, c.stream))
			if x.status != http.StatusOK {
				t.Fatalf("status %d: %s", x.status, x.body)
			}
			e := event(x.span, "gen_ai.client.inference.operation.details")
			if e == nil {
				t.Fatal("no content event")
			}
			testgw.Diff(t, "content event", attrs(e.Attributes), c.want)
		})
	}
}
