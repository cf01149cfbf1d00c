package reliability_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

const messageRequest = `{"model":"claude-test","max_tokens":1024,"messages":[{"role":"user","content":"hi"}]}`

const anthropicMessage = `{"id":"msg_1","type":"message","role":"assistant","model":"up","content":[{"type":"text","text":"hello"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`

// TestUpstreamRedirect: an upstream's 3xx becomes a 502 api_error without
// its Location, on translating and passthrough providers alike, and the
// gateway does not follow it.
func TestUpstreamRedirect(t *testing.T) {
	for _, c := range []struct{ name, site string }{
		{"anthropic split_tags", "thinkgate anthropic {\n\tsplit_tags\n}"},
		{"anthropic passthrough", "thinkgate anthropic {\n\tapi_key short\n}"},
		{"openai", "thinkgate openai {\n\tapi_key sk-operator-key-1\n}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Location", "http://127.0.0.1:1/collect")
				w.WriteHeader(http.StatusTemporaryRedirect)
			})
			gw := testgw.Start(t, slot, c.site+"\nreverse_proxy "+up.Addr())
			res, body := gw.PostRead("/v1/messages", streamRequest)
			want := `{"type":"error","error":{"type":"api_error","message":"the upstream answered with a redirect (307), which the gateway does not follow"}}`
			if res.StatusCode != 502 || body != want || res.Header.Get("Location") != "" {
				t.Fatalf("got %d %s, Location %q", res.StatusCode, body, res.Header.Get("Location"))
			}
			if n := len(up.Requests()); n != 1 {
				t.Fatalf("the upstream got %d requests", n)
			}
		})
	}
}

// TestUpstreamResponseHeaders: a translating provider passes only
// Retry-After, the request id (as X-Upstream-Request-Id) and, when the
// option says so, rate-limit headers; the anthropic passthrough keeps
// Anthropic's headers but never Set-Cookie.
func TestUpstreamResponseHeaders(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Set-Cookie", "upstream_session=secret; Path=/")
		h.Set("Openai-Organization", "org-operator")
		h.Set("Anthropic-Organization-Id", "org-uuid")
		h.Set("X-Ratelimit-Remaining-Requests", "99")
		h.Set("Anthropic-Ratelimit-Tokens-Remaining", "5000")
		h.Set("Request-Id", "req_upstream_1")
		_, _ = io.WriteString(w, anthropicMessage)
	})
	absent := []string{"Set-Cookie", "Openai-Organization", "Anthropic-Organization-Id"}
	check := func(t *testing.T, res *http.Response, body string, want map[string]string, absent []string) {
		t.Helper()
		if res.StatusCode != 200 || !strings.Contains(body, `"text":"hello"`) {
			t.Fatalf("%d %s", res.StatusCode, body)
		}
		for k, v := range want {
			if got := res.Header.Get(k); got != v {
				t.Errorf("%s = %q, want %q", k, got, v)
			}
		}
		for _, k := range absent {
			if v := res.Header.Values(k); len(v) > 0 {
				t.Errorf("%s reached the client: %q", k, v)
			}
		}
	}
	t.Run("translating", func(t *testing.T) {
		gw := gateway(t, up, "")
		res, body := gw.PostRead("/v1/messages", messageRequest)
		check(t, res, body, map[string]string{"X-Upstream-Request-Id": "req_upstream_1", "Content-Type": "application/json"},
			append(absent, "X-Ratelimit-Remaining-Requests", "Anthropic-Ratelimit-Tokens-Remaining", "Request-Id"))
	})
	t.Run("translating with forward_rate_limit_headers", func(t *testing.T) {
		gw := gateway(t, up, "\tforward_rate_limit_headers")
		res, body := gw.PostRead("/v1/messages", messageRequest)
		check(t, res, body, map[string]string{"X-Upstream-Request-Id": "req_upstream_1",
			"X-Ratelimit-Remaining-Requests": "99", "Anthropic-Ratelimit-Tokens-Remaining": "5000"}, absent)
	})
	t.Run("anthropic passthrough", func(t *testing.T) {
		gw := testgw.Start(t, slot, "thinkgate anthropic\nreverse_proxy "+up.Addr())
		res, body := gw.PostRead("/v1/messages", messageRequest)
		check(t, res, body, map[string]string{"Request-Id": "req_upstream_1", "Anthropic-Organization-Id": "org-uuid",
			"Anthropic-Ratelimit-Tokens-Remaining": "5000"}, []string{"Set-Cookie"})
	})
}

