package vertex_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/thinkgate/thinkgate/internal/googletest"
	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestConcurrentRequestsShareOneToken: the first requests after a load
// arrive together while the token endpoint is slow; one token is fetched
// and every request carries it.
func TestConcurrentRequestsShareOneToken(t *testing.T) {
	ts := googletest.NewTokenServer(t)
	ts.Set(func(s *googletest.TokenServer) { s.Delay = 200 * time.Millisecond })
	up := mockVertex(t, jsonAnswer(`{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP"}]}`))
	gw := testgw.Start(t, slot, vertexSite(ts.WriteKeyFile(t), "", up))
	client := gw.Client()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := client.Messages.New(context.Background(), userParams("gemini-2.5-flash", "q"))
			if err == nil && (len(m.Content) != 1 || m.Content[0].Text != "ok") {
				t.Errorf("message: %s", m.RawJSON())
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := ts.Issued(); n != 1 {
		t.Errorf("%d tokens issued for 8 concurrent requests, want 1", n)
	}
	if n := len(up.Requests()); n != 8 {
		t.Errorf("Vertex got %d requests, want 8", n)
	}
	for _, r := range up.Requests() {
		if r.Header.Get("Authorization") != "Bearer "+googletest.Token(1) {
			t.Errorf("Authorization %q", r.Header.Get("Authorization"))
		}
	}
}
