package clients_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// redisSite is site with a Redis store.
func redisSite(client, storeOpts string, up *testgw.Upstream, addr string) string {
	return site(fmt.Sprintf(`%s
store redis %s {
	prefix tgtest
%s
}`, client, addr, storeOpts), up)
}

// TestSharedLimitTwoGateways: two gateway processes (the in-process Caddy
// and a second one built from cmd/caddy) on one Redis enforce one limit
// between them, for requests and for tokens. Two servers in one process
// would prove less: the process's own counters are shared by name too.
func TestSharedLimitTwoGateways(t *testing.T) {
	shared.flush(t)
	up := anthropicUpstream(t)
	client := `client team {
	key team-key
	requests_per_minute 5
	tokens_per_minute 300
}`
	gw := testgw.Start(t, slot, redisSite(client, "", up, shared.addr()))
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	runGateway(t, fmt.Sprintf(`{
	admin off
	grace_period 1ns
}
http://127.0.0.1:%d {
%s
}
`, port, redisSite(client, "", up, shared.addr())), port)
	second := fmt.Sprintf("http://127.0.0.1:%d", port)

	freshMinute(t)
	// Requests alternate between the gateways; the counts run on.
	for i, base := range []string{gw.URL, second, gw.URL} {
		res, _ := postTo(t, base, "team-key", request)
		if res.StatusCode != 200 {
			t.Fatalf("request %d: %d", i+1, res.StatusCode)
		}
		wantHeaders(t, res, "Requests", "5", strconv.Itoa(4-i))
		wantHeaders(t, res, "Tokens", "300", strconv.Itoa(max(0, 300-countedPerCall*i)))
		waitTokens(t, "team", int64(countedPerCall*(i+1)))
	}
	// 375 tokens this minute: both gateways refuse.
	for _, base := range []string{gw.URL, second} {
		res, body := postTo(t, base, "team-key", request)
		if want := fmt.Sprintf(rateLimited, "team", "tokens_per_minute 300", res.Header.Get("Retry-After")); res.StatusCode != 429 || body != want {
			t.Errorf("%s: %d %s, want 429 %s", base, res.StatusCode, body, want)
		}
	}
	if n := len(up.Requests()); n != 3 {
		t.Errorf("the upstream got %d requests, want 3", n)
	}
}

// waitTokens waits until Redis holds n tokens for client this minute: the
// gateway counts them once the response has ended.
func waitTokens(t *testing.T, client string, n int64) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: shared.addr()})
	defer c.Close()
	for i := 0; ; i++ {
		keys, err := c.Keys(context.Background(), "tgtest:{"+client+"}:tokens:*").Result()
		if err != nil {
			t.Fatal(err)
		}
		var got int64
		for _, k := range keys {
			v, _ := c.Get(context.Background(), k).Int64()
			got += v
		}
		if got == n {
			return
		}
		if got > n || i > 4000 {
			t.Fatalf("redis holds %d tokens for %s, want %d", got, client, n)
		}
		sleepBriefly()
	}
}

// TestSharedHammer: 40 concurrent requests split between two gateways
// against a shared limit of 17 let exactly 17 through. The store's timeout
// is long and failures refused, so that a slow machine shows as a failure,
// never as requests let through.
func TestSharedHammer(t *testing.T) {
	shared.flush(t)
	up := anthropicUpstream(t)
	client := `client crowd {
	key crowd-key
	requests_per_minute 17
	max_streams 30
}`
	const opts = "timeout 10s\non_store_error deny"
	gw := testgw.Start(t, slot, redisSite(client, opts, up, shared.addr()))
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	runGateway(t, fmt.Sprintf("{\n\tadmin off\n}\nhttp://127.0.0.1:%d {\n%s\n}\n", port, redisSite(client, opts, up, shared.addr())), port)
	freshMinute(t)
	results := make(chan map[int]int, 2)
	go func() { results <- hammer(t, gw.URL, "crowd-key", 20) }()
	go func() { results <- hammer(t, fmt.Sprintf("http://127.0.0.1:%d", port), "crowd-key", 20) }()
	a, b := <-results, <-results
	if a[200]+b[200] != 17 || a[429]+b[429] != 23 || len(up.Requests()) != 17 {
		t.Errorf("statuses %v and %v, upstream %d; want 17×200 and 23×429 in all, 17 upstream", a, b, len(up.Requests()))
	}
}

