package reliability_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

func splitUpstream(t *testing.T) *testgw.Upstream {
	return testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		testgw.WriteChunks(w, "text/event-stream", testgw.SSE(append([]testgw.Event{messageStart(), textStart(),
			textDelta("Hi <thinking>plan</thinking>there")}, streamEnd()...)...), 32)
	})
}

// TestMetrics: requests, thinking blocks, tokens, upstream errors and client
// aborts show up in Caddy's metrics registry under caddy_thinkgate_*.
func TestMetrics(t *testing.T) {
	up := splitUpstream(t)
	gw := metricsGateway(t, up)
	reqs := map[string]string{"provider": "anthropic", "model": "metrics-model", "status": "200"}
	before := gw.Metric(t, "caddy_thinkgate_requests_total", reqs)
	thinkBefore := gw.Metric(t, "caddy_thinkgate_thinking_blocks_total", map[string]string{"provider": "anthropic"})
	outBefore := gw.Metric(t, "caddy_thinkgate_tokens_total", map[string]string{"model": "metrics-model", "direction": "output"})
	for range 3 {
		res, _ := gw.PostRead("/v1/messages", strings.Replace(streamRequest, "claude-test", "metrics-model", 1))
		if res.StatusCode != 200 {
			t.Fatal(res.Status)
		}
	}
	if d := gw.Metric(t, "caddy_thinkgate_requests_total", reqs) - before; d != 3 {
		t.Errorf("requests_total grew by %v, want 3", d)
	}
	if d := gw.Metric(t, "caddy_thinkgate_thinking_blocks_total", map[string]string{"provider": "anthropic"}) - thinkBefore; d != 3 {
		t.Errorf("thinking_blocks_total grew by %v, want 3", d)
	}
	if d := gw.Metric(t, "caddy_thinkgate_tokens_total", map[string]string{"model": "metrics-model", "direction": "output"}) - outBefore; d != 27 {
		t.Errorf("output tokens grew by %v, want 27", d)
	}
	if n := gw.Metric(t, "caddy_thinkgate_stream_duration_seconds_count", map[string]string{"provider": "anthropic"}); n < 3 {
		t.Errorf("stream_duration_seconds_count = %v", n)
	}
	if n := gw.Metric(t, "caddy_thinkgate_time_to_first_byte_seconds_count", map[string]string{"provider": "anthropic"}); n < 3 {
		t.Errorf("time_to_first_byte_seconds_count = %v", n)
	}

	errUp := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(503)
	})
	gw = metricsGateway(t, errUp)
	errBefore := gw.Metric(t, "caddy_thinkgate_upstream_errors_total", map[string]string{"provider": "anthropic", "status": "503"})
	gw.PostRead("/v1/messages", streamRequest)
	if d := gw.Metric(t, "caddy_thinkgate_upstream_errors_total", map[string]string{"provider": "anthropic", "status": "503"}) - errBefore; d != 1 {
		t.Errorf("upstream_errors_total grew by %v, want 1", d)
	}
}

// logConfig is a whole Caddyfile that logs everything at DEBUG, access logs
// included, through the credential filter the README recommends.
func logConfig(p testgw.Ports, debugLog, accessLog, site string) string {
	filter := `format filter {
			wrap json
			fields {
				request>headers>X-Api-Key replace REDACTED
				request>headers>Api-Key replace REDACTED
				request>headers>X-Goog-Api-Key replace REDACTED
				request>headers>Authorization replace REDACTED
			}
		}`
	return fmt.Sprintf(`{
	skip_install_trust
	admin localhost:%d
	http_port %d
	https_port %d
	grace_period 1ns
	log default {
		level DEBUG
		output file %s
		%s
	}
}

http://localhost:%d {
	log {
		output file %s
		%s
	}
	%s
}
`, p.Admin, p.HTTP, p.HTTPS, debugLog, filter, p.HTTP, accessLog, filter, site)
}

// TestLogsAndPlaceholders: access-log fields and placeholders carry the
// provider, models, tokens and thinking blocks; no log line carries a key.
func TestLogsAndPlaceholders(t *testing.T) {
	up := splitUpstream(t)
	dir := t.TempDir()
	debugLog, accessLog := filepath.Join(dir, "debug.log"), filepath.Join(dir, "access.log")
	site := fmt.Sprintf(`header >X-Upstream-Model {http.thinkgate.upstream_model}
	header >X-Thinkgate {http.thinkgate.provider}/{http.thinkgate.model}
	thinkgate anthropic {
		split_tags
		api_key upstream-secret-XYZ
		model claude-* upstream-model-1
	}
	reverse_proxy %s`, up.Addr())
	gw := testgw.StartConfig(t, slot, logConfig(testgw.PortsFor(slot), debugLog, accessLog, site))
	res, _ := gw.PostRead("/v1/messages", streamRequest, "x-api-key", "client-secret-ABC")
	if res.StatusCode != 200 || res.Header.Get("X-Upstream-Model") != "upstream-model-1" || res.Header.Get("X-Thinkgate") != "anthropic/claude-test" {
		t.Fatalf("status %d, headers %v", res.StatusCode, res.Header)
	}
	if got := up.Last(t).Header.Get("X-Api-Key"); got != "upstream-secret-XYZ" {
		t.Fatalf("upstream key %q", got)
	}
	gw.Tester.Client.CloseIdleConnections()

	access := testgw.ReadFile(t, accessLog)
	for _, want := range []string{`"thinkgate_provider":"anthropic"`, `"thinkgate_upstream_model":"upstream-model-1"`,
		`"thinkgate_input_tokens":3`, `"thinkgate_output_tokens":9`, `"thinkgate_thinking_blocks":1`} {
		if !strings.Contains(access, want) {
			t.Errorf("access log lacks %s:\n%s", want, access)
		}
	}
	debug := testgw.ReadFile(t, debugLog)
	if !regexp.MustCompile(`"msg":"converted request".*"X-Api-Key":"REDACTED"`).MatchString(debug) {
		t.Errorf("no redacted converted-request debug line:\n%s", debug)
	}
	for name, text := range map[string]string{"access": access, "debug": debug} {
		for _, secret := range []string{"upstream-secret-XYZ", "client-secret-ABC"} {
			if strings.Contains(text, secret) {
				t.Errorf("%s log contains %s", name, secret)
			}
		}
	}
}

func metricsGateway(t *testing.T, up *testgw.Upstream) *testgw.Gateway {
	return testgw.Start(t, slot, fmt.Sprintf(`handle /metrics {
	metrics
}
handle {
	thinkgate anthropic {
		split_tags
	}
	reverse_proxy %s
}`, up.Addr()))
}
