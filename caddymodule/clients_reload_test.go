package caddymodule

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/thinkgate/thinkgate/internal/limitstore"
)

// recordingStore is a shared store that notes releases and its closing,
// and refuses calls once closed, as a closed Redis client does.
type recordingStore struct {
	mu       sync.Mutex
	closed   bool
	released []string // lease ids, in order
	events   []string
}

func (s *recordingStore) Acquire(_ context.Context, client string, _ limitstore.Limits, _ time.Time) (limitstore.Decision, limitstore.Lease, error) {
	return limitstore.Decision{}, limitstore.Lease{Client: client, ID: "lease-1"}, nil
}

func (s *recordingStore) Release(_ context.Context, lease limitstore.Lease, _ int64, _ time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		s.events = append(s.events, "release on a closed store")
		return errClosedStore
	}
	s.events = append(s.events, "release "+lease.ID)
	return nil
}

func (s *recordingStore) Peek(context.Context, string, limitstore.Limits, time.Time) (limitstore.Decision, error) {
	return limitstore.Decision{}, nil
}

func (s *recordingStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.events = append(s.events, "close")
	return nil
}

var errClosedStore = &limitstoreClosed{}

type limitstoreClosed struct{}

func (*limitstoreClosed) Error() string { return "redis: client is closed" }

// TestReloadReleasesBeforeClosing: a config cleaned up (a reload) while one
// of its requests runs keeps its store open until that request has
// released its open-stream slot, then closes it.
func TestReloadReleasesBeforeClosing(t *testing.T) {
	if err := initMetrics(prometheus.NewRegistry()); err != nil {
		t.Fatal(err)
	}
	store := &recordingStore{}
	c := &Clients{
		clients: []*client{{name: "held", key: []byte("held-key"), limits: limitstore.Limits{MaxStreams: 1}}},
		store:   store, inUse: &storeUse{close: store.Close},
		timeout: time.Second, logger: zap.NewNop(), warned: new(atomic.Int64),
	}
	started, release := make(chan struct{}), make(chan struct{})
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		close(started)
		<-release
		w.WriteHeader(http.StatusOK)
		return nil
	})
	done := make(chan error)
	go func() {
		r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{}`))
		r.Header.Set("X-Api-Key", "held-key")
		done <- c.ServeHTTP(httptest.NewRecorder(), r, next)
	}()
	<-started
	if err := c.Cleanup(); err != nil {
		t.Fatal(err)
	}
	store.mu.Lock()
	early := append([]string(nil), store.events...)
	store.mu.Unlock()
	if len(early) != 0 {
		t.Fatalf("while the request runs: %q", early)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(store.events, ", "); got != "release lease-1, close" {
		t.Errorf("store events %q; want the release, then the close", got)
	}
	// An idle config closes at once.
	idle := &recordingStore{}
	c2 := &Clients{inUse: &storeUse{close: idle.Close}}
	if err := c2.Cleanup(); err != nil || !idle.closed {
		t.Errorf("idle cleanup: %v, closed %v", err, idle.closed)
	}
}