// TestSecretsScrubbedFromUpstreamErrors: an upstream error message that
// echoes the configured api_key (or signing_key) reaches the client with
// the key replaced, on every provider, in HTTP errors and stream error
// events.
func TestSecretsScrubbedFromUpstreamErrors(t *testing.T) {
	const key = "sk-operator-5f3a9c1e"
	for _, c := range []struct {
		name, site, ctype, body string
		status                  int
	}{
		{"anthropic", "thinkgate anthropic {\n\tapi_key " + key + "\n}", "application/json",
			`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key ` + key + `"}}`, 401},
		{"anthropic signing_key", "thinkgate anthropic {\n\tsplit_tags\n\tsigning_key " + key + "\n}", "text/plain",
			"debug dump: " + key, 500},
		{"azure", "thinkgate azure {\n\tapi_key " + key + "\n}", "application/json",
			`{"error":{"code":"401","message":"Access denied due to invalid subscription key ` + key + `."}}`, 401},
		{"openai", "thinkgate openai {\n\tapi_key " + key + "\n}", "application/json",
			`{"error":{"message":"Incorrect API key provided: ` + key + `","type":"invalid_request_error","code":"invalid_api_key"}}`, 401},
		{"gemini", "thinkgate gemini {\n\tapi_key " + key + "\n}", "application/json",
			`{"error":{"code":400,"message":"API key not valid: ` + key + `","status":"INVALID_ARGUMENT"}}`, 400},
		{"amazonq", "thinkgate amazonq {\n\tapi_key " + key + "\n}", "application/json",
			`{"__type":"AccessDeniedException","message":"bearer token ` + key + ` is expired"}`, 403},
	} {
		t.Run(c.name, func(t *testing.T) {
			up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", c.ctype)
				w.WriteHeader(c.status)
				_, _ = io.WriteString(w, c.body)
			})
			gw := testgw.Start(t, slot, c.site+"\nreverse_proxy "+up.Addr())
			res, body := gw.PostRead("/v1/messages", strings.Replace(streamRequest, "claude-test", "claude-opus-4-6", 1))
			var e struct {
				Type  string `json:"type"`
				Error struct{ Type, Message string }
			}
			if err := json.Unmarshal([]byte(body), &e); err != nil || e.Type != "error" || res.StatusCode != c.status {
				t.Fatalf("%d %s", res.StatusCode, body)
			}
			if strings.Contains(body, key) || !strings.Contains(e.Error.Message, "[redacted]") {
				t.Fatalf("the key is not scrubbed: %s", body)
			}
		})
	}
	t.Run("stream error event", func(t *testing.T) {
		up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
			testgw.WriteChunks(w, "text/event-stream", testgw.SSE(messageStart(), textStart(), textDelta("partial"),
				testgw.Event{Name: "error", Data: `{"type":"error","error":{"type":"overloaded_error","message":"retry with key ` + key + `"}}`}), 64)
		})
		gw := gateway(t, up, "\tapi_key "+key)
		_, body := gw.PostRead("/v1/messages", streamRequest)
		testgw.Diff(t, "events", testgw.Summary(t, testgw.ReadEvents(t, strings.NewReader(body))), []string{
			"message_start",
			`content_block_start 0 {"type":"text","text":""}`,
			`text_delta 0 "partial"`,
			"content_block_stop 0",
			`error {"type":"overloaded_error","message":"retry with key [redacted]"}`,
		})
	})
}

