package fallback_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestAccessLogAndMetrics: the access log says which step answered and how
// many attempts were made, with the provider that answered; the metrics
// count each step's attempts by outcome.
func TestAccessLogAndMetrics(t *testing.T) {
	first := testgw.NewUpstream(t, failing(503))
	second := testgw.NewUpstream(t, geminiAnswer)
	accessLog := filepath.Join(t.TempDir(), "access.log")
	p := testgw.PortsFor(slot)
	cfg := testgw.Preamble(p) + fmt.Sprintf(`
http://localhost:%d {
	log {
		output file %s
	}
	handle /metrics {
		metrics
	}
	handle {
%s
	}
}
`, p.HTTP, accessLog, site("", first.Addr(), "", second.Addr()))
	gw := testgw.StartConfig(t, slot, cfg)
	before := gw.Metric(t, "caddy_thinkgate_fallback_attempts_total", map[string]string{"step": "1", "provider": "openai", "outcome": "503"})
	sm, _ := gw.Stream(params())
	checkAnswered(t, &sm, geminiText)
	gw.Tester.Client.CloseIdleConnections()

	var line map[string]any
	for _, l := range strings.Split(strings.TrimSpace(testgw.ReadFile(t, accessLog)), "\n") {
		if strings.Contains(l, `"uri":"/v1/messages"`) {
			_ = json.Unmarshal([]byte(l), &line)
		}
	}
	if line == nil {
		t.Fatalf("no access-log line for /v1/messages:\n%s", testgw.ReadFile(t, accessLog))
	}
	for k, want := range map[string]any{"thinkgate_fallback_step": 2.0, "thinkgate_fallback_tried": 2.0, "thinkgate_provider": "gemini", "status": 200.0} {
		if line[k] != want {
			t.Errorf("access log %s = %v, want %v", k, line[k], want)
		}
	}
	if got := gw.Metric(t, "caddy_thinkgate_fallback_attempts_total", map[string]string{"step": "1", "provider": "openai", "outcome": "503"}); got != before+1 {
		t.Errorf("step 1 failures: %v, want %v", got, before+1)
	}
	if got := gw.Metric(t, "caddy_thinkgate_fallback_attempts_total", map[string]string{"step": "2", "provider": "gemini", "outcome": "answered"}); got < 1 {
		t.Errorf("step 2 answers: %v", got)
	}
}

// TestClientGone: a client that leaves while a step is waiting for its
// upstream ends the request: no further step is tried.
func TestClientGone(t *testing.T) {
	first := slowUpstream(t)
	second := testgw.NewUpstream(t, geminiAnswer)
	gw := testgw.Start(t, slot, site("", first.Addr(), "\t\t\ttransport http {\n\t\t\t\tresponse_header_timeout 1s\n\t\t\t}", second.Addr()))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := client(gw).Messages.New(ctx, params()); err == nil {
		t.Fatal("the request succeeded")
	}
	time.Sleep(1500 * time.Millisecond) // past the first step's timeout
	if len(first.Requests()) != 1 || len(second.Requests()) != 0 {
		t.Errorf("upstream calls: first %d, second %d; want 1, 0", len(first.Requests()), len(second.Requests()))
	}
}

// TestBodyLimit: the fallback keeps the client's body within its own
// max_request_body and answers a larger one with Anthropic's 413.
func TestBodyLimit(t *testing.T) {
	first := testgw.NewUpstream(t, openaiAnswer)
	second := testgw.NewUpstream(t, geminiAnswer)
	gw := testgw.Start(t, slot, site("\tmax_request_body 1KiB", first.Addr(), "", second.Addr()))
	body := `{"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"user","content":"` + strings.Repeat("x", 1100) + `"}]}`
	res, got := gw.PostRead("/v1/messages", body)
	want := `{"type":"error","error":{"type":"request_too_large","message":"request body exceeds the 1024-byte limit"}}`
	if res.StatusCode != 413 || got != want {
		t.Errorf("got %d %s\nwant 413 %s", res.StatusCode, got, want)
	}
	if len(first.Requests()) != 0 {
		t.Errorf("the first step got %d requests", len(first.Requests()))
	}
}

