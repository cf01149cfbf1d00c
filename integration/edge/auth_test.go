// Package edge_test checks, through a real Caddy, the rules that hold at
// the gateway's edge whatever the site looks like: a client without a
// valid key is refused before its body is read, and what an upstream
// answers on a path the gateway passes through is held to the same rules
// as a translated answer.
package edge_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// slot is this package's own ports.
const slot = testgw.SlotEdge

// clientKey is the gateway key every shape's thinkgate handlers get.
const clientKey = "tg-edge-client-key"

// shape is a site the docs show, as the test loads it.
type shape struct {
	name, source string
	site         string // the site block as written
}

// fenced are the ```caddyfile blocks of a Markdown file that are whole
// sites (fragments are marked "caddyfile fragment").
var fenced = regexp.MustCompile("(?s)```caddyfile\n(.*?)```")

// documentedShapes are every site the README, the routing, fallback and
// security pages, the routing recipe and Caddyfile.example show.
func documentedShapes(t *testing.T) []shape {
	t.Helper()
	var shapes []shape
	for _, f := range []string{"../../README.md", "../../docs/routing.md", "../../docs/fallback.md", "../../docs/security.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range fenced.FindAllStringSubmatch(string(b), -1) {
			shapes = append(shapes, shape{name: fmt.Sprintf("%s#%d", strings.TrimPrefix(f, "../../"), i+1), source: f, site: m[1]})
		}
	}
	if len(shapes) != 5 {
		t.Fatalf("found %d site snippets in the docs, want 5: add the new one's shape here", len(shapes))
	}
	recipe, err := os.ReadFile("../../docs/routing-recipe.Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	shapes = append(shapes, shape{name: "routing-recipe.Caddyfile", site: string(recipe)})
	example, err := os.ReadFile("../../Caddyfile.example")
	if err != nil {
		t.Fatal(err)
	}
	// The gateway's site, without the global options and the demo site.
	gw := regexp.MustCompile(`(?ms)^http://localhost:8080, https://localhost:8443 \{\n.*?^\}\n`).FindString(string(example))
	if gw == "" {
		t.Fatal("Caddyfile.example: no gateway site")
	}
	shapes = append(shapes, shape{name: "Caddyfile.example", site: gw})
	// The matcher inside an expression (routing.md, "The matcher").
	shapes = append(shapes, shape{name: "expression matcher", site: `localhost:8443 {
	@gold expression thinkgate({'model': ['claude-opus-*'], 'stream': 'off'}) && {http.request.header.X-Tier} == 'gold'
	handle @gold {
		thinkgate anthropic
		reverse_proxy https://api.anthropic.com
	}
	handle {
		thinkgate openai {
			model * gpt-4.1
		}
		reverse_proxy https://api.openai.com
	}
}
`})
	return shapes
}

var (
	siteAddress    = regexp.MustCompile(`(?m)^[^\s#{][^\n]*\{\n`)
	thinkgateBlock = regexp.MustCompile(`(?m)^(\s*)thinkgate (\w+)( \{)?$`)
	upstreamAddr   = regexp.MustCompile(`(?m)^(\s*reverse_proxy )(\S+)`)
	envVar         = regexp.MustCompile(`\{env\.(\w+)\}`)
	tlsLine        = regexp.MustCompile(`(?m)^\s*tls .*\n`)
)

// load turns a documented site into the test's: its address the slot's
// port, every thinkgate handler given client_keys, every upstream the test
// server, every {env.*} set.
func load(t *testing.T, s shape, upstream string) *testgw.Gateway {
	t.Helper()
	p := testgw.PortsFor(slot)
	loc := siteAddress.FindStringIndex(s.site)
	if loc == nil {
		t.Fatalf("%s: no site address", s.name)
	}
	site := s.site[loc[1]:] // the site's body and its closing brace
	site = tlsLine.ReplaceAllString(site, "")
	handlers := 0
	site = thinkgateBlock.ReplaceAllStringFunc(site, func(m string) string {
		handlers++
		sub := thinkgateBlock.FindStringSubmatch(m)
		if sub[3] == "" {
			return m + " {\n" + sub[1] + "\tclient_keys {env.TG_EDGE_CLIENT_KEY}\n" + sub[1] + "}"
		}
		return m + "\n" + sub[1] + "\tclient_keys {env.TG_EDGE_CLIENT_KEY}"
	})
	if handlers == 0 {
		t.Fatalf("%s: no thinkgate handler", s.name)
	}
	site = upstreamAddr.ReplaceAllString(site, "${1}"+upstream)
	for _, m := range envVar.FindAllStringSubmatch(site, -1) {
		t.Setenv(m[1], "upstream-key-of-"+m[1])
	}
	t.Setenv("TG_EDGE_CLIENT_KEY", clientKey)
	cfg := testgw.Preamble(p) + fmt.Sprintf("\nhttp://localhost:%d {\n%s", p.HTTP, site)
	return testgw.StartConfig(t, slot, cfg)
}

