package reliability_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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

// metricValue scrapes the admin endpoint for one sample.
func metricValue(t *testing.T, gw *testgw.Gateway, name string, labels map[string]string) float64 {
	t.Helper()
	// The site's metrics handler serves the registry of the config in force
	// (the admin endpoint keeps the one of the config it started with).
	res, err := http.Get(gw.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") {
			continue
		}
		ok := true
		for k, v := range labels {
			if !strings.Contains(line, fmt.Sprintf(`%s=%q`, k, v)) {
				ok = false
			}
		}
		if ok {
			f, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	return 0
}

// TestMetrics: requests, thinking blocks, tokens, upstream errors and client
// aborts show up in Caddy's metrics registry under caddy_thinkgate_*.
func TestMetrics(t *testing.T) {
	up := splitUpstream(t)
	gw := metricsGateway(t, up)
	reqs := map[string]string{"provider": "anthropic", "model": "metrics-model", "status": "200"}
	before := metricValue(t, gw, "caddy_thinkgate_requests_total", reqs)
	thinkBefore := metricValue(t, gw, "caddy_thinkgate_thinking_blocks_total", map[string]string{"provider": "anthropic"})
	outBefore := metricValue(t, gw, "caddy_thinkgate_tokens_total", map[string]string{"model": "metrics-model", "direction": "output"})
	for range 3 {
		res, _ := gw.PostRead("/v1/messages", strings.Replace(streamRequest, "claude-test", "metrics-model", 1))
		if res.StatusCode != 200 {
			t.Fatal(res.Status)
		}
	}
	if d := metricValue(t, gw, "caddy_thinkgate_requests_total", reqs) - before; d != 3 {
		t.Errorf("requests_total grew by %v, want 3", d)
	}
	if d := metricValue(t, gw, "caddy_thinkgate_thinking_blocks_total", map[string]string{"provider": "anthropic"}) - thinkBefore; d != 3 {
		t.Errorf("thinking_blocks_total grew by %v, want 3", d)
	}
	if d := metricValue(t, gw, "caddy_thinkgate_tokens_total", map[string]string{"model": "metrics-model", "direction": "output"}) - outBefore; d != 27 {
		t.Errorf("output tokens grew by %v, want 27", d)
	}
	if n := metricValue(t, gw, "caddy_thinkgate_stream_duration_seconds_count", map[string]string{"provider": "anthropic"}); n < 3 {
		t.Errorf("stream_duration_seconds_count = %v", n)
	}
	if n := metricValue(t, gw, "caddy_thinkgate_time_to_first_byte_seconds_count", map[string]string{"provider": "anthropic"}); n < 3 {
		t.Errorf("time_to_first_byte_seconds_count = %v", n)
	}

	errUp := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(503)
	})
	gw = metricsGateway(t, errUp)
	errBefore := metricValue(t, gw, "caddy_thinkgate_upstream_errors_total", map[string]string{"provider": "anthropic", "status": "503"})
	gw.PostRead("/v1/messages", streamRequest)
	if d := metricValue(t, gw, "caddy_thinkgate_upstream_errors_total", map[string]string{"provider": "anthropic", "status": "503"}) - errBefore; d != 1 {
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

	access := readFile(t, accessLog)
	for _, want := range []string{`"thinkgate_provider":"anthropic"`, `"thinkgate_upstream_model":"upstream-model-1"`,
		`"thinkgate_input_tokens":3`, `"thinkgate_output_tokens":9`, `"thinkgate_thinking_blocks":1`} {
		if !strings.Contains(access, want) {
			t.Errorf("access log lacks %s:\n%s", want, access)
		}
	}
	debug := readFile(t, debugLog)
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

func readFile(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	return string(b)
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
