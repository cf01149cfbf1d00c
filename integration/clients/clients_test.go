// Package clients_test runs thinkgate_clients through real Caddy: keys,
// models, every limit, the metrics, and the Redis store shared by two
// gateway processes.
package clients_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

const slot = testgw.SlotClients

// The upstream's usage: 100 input, 20 output, 5 cache-creation and 7
// cache-read tokens; the limits count 100+20+5 = 125 of them.
const (
	usageJSON      = `{"input_tokens":100,"cache_creation_input_tokens":5,"cache_read_input_tokens":7,"output_tokens":20}`
	countedPerCall = 125
)

const (
	messageBody = `{"type":"message","id":"msg_1","role":"assistant","model":"claude-sonnet-4","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","stop_sequence":null,"usage":` + usageJSON + `}`
	request     = `{"model":"claude-sonnet-4","max_tokens":50,"messages":[{"role":"user","content":"Hello"}]}`
	streamReq   = `{"model":"claude-sonnet-4","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"Hello"}]}`
)

// messageStart reports 100 input and 5 cache-creation tokens, and 1 output.
var messageStart = testgw.Event{Name: "message_start", Data: `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":100,"cache_creation_input_tokens":5,"cache_read_input_tokens":7,"output_tokens":1}}}`}

var textStart = testgw.Event{Name: "content_block_start", Data: `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`}

var textDelta = testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}`}

// fullStream ends with message_delta's 20 output tokens.
var fullStream = testgw.SSE(messageStart, textStart, textDelta,
	testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":0}`},
	testgw.Event{Name: "message_delta", Data: `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":20}}`},
	testgw.Event{Name: "message_stop", Data: `{"type":"message_stop"}`})

