package reliability_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestPooledBodiesStayTheirOwn: the buffers large bodies are read and
// converted into come from pools shared by all requests. Concurrent
// requests of about a megabyte, declared and chunked, each of its own
// letter and length, through a passthrough (the client's buffer goes
// upstream) and through azure (the body is written again, into a pooled
// buffer): every upstream body is its own request's, byte for byte.
func TestPooledBodiesStayTheirOwn(t *testing.T) {
	bodyOf := func(fill byte, n int) string {
		head := `{"model":"claude-test","max_tokens":16,"messages":[{"role":"user","content":"`
		tail := `"}]}`
		return head + strings.Repeat(string(fill), n-len(head)-len(tail)) + tail
	}
	for _, c := range []struct {
		name, site string
		upstream   func(body string) string
	}{
		{"passthrough", "thinkgate anthropic", func(b string) string { return b }},
		{"azure", "thinkgate azure {\n\tapi_key k\n\tmodel claude-* azure-model\n}", func(b string) string {
			return strings.Replace(b, `"model":"claude-test"`, `"model":"azure-model"`, 1)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, anthropicMessage)
			})
			gw := testgw.Start(t, slot, c.site+"\nreverse_proxy "+up.Addr())
			const clients, each = 3, 4
			var wg sync.WaitGroup
			for g := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range each {
						k := g*each + i
						body := bodyOf(byte('a'+k), 1<<20-k*7919)
						var rd io.Reader = strings.NewReader(body)
						if k%2 == 1 {
							rd = io.MultiReader(rd) // sent chunked
						}
						req, _ := http.NewRequest("POST", gw.URL+"/v1/messages", rd)
						req.Header.Set("Content-Type", "application/json")
						req.Header.Set("X-Request", fmt.Sprint(k))
						res, err := http.DefaultClient.Do(req)
						if err != nil {
							t.Error(err)
							return
						}
						got, _ := io.ReadAll(res.Body)
						res.Body.Close()
						if res.StatusCode != http.StatusOK {
							t.Errorf("request %d: %d %.300s", k, res.StatusCode, got)
						}
					}
				}()
			}
			wg.Wait()
			reqs := up.Requests()
			if len(reqs) != clients*each {
				t.Fatalf("the upstream got %d requests, want %d", len(reqs), clients*each)
			}
			for _, r := range reqs {
				var k int
				fmt.Sscan(r.Header.Get("X-Request"), &k)
				want := c.upstream(bodyOf(byte('a'+k), 1<<20-k*7919))
				if !bytes.Equal(r.Body, []byte(want)) {
					i := 0
					for i < min(len(r.Body), len(want)) && r.Body[i] == want[i] {
						i++
					}
					t.Errorf("request %d: the upstream body (%d bytes) differs from byte %d on; want %d bytes", k, len(r.Body), i, len(want))
				}
			}
		})
	}
}
