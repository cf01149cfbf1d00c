package answers_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestPlaceholdersOnOwnAnswers: {http.thinkgate.*} in header, log_append
// and respond directives resolve on every answer the handler makes itself,
// as on a proxied one: to the provider, and to the models where the
// request named one, else to nothing; never to the placeholder's text.
func TestPlaceholdersOnOwnAnswers(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(chatCompletion))
	})
	t.Setenv("THINKGATE_TEST_KEY", "upstream-key")
	accessLog := filepath.Join(t.TempDir(), "access.log")
	p := testgw.PortsFor(testgw.SlotAnswers)
	const all = "{http.thinkgate.provider}|{http.thinkgate.model}|{http.thinkgate.upstream_model}"
	gw := testgw.StartConfig(t, testgw.SlotAnswers, testgw.Preamble(p)+fmt.Sprintf(`
http://localhost:%d {
	log {
		output file %s
		format json
	}
	log_append upstream_model {http.thinkgate.upstream_model}
	header >X-Upstream-Model {http.thinkgate.upstream_model}
	header >X-Thinkgate "%s"
	thinkgate openai {
		api_key {env.THINKGATE_TEST_KEY}
		model claude-* gpt-4.1
		client_keys client-key
		max_request_body 1KiB
		request_body_timeout 300ms
	}
	respond /other "%s" 200
	reverse_proxy %s
}
`, p.HTTP, accessLog, all, all, up.Addr()))

	const ok = `{"model":"claude-x","max_tokens":100,"messages":[{"role":"user","content":"Hi"}]}`
	cases := []struct {
		name, method, path, body string
		headers                  []string
		status                   int
		want                     string // provider|model|upstream_model
	}{
		{"401 without a key", "POST", "/v1/messages", ok, []string{"x-api-key", ""}, 401, "openai||"},
		{"405", "GET", "/v1/messages", "", nil, 405, "openai||"},
		{"415", "POST", "/v1/messages", ok, []string{"Content-Type", "text/plain"}, 415, "openai||"},
		{"413", "POST", "/v1/messages", `{"model":"claude-x","messages":[{"role":"user","content":"` + strings.Repeat("a", 2048) + `"}]}`, nil, 413, "openai||"},
		{"400 from the parse", "POST", "/v1/messages", `{"model":"claude-x","max_tokens":1}`, nil, 400, "openai||"},
		{"400 from Anthropic's checks", "POST", "/v1/messages", `{"model":"claude-x","messages":[{"role":"user","content":"Hi"}]}`, nil, 400, "openai|claude-x|gpt-4.1"},
		{"models", "GET", "/v1/models", "", nil, 200, "openai||"},
		{"proxied", "POST", "/v1/messages", ok, nil, 200, "openai|claude-x|gpt-4.1"},
		{"respond after thinkgate", "GET", "/other", "", nil, 200, "openai||"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, gw.URL+c.path, strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("x-api-key", "client-key")
			for i := 0; i+1 < len(c.headers); i += 2 {
				req.Header.Set(c.headers[i], c.headers[i+1])
			}
			res, err := gw.Tester.Client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			checkAnswer(t, res, body, c.status, c.want)
			if c.path == "/other" && string(body) != c.want {
				t.Errorf("respond body %q, want %q", body, c.want)
			}
		})
	}
	t.Run("408", func(t *testing.T) {
		// A body that stops coming: the handler answers 408 itself.
		conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", p.HTTP))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /v1/messages HTTP/1.1\r\nHost: localhost:%d\r\nx-api-key: client-key\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"model\":", p.HTTP)
		_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		checkAnswer(t, res, body, 408, "openai||")
	})

	// Every answer's access-log line has the upstream model, resolved.
	want := map[string]string{"401": "", "405": "", "415": "", "413": "", "408": "", "400": "", "200": ""}
	var lines []string
	for deadline := time.Now().Add(10 * time.Second); len(lines) < len(cases)+1 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(accessLog)
		lines = strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	seen := map[string]bool{}
	for _, l := range lines {
		var e struct {
			Status        int     `json:"status"`
			UpstreamModel *string `json:"upstream_model"`
			Request       struct {
				URI string `json:"uri"`
			} `json:"request"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("access log line %q: %v", l, err)
		}
		status := fmt.Sprint(e.Status)
		seen[status] = true
		switch {
		case e.UpstreamModel == nil:
			t.Errorf("access log %d %s: no upstream_model", e.Status, e.Request.URI)
		case *e.UpstreamModel != "" && *e.UpstreamModel != "gpt-4.1", *e.UpstreamModel == "gpt-4.1" && e.Status != 200 && e.Status != 400:
			t.Errorf("access log %d %s: upstream_model %q", e.Status, e.Request.URI, *e.UpstreamModel)
		}
	}
	for status := range want {
		if !seen[status] {
			t.Errorf("no access-log line with status %s:\n%s", status, strings.Join(lines, "\n"))
		}
	}
}

// checkAnswer checks an answer's status and its X-Thinkgate and
// X-Upstream-Model headers.
func checkAnswer(t *testing.T, res *http.Response, body []byte, status int, want string) {
	t.Helper()
	if res.StatusCode != status {
		t.Errorf("status %d, want %d: %s", res.StatusCode, status, body)
	}
	if got := res.Header.Get("X-Thinkgate"); got != want {
		t.Errorf("X-Thinkgate %q, want %q", got, want)
	}
	upstreamModel := want[strings.LastIndexByte(want, '|')+1:]
	if got := res.Header.Get("X-Upstream-Model"); got != upstreamModel {
		t.Errorf("X-Upstream-Model %q, want %q", got, upstreamModel)
	}
}
