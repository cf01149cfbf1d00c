package reliability_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestMatcherRequestBodyTimeout: a client that trickles its body to a site
// whose routes a thinkgate matcher chooses gets 408 when the matcher's
// request_body_timeout passes, from the thinkgate handler of the route
// that runs, although Caddy's own server timeouts are unset; nothing goes
// upstream, and the connection is closed.
func TestMatcherRequestBodyTimeout(t *testing.T) {
	up := splitUpstream(t)
	site := fmt.Sprintf(`@big thinkgate {
	min_input_tokens 100000
	request_body_timeout 1s
}
handle @big {
	thinkgate anthropic {
		signing_key k
	}
	reverse_proxy %[1]s
}
handle {
	thinkgate anthropic {
		signing_key k
	}
	reverse_proxy %[1]s
}`, up.Addr())
	gw := testgw.Start(t, slot, site)
	conn, err := net.Dial("tcp", strings.TrimPrefix(gw.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/messages HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(streamRequest))
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < len(streamRequest)-1; i++ { // never the last byte
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if _, err := conn.Write([]byte{streamRequest[i]}); err != nil {
				return
			}
		}
	}()
	// A guard, not a measure: without the matcher's bound the answer
	// never comes (Caddy's server has no read timeout here).
	_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	close(stop)
	if err != nil {
		t.Fatalf("no answer to a trickled body: %v", err)
	}
	body, _ := io.ReadAll(res.Body)
	const want = `{"type":"error","error":{"type":"timeout_error","message":"request body not received within 1s (request_body_timeout)"}}`
	if res.StatusCode != http.StatusRequestTimeout || string(body) != want {
		t.Errorf("got %d %s, want 408 %s", res.StatusCode, body, want)
	}
	// The server closes the connection: nothing more is read from it.
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("after the 408 the connection gave %v, want EOF", err)
	}
	<-done
	if n := len(up.Requests()); n != 0 {
		t.Errorf("the upstream got %d requests", n)
	}

	// A body that arrives in time is served as before.
	if res, _ := gw.PostRead("/v1/messages", streamRequest); res.StatusCode != 200 {
		t.Errorf("a prompt body: %d", res.StatusCode)
	}
}
