// Package testgw is the integration-test harness: a real Caddy in-process
// (caddytest) running thinkgate in front of httptest upstreams, the official
// anthropic-sdk-go as the client, and helpers to read and compare SSE.
//
// caddytest keeps one Caddy per test binary, so every package that uses it
// takes its own Slot (its own admin, HTTP and HTTPS ports); packages then run
// in parallel, while the tests inside one package must not.
package testgw

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddytest"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/thinkgate/thinkgate/internal/ssetest"

	// Caddy's standard modules and thinkgate.
	_ "github.com/caddyserver/caddy/v2/modules/standard"
	_ "github.com/thinkgate/thinkgate/caddymodule"
)

// Slots of the packages that run a gateway; each gets its own ports.
const (
	SlotRoot = iota
	SlotOpenAI
	SlotAzure
	SlotGemini
	SlotAmazonQ
	SlotReliability
	SlotLoad
	SlotAnthropic
	SlotBench
	SlotOptions
	SlotRouting
	SlotResponses
	SlotClients
)

// Slots numbered apart from the list above, so that slots added to it do
// not take their ports. Every package that runs a gateway names its slot
// here, so that no two packages (which go test runs at once) share ports.
const (
	SlotFallback     = 21
	SlotRecipe       = 22
	SlotVertex       = 23
	SlotBedrock      = 24
	SlotTracing      = 34
	SlotUpstreamEdge = 37
	SlotAnswers      = 40
	SlotClaudeCode   = 41
	SlotEdge         = 42
	SlotCards        = 43
	SlotEffort       = 44
	SlotTokens       = 45
	SlotKeyPools     = 46
)

// Ports are one package's Caddy ports.
type Ports struct{ Admin, HTTP, HTTPS int }

// PortsFor returns the ports of a slot: slot 0 uses caddytest's defaults.
// THINKGATE_TEST_PORT_OFFSET (a multiple of 1000, up to 8000) shifts every
// port, so that several checkouts can run their tests on one machine at once:
// Caddy binds with SO_REUSEPORT, so two processes on one port would share its
// connections rather than fail.
func PortsFor(slot int) Ports {
	off := portOffset()
	if slot == 0 {
		return Ports{Admin: 2999 + off, HTTP: 9080 + off, HTTPS: 9443 + off}
	}
	return Ports{Admin: 3000 + slot + off, HTTP: 9080 + 10*slot + off, HTTPS: 9443 + 10*slot + off}
}

// portOffset reads THINKGATE_TEST_PORT_OFFSET; anything but a multiple of
// 1000 from 0 to 8000 is refused, since other offsets could make one
// checkout's admin port another's HTTP port.
func portOffset() int {
	v := os.Getenv("THINKGATE_TEST_PORT_OFFSET")
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 8000 || n%1000 != 0 {
		panic(fmt.Sprintf("THINKGATE_TEST_PORT_OFFSET=%q: want a multiple of 1000 from 0 to 8000", v))
	}
	return n
}

// Gateway is a running Caddy with a thinkgate site.
type Gateway struct {
	T      testing.TB
	Tester *caddytest.Tester
	Ports  Ports
	// URL is the gateway's plain-HTTP base URL.
	URL string
	// sdkHTTP is the SDK clients' HTTP client. Each gateway has its own
	// connections: loading a config closes the previous servers' idle
	// connections, and a POST sent on one of those fails with EOF.
	sdkHTTP *http.Client
}

// settleTimeout bounds the wait for the previous config's listeners to close.
const settleTimeout = 10 * time.Second