// TestConfig: the Caddyfile adapts to the handler's JSON, each try block a
// list of routes holding thinkgate then reverse_proxy (sorted like a handle
// block's, whatever the order written), the directive placed where
// thinkgate is.
func TestConfig(t *testing.T) {
	out, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(`:8080
reverse_proxy /other localhost:9
thinkgate_fallback {
	on 429 5xx connection_error
	retry_after_max 3s
	max_request_body 2MiB
	request_body_timeout 10s
	try {
		thinkgate openai {
			api_key k
		}
		reverse_proxy localhost:1
	}
	try {
		reverse_proxy localhost:2
		thinkgate anthropic
	}
}
encode
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Apps struct {
			HTTP struct {
				Servers map[string]struct {
					Routes []struct {
						Handle []json.RawMessage `json:"handle"`
					} `json:"routes"`
				} `json:"servers"`
			} `json:"http"`
		} `json:"apps"`
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	var order []string
	var fallback map[string]any
	for _, r := range cfg.Apps.HTTP.Servers["srv0"].Routes {
		for _, h := range r.Handle {
			var m map[string]any
			_ = json.Unmarshal(h, &m)
			order = append(order, m["handler"].(string))
			if m["handler"] == "thinkgate_fallback" {
				fallback = m
			}
		}
	}
	if strings.Join(order, " ") != "encode thinkgate_fallback reverse_proxy" {
		t.Errorf("handler order: %v", order)
	}
	if fallback == nil {
		t.Fatalf("no thinkgate_fallback in %s", out)
	}
	b, _ := json.Marshal(map[string]any{"on": fallback["on"], "retry_after_max": fallback["retry_after_max"],
		"max_request_body": fallback["max_request_body"], "request_body_timeout": fallback["request_body_timeout"]})
	if want := `{"max_request_body":2097152,"on":["429","5xx","connection_error"],"request_body_timeout":10000000000,"retry_after_max":3000000000}`; string(b) != want {
		t.Errorf("options: %s\nwant %s", b, want)
	}
	steps := fallback["try"].([]any)
	var handlers [][]string
	for _, s := range steps {
		var hs []string
		for _, r := range s.(map[string]any)["routes"].([]any) {
			for _, h := range r.(map[string]any)["handle"].([]any) {
				hs = append(hs, h.(map[string]any)["handler"].(string))
			}
		}
		handlers = append(handlers, hs)
	}
	if got := fmt.Sprint(handlers); got != "[[thinkgate reverse_proxy] [thinkgate reverse_proxy]]" {
		t.Errorf("steps: %s (a try block sorts its directives, as handle does)", got)
	}
}

// TestConfigErrors: bad options are refused at load, by name.
func TestConfigErrors(t *testing.T) {
	p := testgw.PortsFor(slot)
	for _, tc := range []struct{ block, want string }{
		{"on 600\n\ttry {\n\t\treverse_proxy localhost:1\n\t}", `on: "600" is not a status from 400 to 599, 4xx, 5xx, connection_error or timeout`},
		{"on 3xx\n\ttry {\n\t\treverse_proxy localhost:1\n\t}", `on: "3xx" is not a status`},
		{"retry_after_max soon\n\ttry {\n\t\treverse_proxy localhost:1\n\t}", `retry_after_max: "soon" is not a duration`},
		{"retries 2\n\ttry {\n\t\treverse_proxy localhost:1\n\t}", `unknown option "retries"; valid: on, retry_after_max, max_request_body, request_body_timeout, try`},
		{"on 429", `at least one try block is required`},
		{"try {\n\t\tnot_a_directive\n\t}", `unrecognized directive: not_a_directive`},
	} {
		cfg := testgw.Preamble(p) + fmt.Sprintf("\nhttp://localhost:%d {\n\tthinkgate_fallback {\n\t%s\n\t}\n}\n", p.HTTP, tc.block)
		if got := testgw.LoadError(t, slot, cfg); !strings.Contains(got, tc.want) {
			t.Errorf("%q: error %q lacks %q", tc.block, got, tc.want)
		}
	}
}
