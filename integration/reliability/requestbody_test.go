package reliability_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestRequestBodyReadWhole: a large body, sent with its Content-Length or
// chunked (no length declared), reaches the upstream byte for byte when it
// is exactly max_request_body long, and one byte more gets 413 with nothing
// sent upstream, declared or not.
func TestRequestBodyReadWhole(t *testing.T) {
	body := `{"model":"claude-test","max_tokens":1024,"stream":true,"messages":[` + testgw.History(300<<10) +
		`,{"role":"user","content":"last"}]}`
	up := splitUpstream(t)
	gw := gateway(t, up, fmt.Sprintf("\tmax_request_body %d", len(body)))

	post := func(b string, declared bool) (int, string) {
		t.Helper()
		var rd io.Reader = strings.NewReader(b)
		if !declared {
			rd = io.MultiReader(rd) // no length known: sent chunked
		}
		req, err := http.NewRequest("POST", gw.URL+"/v1/messages", rd)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if declared != (req.ContentLength == int64(len(b))) {
			t.Fatalf("declared %v, but the request's Content-Length is %d", declared, req.ContentLength)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		got, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(got)
	}

	for _, declared := range []bool{true, false} {
		n := len(up.Requests())
		if status, got := post(body, declared); status != http.StatusOK || !strings.Contains(got, "event: message_stop") {
			t.Fatalf("declared %v: %d %.300s", declared, status, got)
		}
		if got := up.Requests(); len(got) != n+1 || !bytes.Equal(got[n].Body, []byte(body)) {
			t.Fatalf("declared %v: the upstream did not get the client's body byte for byte", declared)
		}
		want := fmt.Sprintf(`{"type":"error","error":{"type":"request_too_large","message":"request body exceeds the %d-byte limit"}}`, len(body))
		if status, got := post(body+" ", declared); status != http.StatusRequestEntityTooLarge || got != want {
			t.Errorf("declared %v, one byte over: got %d %s, want 413 %s", declared, status, got, want)
		}
		if got := len(up.Requests()); got != n+1 {
			t.Errorf("declared %v: a body over the limit went upstream", declared)
		}
	}
}
