package fallback_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestLargeBodyReachesEveryStep: a body large enough to be read into a
// pooled buffer reaches each step byte for byte, a bare reverse_proxy step
// (which reads the fallback's copy itself) and a thinkgate step (which
// reads it into a buffer of its own), sent with its length and chunked.
func TestLargeBodyReachesEveryStep(t *testing.T) {
	body := `{"model":"claude-sonnet-4-5","max_tokens":100,"messages":[` + testgw.History(400<<10) + `,{"role":"user","content":"last"}]}`

	first := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(529)
		io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	})
	second := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"`+geminiText+`"}],`+
			`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":4}}`)
	})
	gw := testgw.Start(t, slot, fmt.Sprintf(`thinkgate_fallback {
	try {
		reverse_proxy %s
	}
	try {
		thinkgate anthropic
		reverse_proxy %s
	}
}`, first.Addr(), second.Addr()))

	for _, chunked := range []bool{false, true} {
		var rd io.Reader = strings.NewReader(body)
		if chunked {
			rd = io.MultiReader(rd)
		}
		req, _ := http.NewRequest("POST", gw.URL+"/v1/messages", rd)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || !strings.Contains(string(got), geminiText) {
			t.Fatalf("chunked %v: %d %.300s", chunked, res.StatusCode, got)
		}
		for _, up := range []*testgw.Upstream{first, second} {
			if b := up.Last(t).Body; !bytes.Equal(b, []byte(body)) {
				t.Errorf("chunked %v: a step's upstream got %d bytes, not the client's %d", chunked, len(b), len(body))
			}
		}
	}
	if len(first.Requests()) != 2 || len(second.Requests()) != 2 {
		t.Errorf("the steps got %d and %d requests, want 2 each", len(first.Requests()), len(second.Requests()))
	}
}