// anthropicUpstream answers Messages calls in Anthropic's format, a stream
// when asked for one, with its own rate-limit headers (which describe the
// upstream account and must not reach the client).
func anthropicUpstream(t *testing.T) *testgw.Upstream {
	return testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Anthropic-Ratelimit-Requests-Limit", "999999")
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"stream":true`) {
			testgw.WriteChunks(w, "text/event-stream", fullStream, 64)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, messageBody)
	})
}

// site is a site whose clients are clientsBlock, in front of up, with the
// metrics handler the tests read.
func site(clientsBlock string, up *testgw.Upstream) string {
	return fmt.Sprintf(`handle /metrics {
	metrics
}
thinkgate_clients /v1/* {
%s
}
thinkgate anthropic {
	split_tags
	api_key upstream-key
	signing_key test-signing-key
	advertise_models claude-sonnet-4 claude-haiku-4 claude-opus-4
}
reverse_proxy %s`, clientsBlock, up.Addr())
}

// post sends a Messages call with key (none when empty).
func post(t *testing.T, gw *testgw.Gateway, key, body string) (*http.Response, string) {
	t.Helper()
	return postTo(t, gw.URL, key, body)
}

func postTo(t *testing.T, base, key, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("POST", base+"/v1/messages", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("anthropic-version", "2023-06-01")
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// settled waits until the gateway has no Messages call of client open: its
// tokens are then counted (they are, before the open count drops).
func settled(t *testing.T, gw *testgw.Gateway, client string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for gw.Metric(t, "caddy_thinkgate_client_open_streams", map[string]string{"client": client}) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("client %s still has an open request", client)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// freshMinute waits, if need be, for a minute with at least 20 seconds
// left, so that a test's requests fall in one fixed window.
func freshMinute(t *testing.T) {
	t.Helper()
	if left := 60 - time.Now().Unix()%60; left < 20 {
		time.Sleep(time.Duration(left)*time.Second + 100*time.Millisecond)
	}
}

const rateLimited = `{"type":"error","error":{"type":"rate_limit_error","message":"client %s is over its %s limit; retry in %ss"}}`

func wantHeaders(t *testing.T, res *http.Response, kind, limit, remaining string) {
	t.Helper()
	h := res.Header
	if got := h.Values("Anthropic-Ratelimit-" + kind + "-Limit"); len(got) != 1 || got[0] != limit {
		t.Errorf("%s limit %q, want %s", kind, got, limit)
	}
	if got := h.Get("Anthropic-Ratelimit-" + kind + "-Remaining"); got != remaining {
		t.Errorf("%s remaining %q, want %s", kind, got, remaining)
	}
	if _, err := time.Parse(time.RFC3339, h.Get("Anthropic-Ratelimit-"+kind+"-Reset")); err != nil {
		t.Errorf("%s reset %q: %v", kind, h.Get("Anthropic-Ratelimit-"+kind+"-Reset"), err)
	}
}

// bodyCounter is a test handler that runs first in the site and counts the
// bytes the handlers after it read from the request body. (Caddy's server
// drains an unread HTTP/1 body after the handlers are done, to keep the
// connection; that read is below this handler and not counted.)
type bodyCounter struct{}

var bodyBytesRead atomic.Int64

func (bodyCounter) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.test_body_counter", New: func() caddy.Module { return bodyCounter{} }}
}

func (bodyCounter) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	r.Body = &countingBody{ReadCloser: r.Body}
	return next.ServeHTTP(w, r)
}

type countingBody struct{ io.ReadCloser }

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	bodyBytesRead.Add(int64(n))
	return n, err
}

func init() {
	caddy.RegisterModule(bodyCounter{})
	httpcaddyfile.RegisterHandlerDirective("test_body_counter", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		h.Next()
		return bodyCounter{}, nil
	})
	httpcaddyfile.RegisterDirectiveOrder("test_body_counter", httpcaddyfile.Before, "request_header") // before thinkgate_clients
}

// TestUnknownKeyBodyNeverRead: a missing or unknown key gets the 401
// before any matcher or handler reads the body, though a thinkgate matcher
// guards the site's routes.
func TestUnknownKeyBodyNeverRead(t *testing.T) {
	up := anthropicUpstream(t)
	gw := testgw.Start(t, slot, fmt.Sprintf(`test_body_counter
thinkgate_clients {
	client alice {
		key alice-key
	}
}
@sonnet thinkgate model claude-sonnet-*
handle @sonnet {
	thinkgate anthropic {
		signing_key test-signing-key
	}
	reverse_proxy %s
}
handle {
	respond "no route" 404
}`, up.Addr()))
	send := func(key string) (int, string, int64) {
		bodyBytesRead.Store(0)
		req, _ := http.NewRequest("POST", gw.URL+"/v1/messages", strings.NewReader(request))
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("key %q: %v", key, err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res.StatusCode, string(b), bodyBytesRead.Load()
	}
	const unauthorized = `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`
	for _, key := range []string{"", "mallory-key", "alice-key-but-longer", "alice-ke"} {
		status, body, read := send(key)
		if status != 401 || body != unauthorized || read != 0 {
			t.Errorf("key %q: status %d, body %s, %d body bytes read; want 401, %s, 0", key, status, body, read, unauthorized)
		}
	}
	if n := len(up.Requests()); n != 0 {
		t.Errorf("the upstream got %d requests", n)
	}
	// The same request with alice's key is read (by the matcher) and served.
	status, _, read := send("alice-key")
	if status != 200 || read != int64(len(request)) {
		t.Errorf("alice: status %d, %d body bytes read; want 200, %d", status, read, len(request))
	}
}

// TestClientNamed: the client's name is in {http.thinkgate.client} for the
// header directive, routes with the matcher's client condition, and is in
// the access log; its key never goes upstream.
func TestClientNamed(t *testing.T) {
	main, other := anthropicUpstream(t), anthropicUpstream(t)
	logFile := t.TempDir() + "/access.log"
	p := testgw.PortsFor(slot)
	cfg := testgw.Preamble(p) + fmt.Sprintf(`
http://localhost:%d {
	log {
		output file %s
	}
	header >X-Client {http.thinkgate.client}
	thinkgate_clients {
		client alice {
			key alice-key
		}
		client bob {
			key bob-key
		}
	}
	@bobs thinkgate client bo*
	handle @bobs {
		thinkgate anthropic {
			api_key upstream-key
			signing_key test-signing-key
		}
		reverse_proxy %s
	}
	handle {
		thinkgate anthropic {
			api_key upstream-key
			signing_key test-signing-key
		}
		reverse_proxy %s
	}
}`, p.HTTP, logFile, other.Addr(), main.Addr())
	gw := testgw.StartConfig(t, slot, cfg)
	res, _ := post(t, gw, "alice-key", request)
	if res.StatusCode != 200 || res.Header.Get("X-Client") != "alice" {
		t.Fatalf("alice: status %d, X-Client %q", res.StatusCode, res.Header.Get("X-Client"))
	}
	res, _ = post(t, gw, "bob-key", request)
	if res.StatusCode != 200 || res.Header.Get("X-Client") != "bob" {
		t.Fatalf("bob: status %d, X-Client %q", res.StatusCode, res.Header.Get("X-Client"))
	}
	if len(main.Requests()) != 1 || len(other.Requests()) != 1 {
		t.Fatalf("main upstream got %d requests, bob's %d; want 1 and 1", len(main.Requests()), len(other.Requests()))
	}
	for _, c := range append(main.Requests(), other.Requests()...) {
		if c.Header.Get("X-Api-Key") != "upstream-key" || c.Header.Get("Authorization") != "" {
			t.Errorf("upstream saw x-api-key %q, authorization %q", c.Header.Get("X-Api-Key"), c.Header.Get("Authorization"))
		}
	}
	access := testgw.ReadFile(t, logFile)
	for _, want := range []string{`"thinkgate_client":"alice"`, `"thinkgate_client":"bob"`} {
		if !strings.Contains(access, want) {
			t.Errorf("access log lacks %s:\n%s", want, access)
		}
	}
}

// TestModels: a model outside the client's globs gets 403 naming it and
// never reaches the upstream; the model list shows only the client's.
func TestModels(t *testing.T) {
	up := anthropicUpstream(t)
	gw := testgw.Start(t, slot, site(`client alice {
	key alice-key
	models claude-sonnet-* claude-haiku-*
}
client root {
	key root-key
}`, up))
	res, body := post(t, gw, "alice-key", strings.Replace(request, "claude-sonnet-4", "claude-opus-4", 1))
	want := `{"type":"error","error":{"type":"permission_error","message":"model claude-opus-4: not available to client alice"}}`
	if res.StatusCode != 403 || body != want {
		t.Errorf("opus: %d %s, want 403 %s", res.StatusCode, body, want)
	}
	if n := len(up.Requests()); n != 0 {
		t.Errorf("the upstream got %d requests", n)
	}
	if res, _ := post(t, gw, "alice-key", request); res.StatusCode != 200 {
		t.Errorf("sonnet: %d", res.StatusCode)
	}
	list := func(key string) string {
		req, _ := http.NewRequest("GET", gw.URL+"/v1/models", nil)
		req.Header.Set("x-api-key", key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	model := func(id string) string {
		return fmt.Sprintf(`{"type":"model","id":"%s","display_name":"%s","created_at":"1970-01-01T00:00:00Z"}`, id, id)
	}
	if got, want := list("alice-key"), `{"data":[`+model("claude-sonnet-4")+`,`+model("claude-haiku-4")+`],"has_more":false,"first_id":"claude-sonnet-4","last_id":"claude-haiku-4"}`; got != want {
		t.Errorf("alice's models\n got %s\nwant %s", got, want)
	}
	if got := list("root-key"); !strings.Contains(got, `"last_id":"claude-opus-4"`) {
		t.Errorf("root's models: %s", got)
	}
}

// TestRequestsPerMinute: the limit's requests pass with the headers
// counting down, the next gets 429 with retry-after, and never reaches the
// upstream.
func TestRequestsPerMinute(t *testing.T) {
	up := anthropicUpstream(t)
	gw := testgw.Start(t, slot, site(`client rpm {
	key rpm-key
	requests_per_minute 3
}`, up))
	freshMinute(t)
	for i, remaining := range []string{"2", "1", "0"} {
		res, _ := post(t, gw, "rpm-key", request)
		if res.StatusCode != 200 {
			t.Fatalf("request %d: %d", i+1, res.StatusCode)
		}
		wantHeaders(t, res, "Requests", "3", remaining)
		if res.Header.Get("Anthropic-Ratelimit-Tokens-Limit") != "" {
			t.Errorf("a tokens limit header without a tokens limit: %v", res.Header)
		}
	}
	res, body := post(t, gw, "rpm-key", request)
	retry := res.Header.Get("Retry-After")
	if n, err := strconv.Atoi(retry); err != nil || n < 1 || n > 60 {
		t.Fatalf("retry-after %q", retry)
	}
	if want := fmt.Sprintf(rateLimited, "rpm", "requests_per_minute 3", retry); res.StatusCode != 429 || body != want {
		t.Errorf("4th: %d %s, want 429 %s", res.StatusCode, body, want)
	}
	wantHeaders(t, res, "Requests", "3", "0")
	if n := len(up.Requests()); n != 3 {
		t.Errorf("the upstream got %d requests, want 3", n)
	}
	if got := gw.Metric(t, "caddy_thinkgate_client_rate_limited_total", map[string]string{"client": "rpm", "limit": "requests_per_minute"}); got != 1 {
		t.Errorf("rate_limited_total %v, want 1", got)
	}
}

// TestTokensPerMinute: tokens count input + output + cache creation when a
// response ends; once the window holds the limit, the next request gets 429.
func TestTokensPerMinute(t *testing.T) {
	up := anthropicUpstream(t)
	gw := testgw.Start(t, slot, site(`client tpm {
	key tpm-key
	tokens_per_minute 200
}`, up))
	freshMinute(t)
	res, _ := post(t, gw, "tpm-key", request)
	wantHeaders(t, res, "Tokens", "200", "200")
	settled(t, gw, "tpm")
	res, _ = post(t, gw, "tpm-key", request)
	wantHeaders(t, res, "Tokens", "200", strconv.Itoa(200-countedPerCall))
	settled(t, gw, "tpm")
	res, body := post(t, gw, "tpm-key", request)
	if want := fmt.Sprintf(rateLimited, "tpm", "tokens_per_minute 200", res.Header.Get("Retry-After")); res.StatusCode != 429 || body != want {
		t.Errorf("3rd: %d %s, want 429 %s", res.StatusCode, body, want)
	}
	wantHeaders(t, res, "Tokens", "200", "0")
	if n := len(up.Requests()); n != 2 {
		t.Errorf("the upstream got %d requests, want 2", n)
	}
}

// TestTokensPerDay: the day window resets at the next UTC midnight, which
// the reset header and retry-after give.
func TestTokensPerDay(t *testing.T) {
	up := anthropicUpstream(t)
	gw := testgw.Start(t, slot, site(`client tpd {
	key tpd-key
	tokens_per_day 100
}`, up))
	post(t, gw, "tpd-key", request)
	settled(t, gw, "tpd")
	before := time.Now()
	res, body := post(t, gw, "tpd-key", request)
	midnight := before.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	if got := res.Header.Get("Anthropic-Ratelimit-Tokens-Reset"); got != midnight.Format(time.RFC3339) {
		t.Errorf("reset %q, want %s", got, midnight.Format(time.RFC3339))
	}
	retry, _ := strconv.Atoi(res.Header.Get("Retry-After"))
	if d := before.Add(time.Duration(retry) * time.Second).Sub(midnight); d < -2*time.Second || d > 2*time.Second {
		t.Errorf("retry-after %ds does not end at midnight UTC (%v off)", retry, d)
	}
	if want := fmt.Sprintf(rateLimited, "tpd", "tokens_per_day 100", strconv.Itoa(retry)); res.StatusCode != 429 || body != want {
		t.Errorf("2nd: %d %s, want 429 %s", res.StatusCode, body, want)
	}
}

// TestStreamTokensCountedAtTheEnd: a stream's tokens are the usage of its
// end (message_delta's output, message_start's input), and a stream the
// client cuts counts what the upstream had reported by then.
func TestStreamTokensCountedAtTheEnd(t *testing.T) {
	cut := make(chan struct{})
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(body), "cut me") {
			testgw.WriteChunks(w, "text/event-stream", fullStream, 64)
			return
		}
		// message_start and one delta, then nothing until the client leaves.
		testgw.WriteChunks(w, "text/event-stream", testgw.SSE(messageStart, textStart, textDelta), 1<<20)
		<-r.Context().Done()
		close(cut)
	})
	gw := testgw.Start(t, slot, site(`client streamer {
	key streamer-key
	tokens_per_minute 1000
}`, up))
	freshMinute(t)
	res, body := post(t, gw, "streamer-key", streamReq)
	if res.StatusCode != 200 || !strings.Contains(body, "event: message_stop") {
		t.Fatalf("stream: %d %s", res.StatusCode, body)
	}
	settled(t, gw, "streamer")

	req, _ := http.NewRequest("POST", gw.URL+"/v1/messages", strings.NewReader(strings.Replace(streamReq, "Hello", "cut me", 1)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", "streamer-key")
	ctx, cancel := context.WithCancel(context.Background())
	res, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	wantHeaders(t, res, "Tokens", "1000", strconv.Itoa(1000-countedPerCall))
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() && !strings.Contains(sc.Text(), "text_delta") {
	}
	cancel() // the client leaves mid-stream
	res.Body.Close()
	<-cut
	settled(t, gw, "streamer")

	// 125 for the whole stream, 106 for the cut one (input 100, cache
	// creation 5, and the 1 output token message_start reported).
	res, _ = post(t, gw, "streamer-key", request)
	wantHeaders(t, res, "Tokens", "1000", strconv.Itoa(1000-countedPerCall-106))
}

// TestMaxStreams: with max_streams 1, a request while another is open gets
// 429; once it ends, the next passes.
func TestMaxStreams(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), "hold") {
			started <- struct{}{}
			<-release
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, messageBody)
	})
	gw := testgw.Start(t, slot, site(`client single {
	key single-key
	max_streams 1
}`, up))
	done := make(chan int)
	go func() {
		res, _ := postTo(t, gw.URL, "single-key", strings.Replace(request, "Hello", "hold", 1))
		done <- res.StatusCode
	}()
	<-started
	if got := gw.Metric(t, "caddy_thinkgate_client_open_streams", map[string]string{"client": "single"}); got != 1 {
		t.Errorf("open streams %v, want 1", got)
	}
	res, body := post(t, gw, "single-key", request)
	if want := fmt.Sprintf(rateLimited, "single", "max_streams 1", "1"); res.StatusCode != 429 || body != want || res.Header.Get("Retry-After") != "1" {
		t.Errorf("second: %d %s (retry-after %q), want 429 %s", res.StatusCode, body, res.Header.Get("Retry-After"), want)
	}
	close(release)
	if status := <-done; status != 200 {
		t.Errorf("the held request: %d", status)
	}
	settled(t, gw, "single")
	if res, _ := post(t, gw, "single-key", request); res.StatusCode != 200 {
		t.Errorf("after: %d", res.StatusCode)
	}
}

// TestMetricsPerClient: requests and each kind of token carry the client.
func TestMetricsPerClient(t *testing.T) {
	up := anthropicUpstream(t)
	gw := testgw.Start(t, slot, site(`client metered {
	key metered-key
	tokens_per_day 1000000
}`, up))
	post(t, gw, "metered-key", request)
	post(t, gw, "metered-key", streamReq)
	settled(t, gw, "metered")
	if got := gw.Metric(t, "caddy_thinkgate_requests_total", map[string]string{"client": "metered", "status": "200", "model": "claude-sonnet-4"}); got != 2 {
		t.Errorf("requests_total %v, want 2", got)
	}
	for direction, want := range map[string]float64{"input": 200, "output": 40, "cache_read": 14, "cache_creation": 10} {
		if got := gw.Metric(t, "caddy_thinkgate_tokens_total", map[string]string{"client": "metered", "direction": direction, "provider": "anthropic"}); got != want {
			t.Errorf("tokens_total %s: %v, want %v", direction, got, want)
		}
	}
	if got := gw.Metric(t, "caddy_thinkgate_client_limit", map[string]string{"client": "metered", "limit": "tokens_per_day"}); got != 1000000 {
		t.Errorf("client_limit %v", got)
	}
}

// hammer sends n requests at once with key and counts the statuses.
func hammer(t *testing.T, base, key string, n int) map[int]int {
	t.Helper()
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, _ := postTo(t, base, key, request)
			mu.Lock()
			statuses[res.StatusCode]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return statuses
}

// TestHammerInProcess: 40 concurrent requests against a limit of 13 let
// exactly 13 through.
func TestHammerInProcess(t *testing.T) {
	up := anthropicUpstream(t)
	gw := testgw.Start(t, slot, site(`client hammer {
	key hammer-key
	requests_per_minute 13
}`, up))
	freshMinute(t)
	got := hammer(t, gw.URL, "hammer-key", 40)
	if got[200] != 13 || got[429] != 27 || len(up.Requests()) != 13 {
		t.Errorf("statuses %v, upstream %d; want 13×200, 27×429, 13 upstream", got, len(up.Requests()))
	}
}

// TestPassthroughTokens: an anthropic handler that passes the upstream's
// answer through untouched (no split_tags) still counts its usage, for a
// Message and for a stream.
func TestPassthroughTokens(t *testing.T) {
	up := anthropicUpstream(t)
	gw := testgw.Start(t, slot, fmt.Sprintf(`handle /metrics {
	metrics
}
thinkgate_clients /v1/* {
	client direct {
		key direct-key
		tokens_per_minute 1000
	}
}
thinkgate anthropic {
	api_key upstream-key
	signing_key test-signing-key
}
reverse_proxy %s`, up.Addr()))
	freshMinute(t)
	post(t, gw, "direct-key", request)
	settled(t, gw, "direct")
	res, body := post(t, gw, "direct-key", streamReq)
	if body != string(fullStream) {
		t.Fatalf("the stream was not passed through untouched:\n%s", body)
	}
	wantHeaders(t, res, "Tokens", "1000", strconv.Itoa(1000-countedPerCall))
	settled(t, gw, "direct")
	res, _ = post(t, gw, "direct-key", request)
	wantHeaders(t, res, "Tokens", "1000", strconv.Itoa(1000-2*countedPerCall))
}

// TestPlaceholdersOnClientAnswers: the answers thinkgate_clients makes
// itself (401, 403, 429) resolve every thinkgate placeholder, to what is
// known or to the empty string, never to its literal text; a proxied
// answer has them all.
func TestPlaceholdersOnClientAnswers(t *testing.T) {
	up := anthropicUpstream(t)
	gw := testgw.Start(t, slot, `header >X-Thinkgate "{http.thinkgate.client}|{http.thinkgate.provider}|{http.thinkgate.model}|{http.thinkgate.upstream_model}|{http.thinkgate.fallback.step}"
`+site(`client alice {
	key alice-key
	models claude-sonnet-*
	requests_per_minute 1
}`, up))
	freshMinute(t)
	for _, c := range []struct {
		name, key, body string
		status          int
		want            string
	}{
		{"no key", "", request, 401, "||||"},
		{"another model", "alice-key", strings.Replace(request, "claude-sonnet-4", "claude-opus-4", 1), 403, "alice||claude-opus-4||"},
		{"proxied", "alice-key", request, 200, "alice|anthropic|claude-sonnet-4|claude-sonnet-4|"},
		{"over the limit", "alice-key", request, 429, "alice||claude-sonnet-4||"},
	} {
		res, body := post(t, gw, c.key, c.body)
		if res.StatusCode != c.status || res.Header.Get("X-Thinkgate") != c.want {
			t.Errorf("%s: %d, X-Thinkgate %q; want %d, %q (%s)", c.name, res.StatusCode, res.Header.Get("X-Thinkgate"), c.status, c.want, body)
		}
	}
}

// TestRateLimitHeadersOnEveryAnswer: GET /v1/models, count_tokens and a
// refused model carry the client's windows too, counting nothing: the
// requests window stays where the Messages call left it, and the
// upstream's own rate-limit headers never pass.
func TestRateLimitHeadersOnEveryAnswer(t *testing.T) {
	up := anthropicUpstream(t)
	gw := testgw.Start(t, slot, site(`client peeker {
	key peeker-key
	models claude-sonnet-*
	requests_per_minute 50
	tokens_per_minute 100000
}`, up))
	freshMinute(t)
	res, _ := post(t, gw, "peeker-key", request)
	wantHeaders(t, res, "Requests", "50", "49")
	settled(t, gw, "peeker")
	check := func(what string, res *http.Response) {
		t.Helper()
		wantHeaders(t, res, "Requests", "50", "49")
		wantHeaders(t, res, "Tokens", "100000", strconv.Itoa(100000-countedPerCall))
		if t.Failed() {
			t.Fatalf("%s: %d %v", what, res.StatusCode, res.Header)
		}
	}
	req, _ := http.NewRequest("GET", gw.URL+"/v1/models", nil)
	req.Header.Set("x-api-key", "peeker-key")
	models, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	models.Body.Close()
	if models.StatusCode != 200 {
		t.Fatalf("models: %d", models.StatusCode)
	}
	check("GET /v1/models", models)
	count, err := http.NewRequest("POST", gw.URL+"/v1/messages/count_tokens", strings.NewReader(request))
	if err != nil {
		t.Fatal(err)
	}
	count.Header.Set("x-api-key", "peeker-key")
	count.Header.Set("Content-Type", "application/json")
	counted, err := http.DefaultClient.Do(count)
	if err != nil {
		t.Fatal(err)
	}
	counted.Body.Close()
	check("count_tokens", counted)
	refused, body := post(t, gw, "peeker-key", strings.Replace(request, "claude-sonnet-4", "claude-opus-4", 1))
	if refused.StatusCode != 403 {
		t.Fatalf("opus: %d %s", refused.StatusCode, body)
	}
	check("403", refused)
}

// TestCutOpenAIStreamCountsWhatWasSent: a Chat Completions stream cut
// before its usage chunk counts, against the client's limits and in the
// metrics, the output it sent (its content's bytes over three, rounded up)
// and an estimate of the input, rather than nothing.
func TestCutOpenAIStreamCountsWhatWasSent(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, part := range []string{"Hello, ", "world"} {
			fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt-4.1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q},\"finish_reason\":null}]}\n\n", part)
		}
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // cut before the finish and usage chunks
	})
	gw := testgw.Start(t, slot, fmt.Sprintf(`handle /metrics {
	metrics
}
thinkgate_clients /v1/* {
	client cutter {
		key cutter-key
		tokens_per_day 1000000
	}
}
thinkgate openai {
	signing_key test-signing-key
	model claude-* gpt-4.1
	default_thinking off
}
reverse_proxy %s`, up.Addr()))
	output := map[string]string{"provider": "openai", "direction": "output", "client": "cutter"}
	input := map[string]string{"provider": "openai", "direction": "input", "client": "cutter"}
	outBefore, inBefore := gw.Metric(t, "caddy_thinkgate_tokens_total", output), gw.Metric(t, "caddy_thinkgate_tokens_total", input)
	res, body := post(t, gw, "cutter-key", streamReq)
	if res.StatusCode != 200 || !strings.Contains(body, `"text":"Hello, world"`) || !strings.Contains(body, "event: error") {
		t.Fatalf("stream: %d %q", res.StatusCode, body)
	}
	settled(t, gw, "cutter")
	if got := gw.Metric(t, "caddy_thinkgate_tokens_total", output) - outBefore; got != 4 {
		t.Errorf("output tokens %v, want 4 (12 bytes sent)", got)
	}
	in := gw.Metric(t, "caddy_thinkgate_tokens_total", input) - inBefore
	if in <= 0 {
		t.Errorf("input tokens %v, want an estimate", in)
	}
	res, _ = post(t, gw, "cutter-key", request)
	// The day's window holds the estimate (and the stream's predecessors'
	// of this process, none here: the client is this test's own).
	want := 1000000 - 4 - int64(in)
	if got := res.Header.Get("Anthropic-Ratelimit-Tokens-Remaining"); got != strconv.FormatInt(want, 10) {
		t.Errorf("tokens remaining %s, want %d", got, want)
	}
}
