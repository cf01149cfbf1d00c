package edge_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestPassthroughEdgeRules: on every path the handler passes through
// untranslated, with client_keys on and for a translating and a
// passthrough provider, an upstream's redirect reaches the client as a 502
// api_error without its Location, cookie or other headers (so no client
// follows it with its key), and a 2xx or 4xx loses only its Set-Cookie.
func TestPassthroughEdgeRules(t *testing.T) {
	var answer func(w http.ResponseWriter)
	upstream := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) { answer(w) })
	redirect := func(w http.ResponseWriter) {
		w.Header().Set("Location", "https://attacker.example/v1/files")
		w.Header().Set("Set-Cookie", "session=upstream; Path=/")
		w.Header().Set("X-Upstream-Own", "1")
		w.Header().Set("Request-Id", "req_up_1")
		w.WriteHeader(http.StatusTemporaryRedirect)
		io.WriteString(w, `<a href="https://attacker.example/v1/files">Temporary Redirect</a>`)
	}
	ok := func(status int) func(w http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Set-Cookie", "session=upstream; Path=/")
			w.Header().Set("X-Upstream-Own", "1")
			w.WriteHeader(status)
			io.WriteString(w, `{"data":[],"has_more":false}`)
		}
	}
	paths := []struct{ method, path string }{
		{"POST", "/v1/messages/batches"},
		{"GET", "/v1/messages/batches/msgbatch_1/results"},
		{"GET", "/v1/files"},
		{"POST", "/v1/complete"},
		{"OPTIONS", "/v1/models"},
		{"GET", "/v1/models"},
	}
	for _, provider := range []string{"anthropic", "openai"} {
		t.Run(provider, func(t *testing.T) {
			gw := testgw.Start(t, slot, "thinkgate "+provider+" {\n\tclient_keys "+clientKey+"\n\tapi_key sk-upstream-key\n}\nreverse_proxy "+upstream.URL)
			send := func(method, path string) (*http.Response, string) {
				req, _ := http.NewRequest(method, gw.URL+path, strings.NewReader(`{}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Api-Key", clientKey)
				// An SDK's client follows redirects: record where it would go.
				client := &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
					t.Errorf("%s %s: the client would follow a redirect to %s", method, path, req.URL)
					return http.ErrUseLastResponse
				}}
				res, err := client.Do(req)
				if err != nil {
					t.Fatalf("%s %s: %v", method, path, err)
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				return res, string(b)
			}
			for _, p := range paths {
				answer = redirect
				before := len(upstream.Requests())
				res, body := send(p.method, p.path)
				if res.StatusCode != http.StatusBadGateway ||
					body != `{"type":"error","error":{"type":"api_error","message":"the upstream answered with a redirect (307), which the gateway does not follow"}}` {
					t.Errorf("%s %s, redirect: %d %s", p.method, p.path, res.StatusCode, body)
				}
				for _, k := range []string{"Location", "Set-Cookie", "X-Upstream-Own"} {
					if v := res.Header.Get(k); v != "" {
						t.Errorf("%s %s, redirect: the client got %s: %s", p.method, p.path, k, v)
					}
				}
				if res.Header.Get("X-Upstream-Request-Id") != "req_up_1" || res.Header.Get("Content-Type") != "application/json" {
					t.Errorf("%s %s, redirect: headers %v", p.method, p.path, res.Header)
				}
				if n := len(upstream.Requests()) - before; n != 1 {
					t.Errorf("%s %s: the upstream got %d requests, want 1", p.method, p.path, n)
				}
				for _, status := range []int{200, 404} {
					answer = ok(status)
					res, body = send(p.method, p.path)
					if res.StatusCode != status || body != `{"data":[],"has_more":false}` ||
						res.Header.Get("Set-Cookie") != "" || res.Header.Get("X-Upstream-Own") != "1" {
						t.Errorf("%s %s, %d: %d %v %s", p.method, p.path, status, res.StatusCode, res.Header, body)
					}
				}
			}
		})
	}
}