// TestRedisRestart: a Redis restarted mid-run is used again as soon as it
// is back (its counters start afresh); while it is down, requests pass
// (on_store_error allow) without rate-limit headers.
func TestRedisRestart(t *testing.T) {
	shared.flush(t)
	up := anthropicUpstream(t)
	gw := testgw.Start(t, slot, redisSite(`client phoenix {
	key phoenix-key
	requests_per_minute 50
}`, "timeout 500ms", up, shared.addr()))
	freshMinute(t)
	for i := range 2 {
		res, _ := post(t, gw, "phoenix-key", request)
		wantHeaders(t, res, "Requests", "50", strconv.Itoa(49-i))
	}
	errorsBefore := gw.Metric(t, "caddy_thinkgate_client_store_errors_total", map[string]string{"op": "acquire"})
	shared.stop()
	res, _ := post(t, gw, "phoenix-key", request)
	if res.StatusCode != 200 || res.Header.Get("Anthropic-Ratelimit-Requests-Limit") != "" {
		t.Errorf("redis down: %d, headers %v", res.StatusCode, res.Header)
	}
	if got := gw.Metric(t, "caddy_thinkgate_client_store_errors_total", map[string]string{"op": "acquire"}); got != errorsBefore+1 {
		t.Errorf("store errors %v, want %v", got, errorsBefore+1)
	}
	shared.restart(t)
	res, _ = post(t, gw, "phoenix-key", request)
	if res.StatusCode != 200 {
		t.Fatalf("after restart: %d", res.StatusCode)
	}
	wantHeaders(t, res, "Requests", "50", "49")
}

// TestRedisDown: with the store unreachable, on_store_error allow lets
// requests through, deny refuses them; each failure is counted and warned
// about once.
func TestRedisDown(t *testing.T) {
	port, err := freePort() // nothing listens there
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	up := anthropicUpstream(t)
	for _, policy := range []string{"allow", "deny"} {
		t.Run(policy, func(t *testing.T) {
			gw := testgw.Start(t, slot, redisSite(`client lost-`+policy+` {
	key lost-key
	requests_per_minute 1
}`, "on_store_error "+policy, up, addr))
			before := gw.Metric(t, "caddy_thinkgate_client_store_errors_total", map[string]string{"op": "acquire"})
			for range 3 {
				res, body := post(t, gw, "lost-key", request)
				switch policy {
				case "allow":
					if res.StatusCode != 200 {
						t.Errorf("allow: %d %s", res.StatusCode, body)
					}
				default:
					want := `{"type":"error","error":{"type":"api_error","message":"the gateway cannot check the client's limits now; retry shortly"}}`
					if res.StatusCode != 503 || body != want || res.Header.Get("Retry-After") != "1" {
						t.Errorf("deny: %d %s, want 503 %s", res.StatusCode, body, want)
					}
				}
			}
			if got := gw.Metric(t, "caddy_thinkgate_client_store_errors_total", map[string]string{"op": "acquire"}); got != before+3 {
				t.Errorf("store errors %v, want %v", got, before+3)
			}
		})
	}
	if n := len(up.Requests()); n != 3 {
		t.Errorf("the upstream got %d requests, want 3 (allow's)", n)
	}
}

func sleepBriefly() { time.Sleep(5 * time.Millisecond) }

// TestRedisPeekHeaders: with the Redis store, GET /v1/models carries the
// client's windows as the store holds them, and counts nothing.
func TestRedisPeekHeaders(t *testing.T) {
	shared.flush(t)
	up := anthropicUpstream(t)
	gw := testgw.Start(t, slot, redisSite(`client looker {
	key looker-key
	requests_per_minute 40
}`, "timeout 10s", up, shared.addr()))
	freshMinute(t)
	res, _ := post(t, gw, "looker-key", request)
	wantHeaders(t, res, "Requests", "40", "39")
	for range 2 {
		req, _ := http.NewRequest("GET", gw.URL+"/v1/models", nil)
		req.Header.Set("x-api-key", "looker-key")
		models, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		models.Body.Close()
		wantHeaders(t, models, "Requests", "40", "39")
	}
}