// settle waits until the previous config's servers have closed their
// listeners. Caddy answers the config load before they have, and until then
// the kernel may hand a new connection to an old server's socket (each config
// binds its own, with SO_REUSEPORT), which runs it through the old routes
// (whose upstream the previous test has closed) and cuts it when it stops.
// Caddy counts the configs holding each listener; the wait ends when only the
// new config holds every address it listens on.
func settle(t testing.TB) {
	t.Helper()
	app, err := caddy.ActiveContext().AppIfConfigured("http")
	if err != nil {
		return // no HTTP servers, nothing to wait for
	}
	var addrs []caddy.NetworkAddress
	for _, srv := range app.(*caddyhttp.App).Servers {
		for _, ln := range srv.Listen {
			na, err := caddy.ParseNetworkAddress(ln)
			if err != nil {
				t.Fatalf("listen address %q: %v", ln, err)
			}
			addrs = append(addrs, na.Expand()...)
		}
	}
	deadline := time.Now().Add(settleTimeout)
	for _, a := range addrs {
		for caddy.ListenerUsage(a.Network, a.JoinHostPort(0)) > 1 {
			if time.Now().After(deadline) {
				t.Fatalf("the previous config still listens on %s after %v", a, settleTimeout)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

func newGateway(t testing.TB, tester *caddytest.Tester, p Ports) *Gateway {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	return &Gateway{T: t, Tester: tester, Ports: p, URL: fmt.Sprintf("http://localhost:%d", p.HTTP),
		sdkHTTP: &http.Client{Transport: tr}}
}

// Preamble returns the global options block for a slot.
func Preamble(p Ports) string {
	return fmt.Sprintf(`{
	skip_install_trust
	admin localhost:%d
	http_port %d
	https_port %d
	grace_period 1ns
	local_certs
	log default {
		level ERROR
	}
}
`, p.Admin, p.HTTP, p.HTTPS)
}

// Start loads a Caddyfile whose site at http://localhost:<http port> has
// site as its body, e.g. "thinkgate openai {\n…\n}\nreverse_proxy <addr>".
// It skips the test under -short.
func Start(t testing.TB, slot int, site string) *Gateway {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: skipped under -short")
	}
	p := PortsFor(slot)
	cfg := Preamble(p) + fmt.Sprintf("\nhttp://localhost:%d {\n%s\n}\n", p.HTTP, site)
	return StartConfig(t, slot, cfg)
}

// StartConfig loads a whole Caddyfile (which must start with Preamble).
func StartConfig(t testing.TB, slot int, caddyfile string) *Gateway {
	t.Helper()
	return start(t, slot, caddyfile, "caddyfile")
}

// StartJSON loads a whole JSON config (admin on the slot's admin port, a
// server on its HTTP port).
func StartJSON(t testing.TB, slot int, config string) *Gateway {
	t.Helper()
	return start(t, slot, config, "json")
}

func start(t testing.TB, slot int, config, adapter string) *Gateway {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: skipped under -short")
	}
	p := PortsFor(slot)
	tester := caddytest.NewTester(t).WithDefaultOverrides(caddytest.Config{
		AdminPort:          p.Admin,
		TestRequestTimeout: 30 * time.Second,
		LoadRequestTimeout: 10 * time.Second,
	})
	tester.InitServer(config, adapter)
	settle(t)
	return newGateway(t, tester, p)
}

// LoadError loads a config that must fail, returning Caddy's error text.
func LoadError(t testing.TB, slot int, caddyfile string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: skipped under -short")
	}
	p := PortsFor(slot)
	// Make sure the in-process Caddy is up on this slot's admin port.
	StartConfig(t, slot, Preamble(p))
	req, _ := http.NewRequest("POST", fmt.Sprintf("http://localhost:%d/load", p.Admin), strings.NewReader(caddyfile))
	req.Header.Set("Content-Type", "text/caddyfile")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode == http.StatusOK {
		t.Fatalf("config loaded, expected an error")
	}
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		return e.Error
	}
	return string(b)
}

// Post sends a POST with a JSON body and the given header pairs.
func (g *Gateway) Post(path, body string, headers ...string) *http.Response {
	g.T.Helper()
	req, err := http.NewRequest("POST", g.URL+path, strings.NewReader(body))
	if err != nil {
		g.T.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("anthropic-version", "2023-06-01")
	req.Header.Set("x-api-key", "client-key")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := g.Tester.Client.Do(req)
	if err != nil {
		g.T.Fatalf("POST %s: %v", path, err)
	}
	return res
}

// PostRead sends a POST and reads the whole response.
func (g *Gateway) PostRead(path, body string, headers ...string) (*http.Response, string) {
	g.T.Helper()
	res := g.Post(path, body, headers...)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		g.T.Fatalf("reading response: %v", err)
	}
	return res, string(b)
}

// Client returns an official SDK client pointed at the gateway.
func (g *Gateway) Client(opts ...option.RequestOption) anthropic.Client {
	base := []option.RequestOption{
		option.WithBaseURL(g.URL),
		option.WithAPIKey("client-key"),
		option.WithMaxRetries(0),
		option.WithRequestTimeout(30 * time.Second),
		option.WithHTTPClient(g.sdkHTTP),
	}
	return anthropic.NewClient(append(base, opts...)...)
}

// Stream runs a streaming request through the SDK, accumulating every event
// with Message.Accumulate; any accumulation or stream error fails the test.
// It returns the message and the events' types in order.
func (g *Gateway) Stream(params anthropic.MessageNewParams, opts ...option.RequestOption) (anthropic.Message, []string) {
	g.T.Helper()
	client := g.Client(opts...)
	stream := client.Messages.NewStreaming(context.Background(), params)
	defer stream.Close()
	var msg anthropic.Message
	var types []string
	for stream.Next() {
		ev := stream.Current()
		types = append(types, ev.Type)
		if err := msg.Accumulate(ev); err != nil {
			g.T.Fatalf("Accumulate(%s): %v", ev.Type, err)
		}
	}
	if err := stream.Err(); err != nil {
		g.T.Fatalf("stream error: %v", err)
	}
	return msg, types
}

