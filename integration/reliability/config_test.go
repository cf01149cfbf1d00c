package reliability_test

import (
	"bufio"
	"compress/gzip"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestRequestBodyTimeout: a client that trickles its body, a byte at a time
// well inside any idle timeout, gets 408 when request_body_timeout passes,
// and nothing goes upstream.
func TestRequestBodyTimeout(t *testing.T) {
	up := splitUpstream(t)
	gw := gateway(t, up, "\trequest_body_timeout 1s")
	conn, err := net.Dial("tcp", strings.TrimPrefix(gw.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/messages HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(streamRequest))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < len(streamRequest); i++ {
			if _, err := conn.Write([]byte{streamRequest[i]}); err != nil {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
	}()
	start := time.Now()
	_ = conn.SetReadDeadline(time.Now().Add(15 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	took := time.Since(start)
	conn.Close()
	<-done
	const want = `{"type":"error","error":{"type":"timeout_error","message":"request body not received within 1s (request_body_timeout)"}}`
	if res.StatusCode != http.StatusRequestTimeout || string(body) != want {
		t.Errorf("got %d %s, want 408 %s", res.StatusCode, body, want)
	}
	if took < 900*time.Millisecond || took > 8*time.Second {
		t.Errorf("answered after %v, want about 1s", took)
	}
	if n := len(up.Requests()); n != 0 {
		t.Errorf("the upstream got %d requests", n)
	}

	// A body that arrives in time is served as before.
	if res, _ := gw.PostRead("/v1/messages", streamRequest); res.StatusCode != 200 {
		t.Errorf("a prompt body: %d", res.StatusCode)
	}

	// Over HTTP/2 the deadline is the stream's, and the 408 reaches the client.
	p := testgw.PortsFor(slot)
	testgw.StartConfig(t, slot, testgw.Preamble(p)+fmt.Sprintf("\nhttps://localhost:%d {\n\ttls internal\n%s\n}\n", p.HTTPS, anthropicSite(up, "\trequest_body_timeout 1s")))
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	pr, pw := io.Pipe()
	go func() {
		for i := 0; i < len(streamRequest); i++ {
			if _, err := pw.Write([]byte{streamRequest[i]}); err != nil {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
		pw.Close()
	}()
	defer pw.Close()
	req, _ := http.NewRequest("POST", fmt.Sprintf("https://localhost:%d/v1/messages", p.HTTPS), pr)
	req.Header.Set("Content-Type", "application/json")
	start = time.Now()
	res2, err := (&http.Client{Transport: tr, Timeout: 15 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res2.Body)
	res2.Body.Close()
	if res2.ProtoMajor != 2 || res2.StatusCode != http.StatusRequestTimeout || string(body) != want {
		t.Errorf("HTTP/%d: got %d %s, want 408 %s", res2.ProtoMajor, res2.StatusCode, body, want)
	}
	if took := time.Since(start); took > 8*time.Second {
		t.Errorf("HTTP/2: answered after %v, want about 1s", took)
	}
}

// TestLogContext: thinkgate's own log lines carry the request's id (the
// same uuid as its access-log entry), the client's address, the provider
// and both model names; the converted-request debug line logs at most the
// first 4 KiB of the body, with its size.
func TestLogContext(t *testing.T) {
	head := testgw.SSE(messageStart(), textStart(), textDelta("Answer"))
	up := cutUpstream(t, head)
	dir := t.TempDir()
	debugLog, accessLog := filepath.Join(dir, "debug.log"), filepath.Join(dir, "access.log")
	site := fmt.Sprintf("thinkgate anthropic {\n\tsplit_tags\n\tsigning_key k\n\tmodel claude-* upstream-model-1\n}\nreverse_proxy %s", up.Addr())
	gw := testgw.StartConfig(t, slot, logConfig(testgw.PortsFor(slot), debugLog, accessLog, site))
	big := strings.Replace(streamRequest, `"content":"hi"`, `"content":"`+strings.Repeat("x", 10000)+`"`, 1)
	gw.PostRead("/v1/messages", big, "X-Amz-Security-Token", "amz-secret-QRS", "X-Goog-User-Project", "project-secret-TUV")
	gw.Tester.Client.CloseIdleConnections()

	var failed, converted map[string]any
	for _, line := range strings.Split(testgw.ReadFile(t, debugLog), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		switch m["msg"] {
		case "upstream stream failed":
			failed = m
		case "converted request":
			converted = m
		}
	}
	if failed == nil || converted == nil {
		t.Fatalf("log lacks a line:\n%s", testgw.ReadFile(t, debugLog))
	}
	id, _ := failed["request_id"].(string)
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`).MatchString(id) {
		t.Errorf("request_id %q", id)
	}
	if addr, _ := failed["remote_addr"].(string); !strings.HasPrefix(addr, "127.0.0.1:") && !strings.HasPrefix(addr, "[::1]:") {
		t.Errorf("remote_addr %q", addr)
	}
	for k, want := range map[string]string{"provider": "anthropic", "model": "claude-test", "upstream_model": "upstream-model-1"} {
		if failed[k] != want || converted[k] != want {
			t.Errorf("%s: %v and %v, want %q", k, failed[k], converted[k], want)
		}
	}
	if converted["request_id"] != id {
		t.Errorf("converted request's id %v, the failure's %q", converted["request_id"], id)
	}
	sent := string(up.Last(t).Body)
	if b, _ := converted["body"].(string); len(b) != 4096 || !strings.HasPrefix(sent, b) {
		t.Errorf("logged body: %d bytes, not the start of what was sent", len(b))
	}
	if converted["body_size"] != float64(len(sent)) {
		t.Errorf("body_size %v, want %d", converted["body_size"], len(sent))
	}
	if access := testgw.ReadFile(t, accessLog); !strings.Contains(access, `"uuid":"`+id+`"`) {
		t.Errorf("access log lacks uuid %s:\n%s", id, access)
	}
	headers, _ := converted["headers"].(map[string]any)
	for _, k := range []string{"X-Amz-Security-Token", "X-Goog-User-Project"} {
		if headers[k] != "REDACTED" {
			t.Errorf("converted request's %s logged as %v", k, headers[k])
		}
	}
	// thinkgate's own lines; reverse_proxy's are the log filter's business.
	for _, line := range strings.Split(testgw.ReadFile(t, debugLog), "\n") {
		if strings.Contains(line, `"logger":"http.handlers.thinkgate"`) &&
			(strings.Contains(line, "amz-secret-QRS") || strings.Contains(line, "project-secret-TUV")) {
			t.Errorf("a credential reached the log: %s", line)
		}
	}
}

// storageConfig is a whole Caddyfile whose storage is dir, with the
// reliability site.
func storageConfig(dir, site string) string {
	p := testgw.PortsFor(slot)
	preamble := strings.Replace(testgw.Preamble(p), "{\n", "{\n\tstorage file_system "+dir+"\n", 1)
	return preamble + fmt.Sprintf("\nhttp://localhost:%d {\n%s\n}\n", p.HTTP, site)
}

// TestSigningKeySurvivesReload: without signing_key, a thinking block the
// gateway signed still verifies after the config is loaded again (a reload
// or a restart on the same storage); on other storage it does not.
func TestSigningKeySurvivesReload(t *testing.T) {
	up := splitUpstream(t)
	dir := t.TempDir()
	site := fmt.Sprintf("thinkgate anthropic {\n\tsplit_tags\n}\nreverse_proxy %s", up.Addr())
	gw := testgw.StartConfig(t, slot, storageConfig(dir, site))
	msg, _ := gw.Stream(params())
	var sig string
	for _, b := range msg.Content {
		if b.Type == "thinking" && b.Thinking == "plan" {
			sig = b.Signature
		}
	}
	if !strings.HasPrefix(sig, "tg1t.") {
		t.Fatalf("no signed thinking block: %+v", msg.Content)
	}
	history := `{"model":"claude-test","max_tokens":1024,"stream":true,"messages":[` +
		`{"role":"user","content":"hi"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"plan","signature":"` + sig + `"},{"type":"text","text":"there"}]},` +
		`{"role":"user","content":"and?"}]}`
	// A verified tag-derived block goes back to Anthropic as <thinking> text.
	verified := func(body []byte) bool {
		var req struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		var blocks []struct{ Type, Text string }
		return json.Unmarshal(body, &req) == nil && len(req.Messages) == 3 &&
			json.Unmarshal(req.Messages[1].Content, &blocks) == nil && len(blocks) == 2 &&
			blocks[0].Type == "text" && blocks[0].Text == "<thinking>plan</thinking>"
	}

	for _, c := range []struct {
		name, dir string
		verifies  bool
	}{
		{"reload", dir, true},
		{"other storage", t.TempDir(), false},
	} {
		gw = testgw.StartConfig(t, slot, storageConfig(c.dir, site))
		if res, body := gw.PostRead("/v1/messages", history); res.StatusCode != 200 {
			t.Fatalf("%s: %d %s", c.name, res.StatusCode, body)
		}
		got := verified(up.Last(t).Body)
		if got != c.verifies {
			t.Errorf("%s: envelope verified %v, want %v; upstream body:\n%s", c.name, got, c.verifies, up.Last(t).Body)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "thinkgate", "signing_key")); err != nil {
		t.Errorf("no key in storage: %v", err)
	}
}

// TestUnsetSecretRefused: Caddy refuses a config whose api_key resolves to
// nothing, naming the option.
func TestUnsetSecretRefused(t *testing.T) {
	os.Unsetenv("THINKGATE_TEST_UNSET")
	p := testgw.PortsFor(slot)
	msg := testgw.LoadError(t, slot, testgw.Preamble(p)+fmt.Sprintf("\nhttp://localhost:%d {\n\tthinkgate openai {\n\t\tapi_key {env.THINKGATE_TEST_UNSET}\n\t}\n\treverse_proxy localhost:9\n}\n", p.HTTP))
	if want := "api_key: {env.THINKGATE_TEST_UNSET} resolved to the empty string (unset environment variable?)"; !strings.Contains(msg, want) {
		t.Errorf("error %q, want it to contain %q", msg, want)
	}
	// The next config loads and serves as usual.
	gw := gateway(t, splitUpstream(t), "")
	if res, body := gw.PostRead("/v1/messages", streamRequest); res.StatusCode != 200 {
		t.Errorf("after a refused config: %d %s", res.StatusCode, body)
	}
}

// TestUpstreamCompression: thinkgate drops the client's Accept-Encoding;
// reverse_proxy's transport then asks the upstream for gzip itself and
// decompresses the answer before thinkgate reads it, so a gzip-speaking
// upstream is split as usual and the client gets plain bytes.
func TestUpstreamCompression(t *testing.T) {
	sse := testgw.SSE(append([]testgw.Event{messageStart(), textStart(), textDelta("Hi <thinking>plan</thinking>there")}, streamEnd()...)...)
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			_, _ = w.Write(sse)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = zw.Write(sse)
		_ = zw.Close()
	})
	gw := gateway(t, up, "")
	res, body := gw.PostRead("/v1/messages", streamRequest, "Accept-Encoding", "br")
	if got := up.Last(t).Header.Get("Accept-Encoding"); got != "gzip" {
		t.Errorf("upstream Accept-Encoding %q, want the transport's gzip", got)
	}
	if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "" {
		t.Fatalf("%d, Content-Encoding %q", res.StatusCode, res.Header.Get("Content-Encoding"))
	}
	got := testgw.Summary(t, testgw.ReadEvents(t, strings.NewReader(body)))
	for i, line := range got {
		if strings.HasPrefix(line, `signature_delta 1 "tg1t.`) {
			got[i] = "signature_delta 1 (the gateway's)"
		}
	}
	testgw.Diff(t, "events", got, []string{
		"message_start",
		`content_block_start 0 {"type":"text","text":""}`,
		`text_delta 0 "Hi "`,
		"content_block_stop 0",
		`content_block_start 1 {"type":"thinking","thinking":""}`,
		`thinking_delta 1 "plan"`,
		"signature_delta 1 (the gateway's)",
		"content_block_stop 1",
		`content_block_start 2 {"type":"text","text":""}`,
		`text_delta 2 "there"`,
		"content_block_stop 2",
		"message_delta end_turn",
		"message_stop",
	})
}