// TestUpstreamIdleTimeout: a stream whose upstream goes silent ends with a
// timeout_error event after upstream_idle_timeout, although pings kept it
// alive, and the upstream request is cancelled.
func TestUpstreamIdleTimeout(t *testing.T) {
	cancelled := make(chan struct{})
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		testgw.WriteChunks(w, "text/event-stream", testgw.SSE(messageStart(), textStart(), textDelta("then silence")), 1<<20)
		select {
		case <-r.Context().Done():
			close(cancelled)
		case <-time.After(10 * time.Second):
		}
	})
	gw := gateway(t, up, "\tkeepalive 100ms\n\tupstream_idle_timeout 600ms")
	start := time.Now()
	_, body := gw.PostRead("/v1/messages", streamRequest)
	took := time.Since(start)
	sum := testgw.Summary(t, testgw.ReadEvents(t, strings.NewReader(body)))
	var pings int
	var rest []string
	for _, l := range sum {
		if l == "ping" {
			pings++
		} else {
			rest = append(rest, l)
		}
	}
	testgw.Diff(t, "events", rest, []string{
		"message_start",
		`content_block_start 0 {"type":"text","text":""}`,
		`text_delta 0 "then silence"`,
		"content_block_stop 0",
		`error {"type":"timeout_error","message":"the upstream sent nothing for 600ms (upstream_idle_timeout)"}`,
	})
	if pings == 0 || took < 600*time.Millisecond || took > 5*time.Second {
		t.Errorf("%d pings, stream took %v", pings, took)
	}
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream request was not cancelled")
	}
}