// countingBody counts the bytes read from it.
type countingBody struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func (countingBody) Close() error { return nil }

// postCounting sends body with Expect: 100-continue, so that the client
// sends the body only once the server reads it, and returns the answer and
// how many of the body's bytes the server asked for.
func postCounting(t *testing.T, url string, body []byte, header ...string) (int, string, int64) {
	t.Helper()
	var n atomic.Int64
	req, err := http.NewRequest("POST", url+"/v1/messages", countingBody{bytes.NewReader(body), &n})
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("Expect", "100-continue")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	// The body waits for the server's 100 Continue (or its final answer)
	// however long it takes: the count does not depend on timing.
	tr := &http.Transport{ExpectContinueTimeout: time.Hour, DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	res, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b), n.Load()
}

// largeRequest is a Messages request of about 1 MiB that every matcher of
// the shapes must read to decide (a thinking request with many blocks).
func largeRequest() []byte {
	var blocks []string
	for range 4096 {
		blocks = append(blocks, `{"type":"text","text":"`+strings.Repeat("a", 240)+`"}`)
	}
	return []byte(`{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":false,"thinking":{"type":"enabled","budget_tokens":2048},` +
		`"messages":[{"role":"user","content":[` + strings.Join(blocks, ",") + `]}]}`)
}

// TestUnauthenticatedBodyNeverRead: on every site the docs show, with
// client_keys on each thinkgate handler, a request with no key, a wrong
// x-api-key or a wrong bearer token gets 401 authentication_error and not
// one byte of its body is read (the client, waiting for 100 Continue,
// never sends it), nor does anything reach an upstream. A client with the
// key has its body read whole.
func TestUnauthenticatedBodyNeverRead(t *testing.T) {
	upstream := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"test upstream"}}`)
	})
	body := largeRequest()
	for _, s := range documentedShapes(t) {
		t.Run(s.name, func(t *testing.T) {
			gw := load(t, s, upstream.URL)
			before := len(upstream.Requests())
			for _, c := range []struct {
				name   string
				header []string
			}{
				{"no key", nil},
				{"wrong x-api-key", []string{"X-Api-Key", "not-" + clientKey}},
				{"wrong bearer token", []string{"Authorization", "Bearer not-" + clientKey}},
				{"empty x-api-key", []string{"X-Api-Key", ""}},
			} {
				status, got, read := postCounting(t, gw.URL, body, c.header...)
				if status != http.StatusUnauthorized || got != `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}` {
					t.Errorf("%s: %d %s", c.name, status, got)
				}
				if read != 0 {
					t.Errorf("%s: the server read %d bytes of the body, want 0", c.name, read)
				}
			}
			if n := len(upstream.Requests()) - before; n != 0 {
				t.Errorf("the upstream got %d requests", n)
			}
			status, got, read := postCounting(t, gw.URL, body, "X-Api-Key", clientKey)
			if status == http.StatusUnauthorized || read != int64(len(body)) {
				t.Errorf("with the key: %d %s, %d of %d bytes read", status, got, read, len(body))
			}
			var e struct{ Error struct{ Type string } }
			_ = json.Unmarshal([]byte(got), &e)
			if e.Error.Type == "authentication_error" {
				t.Errorf("with the key: %s", got)
			}
		})
	}
}

// TestOpenHandlerReadsBodies: a server with a thinkgate handler without
// client_keys serves clients without a key, so its matchers read their
// bodies as before (docs/security.md, "Nothing is read before the key is
// checked"): the open route gets the request.
func TestOpenHandlerReadsBodies(t *testing.T) {
	upstream := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"test upstream"}}`)
	})
	gw := testgw.Start(t, slot, "@open thinkgate model claude-sonnet-*\nhandle @open {\n\tthinkgate anthropic\n\treverse_proxy "+upstream.URL+
		"\n}\nhandle {\n\tthinkgate anthropic {\n\t\tclient_keys "+clientKey+"\n\t}\n\treverse_proxy "+upstream.URL+"\n}")
	body := largeRequest()
	status, got, read := postCounting(t, gw.URL, body)
	if status != http.StatusBadRequest || !strings.Contains(got, "test upstream") || read != int64(len(body)) {
		t.Errorf("no key, open route: %d %s, %d of %d bytes read", status, got, read, len(body))
	}
}