// Event is one SSE event as the client received it.
type Event = ssetest.Event

// ReadEvents parses an SSE body into events (LF line ends, as the gateway writes).
func ReadEvents(t testing.TB, r io.Reader) []Event {
	t.Helper()
	var events []Event
	var cur Event
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Name != "" || cur.Data != "" {
				events = append(events, cur)
			}
			cur = Event{}
		case strings.HasPrefix(line, "event: "):
			cur.Name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			cur.Data = line[len("data: "):]
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading SSE: %v", err)
	}
	if cur.Name != "" || cur.Data != "" {
		t.Fatalf("SSE body ended inside an event: %+v", cur)
	}
	return events
}

// Summary turns events into readable lines (ssetest.Summary without
// detail), failing the test on an event that is not well formed.
func Summary(t testing.TB, events []Event) []string {
	t.Helper()
	lines, err := ssetest.Summary(events, 0)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// Diff fails the test when got and want differ, showing both line by line.
func Diff(t testing.TB, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") == strings.Join(want, "\n") {
		return
	}
	t.Errorf("%s differs.\n--- got\n%s\n--- want\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
}

// Captured is one request an upstream received.
type Captured struct {
	Method, Path, RawQuery string
	Header                 http.Header
	Body                   []byte
}

// Upstream is an httptest server that records requests and answers with a
// handler the test sets.
type Upstream struct {
	*httptest.Server
	mu       sync.Mutex
	requests []Captured
	Handler  http.HandlerFunc
}

// NewUpstream starts a recording upstream answering with h.
func NewUpstream(t testing.TB, h http.HandlerFunc) *Upstream {
	u := &Upstream{Handler: h}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.requests = append(u.requests, Captured{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
		u.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		u.Handler(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

// Requests returns what the upstream received so far.
func (u *Upstream) Requests() []Captured {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]Captured(nil), u.requests...)
}

// Last returns the most recent request, failing the test if there is none.
func (u *Upstream) Last(t testing.TB) Captured {
	t.Helper()
	r := u.Requests()
	if len(r) == 0 {
		t.Fatal("the upstream received no request")
	}
	return r[len(r)-1]
}

// Addr is the host:port for reverse_proxy.
func (u *Upstream) Addr() string { return strings.TrimPrefix(u.URL, "http://") }

// WriteChunks writes body in pieces of n bytes, flushing after each, the way
// a real upstream's bytes arrive split anywhere.
func WriteChunks(w http.ResponseWriter, contentType string, body []byte, n int) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	for len(body) > 0 {
		k := min(n, len(body))
		if _, err := w.Write(body[:k]); err != nil {
			return
		}
		_ = rc.Flush()
		body = body[k:]
	}
}

// SSE encodes events as an upstream writes them.
func SSE(events ...Event) []byte {
	var b bytes.Buffer
	for _, e := range events {
		if e.Name != "" {
			fmt.Fprintf(&b, "event: %s\n", e.Name)
		}
		fmt.Fprintf(&b, "data: %s\n\n", e.Data)
	}
	return b.Bytes()
}

// AdaptProvider adapts a Caddyfile and returns the JSON of its thinkgate
// handler's provider module.
func AdaptProvider(t testing.TB, caddyfile string) []byte {
	t.Helper()
	out, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile), nil)
	if err != nil {
		t.Fatalf("adapt: %v", err)
	}
	var cfg any
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	var find func(v any) any
	find = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			if v["handler"] == "thinkgate" {
				return v["provider"]
			}
			for _, e := range v {
				if p := find(e); p != nil {
					return p
				}
			}
		case []any:
			for _, e := range v {
				if p := find(e); p != nil {
					return p
				}
			}
		}
		return nil
	}
	p := find(cfg)
	if p == nil {
		t.Fatalf("no thinkgate handler in %s", out)
	}
	b, _ := json.Marshal(p)
	return b
}

// History returns the turns of a messages array, at least size bytes of
// them: user and assistant turns in turn, each of its own length, their
// text full of quotes, backslashes, HTML characters and non-ASCII text.
func History(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"user","content":"turn %d: «naïve» \"quoted\" <b>\\ 日本語 %s"},{"role":"assistant","content":"ok %d"}`,
			i, strings.Repeat("x", i%97), i)
	}
	return b.String()
}