// TestNothingAfterThinkgate: without reverse_proxy after thinkgate the client
// gets a 502 that names the fix, not an empty 200.
func TestNothingAfterThinkgate(t *testing.T) {
	gw := testgw.Start(t, slot, "thinkgate openai")
	res, body := gw.PostRead("/v1/messages", messageRequest)
	want := `{"type":"error","error":{"type":"api_error","message":"thinkgate: nothing answered the request: add reverse_proxy with the upstream's address after thinkgate, in the same route"}}`
	if res.StatusCode != 502 || body != want {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	client := gw.Client()
	_, err := client.Messages.New(context.Background(), params())
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 502 {
		t.Fatalf("SDK: %v", err)
	}
}

// TestUpstreamTLSFailure: an upstream whose certificate is not trusted is a
// 502 that says so, without the upstream's address.
func TestUpstreamTLSFailure(t *testing.T) {
	tlsUp := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer tlsUp.Close()
	addr := strings.TrimPrefix(tlsUp.URL, "https://")
	gw := testgw.Start(t, slot, "thinkgate openai\nreverse_proxy https://"+addr)
	res, body := gw.PostRead("/v1/messages", messageRequest)
	want := `{"type":"error","error":{"type":"api_error","message":"upstream request failed: TLS: the upstream's certificate was not accepted"}}`
	if res.StatusCode != 502 || body != want {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
}

// TestNonStreamingAnswerTooLarge: a non-streaming answer past the buffer
// limit is reported as such, not as a lost connection.
func TestNonStreamingAnswerTooLarge(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		chunk := []byte(strings.Repeat("x", 1<<20))
		for range 65 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	gw := gateway(t, up, "")
	res, body := gw.PostRead("/v1/messages", messageRequest)
	want := `{"type":"error","error":{"type":"api_error","message":"the upstream's non-streaming answer exceeds the gateway's 64 MiB limit; use streaming"}}`
	if res.StatusCode != 502 || body != want {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
}

// histogram returns a histogram's _count and _sum for the labels.
func histogram(t *testing.T, gw *testgw.Gateway, name string, labels map[string]string) (count, sum float64) {
	return gw.Metric(t, name+"_count", labels), gw.Metric(t, name+"_sum", labels)
}

// TestTimeToFirstContent: time_to_first_content_seconds measures the first
// content delta, time_to_first_byte_seconds the message_start that the
// headers' arrival sends.
func TestTimeToFirstContent(t *testing.T) {
	const delay = 400 * time.Millisecond
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		_, _ = w.Write(testgw.SSE(messageStart(), textStart()))
		_ = rc.Flush()
		time.Sleep(delay)
		_, _ = w.Write(testgw.SSE(append([]testgw.Event{textDelta("late")}, streamEnd()...)...))
	})
	gw := metricsGateway(t, up)
	labels := map[string]string{"provider": "anthropic"}
	c0, s0 := histogram(t, gw, "caddy_thinkgate_time_to_first_content_seconds", labels)
	b0, bs0 := histogram(t, gw, "caddy_thinkgate_time_to_first_byte_seconds", labels)
	res, _ := gw.PostRead("/v1/messages", streamRequest)
	if res.StatusCode != 200 {
		t.Fatal(res.Status)
	}
	c1, s1 := histogram(t, gw, "caddy_thinkgate_time_to_first_content_seconds", labels)
	b1, bs1 := histogram(t, gw, "caddy_thinkgate_time_to_first_byte_seconds", labels)
	if c1-c0 != 1 || b1-b0 != 1 {
		t.Fatalf("observations: first content %v, first byte %v", c1-c0, b1-b0)
	}
	content, first := s1-s0, bs1-bs0
	if content < delay.Seconds() || first >= delay.Seconds() {
		t.Fatalf("time to first content %.3fs, to first byte %.3fs, the content came %v after the headers", content, first, delay)
	}
}

// TestShutdownEndsOpenStreams: when the grace period of a graceful stop runs
// out, a stream still open (its upstream silent, pings keeping it alive)
// ends with an overloaded_error event before Caddy closes the connection.
func TestShutdownEndsOpenStreams(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		testgw.WriteChunks(w, "text/event-stream", testgw.SSE(messageStart(), textStart(), textDelta("working")), 1<<20)
		<-r.Context().Done()
	})
	p := testgw.PortsFor(slot)
	preamble := strings.Replace(testgw.Preamble(p), "grace_period 1ns", "grace_period 2s", 1)
	testgw.StartConfig(t, slot, preamble+fmt.Sprintf("\nhttp://localhost:%d {\n%s\n}\n", p.HTTP,
		anthropicSite(up, "\tkeepalive 100ms")))
	req, _ := http.NewRequest("POST", fmt.Sprintf("http://127.0.0.1:%d/v1/messages", p.HTTP), strings.NewReader(streamRequest))
	req.Host = fmt.Sprintf("localhost:%d", p.HTTP) // the site's address
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Timeout: 10 * time.Second}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	br := bufio.NewReader(res.Body)
	if line, err := br.ReadString('\n'); err != nil || line != "event: message_start\n" {
		t.Fatalf("%s %v: first line %q, %v", res.Status, res.Header, line, err)
	}
	// A new config stops the old one's server: its grace period begins.
	stopped := time.Now()
	testgw.Start(t, slot, "respond ok")
	rest, err := io.ReadAll(br)
	took := time.Since(stopped)
	if err != nil {
		t.Fatalf("stream cut after %v: %v", took, err)
	}
	sum := testgw.Summary(t, testgw.ReadEvents(t, strings.NewReader("event: message_start\n"+string(rest))))
	if last := sum[len(sum)-1]; last != `error {"type":"overloaded_error","message":"the gateway is shutting down; retry the request"}` {
		t.Fatalf("stream ended with %s", last)
	}
	// The grace period is 2s and the streams end a second before it.
	if took < 500*time.Millisecond || took > 2*time.Second {
		t.Fatalf("the stream ended %v after the stop began", took)
	}
}
