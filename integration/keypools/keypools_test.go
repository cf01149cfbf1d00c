package keypools_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/thinkgate/thinkgate/internal/testgw"
	"github.com/thinkgate/thinkgate/providers/emit"
)

const slot = testgw.SlotKeyPools

const (
	keyA = "sk-pool-key-aaaaaaaa"
	keyB = "sk-pool-key-bbbbbbbb"
	keyC = "sk-pool-key-cccccccc"
)

// completion is the upstream's Chat Completions answer.
const completion = `{"id":"c1","object":"chat.completion","model":"gpt-4.1","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`

// keyUpstream answers each request by the key it carries: answer returns
// the status and Retry-After for a key, 200 with completion when status is
// 200.
type keyUpstream struct {
	*testgw.Upstream
	mu   sync.Mutex
	keys []string // the key of each request, in order
}

func newKeyUpstream(t *testing.T, answer func(key string) (int, string)) *keyUpstream {
	u := &keyUpstream{}
	u.Upstream = testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		u.mu.Lock()
		u.keys = append(u.keys, key)
		u.mu.Unlock()
		status, retryAfter := answer(key)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req-"+key[len(key)-1:])
		if status != http.StatusOK {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			w.WriteHeader(status)
			io.WriteString(w, `{"error":{"message":"limited `+key+`","type":"requests","code":"rate_limit_exceeded"}}`)
			return
		}
		io.WriteString(w, completion)
	})
	return u
}

func (u *keyUpstream) seen() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.keys...)
}

// start runs a site with the openai provider and options in front of up.
func start(t *testing.T, options string, up *testgw.Upstream) *testgw.Gateway {
	return testgw.Start(t, slot, fmt.Sprintf(`handle /metrics {
	metrics
}
thinkgate openai {
	signing_key test-signing-key
	model claude-* gpt-4.1
%s
}
reverse_proxy %s`, options, up.Addr()))
}

func params(userID string) anthropic.MessageNewParams {
	p := anthropic.MessageNewParams{
		Model:     "claude-sonnet-4-5",
		MaxTokens: 50,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hello"))},
		Thinking:  anthropic.ThinkingConfigParamUnion{OfDisabled: &anthropic.ThinkingConfigDisabledParam{}},
	}
	if userID != "" {
		p.Metadata = anthropic.MetadataParam{UserID: anthropic.String(userID)}
	}
	return p
}

// claudeCodeUserID is metadata.user_id as Claude Code writes it.
func claudeCodeUserID(session string) string {
	return `{"device_id":"d1","account_uuid":"","session_id":"` + session + `"}`
}

// TestKeyPool429GoesToNextKey: the first key answers 429 with Retry-After;
// the same request goes to the next key before anything reached the
// client, which gets the second key's answer. The cooling key is skipped by
// the next request of the same session.
func TestKeyPool429GoesToNextKey(t *testing.T) {
	var mu sync.Mutex
	limited := ""
	up := newKeyUpstream(t, func(key string) (int, string) {
		mu.Lock()
		defer mu.Unlock()
		if limited == "" {
			limited = key // the first key tried
		}
		if key == limited {
			return http.StatusTooManyRequests, "30"
		}
		return http.StatusOK, ""
	})
	gw := start(t, "\tapi_key "+keyA+" "+keyB, up.Upstream)
	attempts := func(key, outcome string) float64 {
		return gw.Metric(t, "caddy_thinkgate_upstream_key_attempts_total", map[string]string{"provider": "openai", "key": key, "outcome": outcome})
	}
	before1, before2 := attempts("1", "rate_limited"), attempts("2", "rate_limited")
	beforeA1, beforeA2 := attempts("1", "answered"), attempts("2", "answered")
	client := gw.Client()
	var res *http.Response
	msg, err := client.Messages.New(context.Background(), params(claudeCodeUserID("sess-1")), option.WithResponseInto(&res))
	if err != nil {
		t.Fatalf("request: %v", err)
	}
	if len(msg.Content) != 1 || msg.Content[0].Text != "hi" {
		t.Fatalf("content: %+v", msg.Content)
	}
	seen := up.seen()
	other := map[string]string{keyA: keyB, keyB: keyA}[limited]
	if len(seen) != 2 || seen[0] != limited || seen[1] != other {
		t.Fatalf("upstream keys: %q; want %q then %q", seen, limited, other)
	}
	// The client sees the answering key's request id, nothing of the 429.
	if got := res.Header.Get("X-Upstream-Request-Id"); got != "req-"+other[len(other)-1:] {
		t.Errorf("X-Upstream-Request-Id %q", got)
	}
	if got := res.Header.Get("Retry-After"); got != "" {
		t.Errorf("Retry-After %q reached the client", got)
	}
	// Both attempts sent the same body; the second carries only the
	// second key.
	reqs := up.Requests()
	if string(reqs[0].Body) != string(reqs[1].Body) {
		t.Errorf("bodies differ:\n%s\n%s", reqs[0].Body, reqs[1].Body)
	}
	h := reqs[1].Header
	if got := h.Values("Authorization"); len(got) != 1 || got[0] != "Bearer "+other {
		t.Errorf("Authorization %q", got)
	}
	for k, vs := range h {
		for _, v := range vs {
			if strings.Contains(v, limited) {
				t.Errorf("header %s carries the first key: %q", k, v)
			}
		}
	}
	// The same session's next request goes straight to the other key.
	if _, err := client.Messages.New(context.Background(), params(claudeCodeUserID("sess-1"))); err != nil {
		t.Fatal(err)
	}
	if seen := up.seen(); len(seen) != 3 || seen[2] != other {
		t.Fatalf("upstream keys: %q; want the third on %q", seen, other)
	}
	limitedDelta := attempts("1", "rate_limited") - before1
	answeredDelta := attempts("2", "answered") - beforeA2
	if limited == keyB {
		limitedDelta = attempts("2", "rate_limited") - before2
		answeredDelta = attempts("1", "answered") - beforeA1
	}
	if limitedDelta != 1 || answeredDelta != 2 {
		t.Errorf("metrics: rate_limited %v on the first key, answered %v on the other; want 1 and 2", limitedDelta, answeredDelta)
	}
}

// TestKeyPool401SetsKeyAside: a key the upstream refuses (401) is not
// tried again; every request is answered by the other key.
func TestKeyPool401SetsKeyAside(t *testing.T) {
	up := newKeyUpstream(t, func(key string) (int, string) {
		if key == keyA {
			return http.StatusUnauthorized, ""
		}
		return http.StatusOK, ""
	})
	gw := start(t, "\tapi_key "+keyA+" "+keyB+"\n\tkey_selection round_robin", up.Upstream)
	setAside := map[string]string{"provider": "openai", "key": "1", "outcome": "set_aside"}
	before := gw.Metric(t, "caddy_thinkgate_upstream_key_attempts_total", setAside)
	client := gw.Client()
	for i := 0; i < 4; i++ {
		msg, err := client.Messages.New(context.Background(), params(""))
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if msg.Content[0].Text != "hi" {
			t.Fatalf("request %d: %+v", i, msg.Content)
		}
	}
	seen := up.seen()
	if n := strings.Count(strings.Join(seen, " "), keyA); n != 1 {
		t.Errorf("key A tried %d times (%q); want once", n, seen)
	}
	if n := strings.Count(strings.Join(seen, " "), keyB); n != 4 {
		t.Errorf("key B answered %d times (%q); want 4", n, seen)
	}
	if got := gw.Metric(t, "caddy_thinkgate_upstream_key_attempts_total", setAside) - before; got != 1 {
		t.Errorf("set_aside on key 1: %v", got)
	}
}

// TestKeyPoolEveryKeyRefused: with every key refused the client gets the
// gateway's 502, and no further request reaches the upstream.
func TestKeyPoolEveryKeyRefused(t *testing.T) {
	up := newKeyUpstream(t, func(string) (int, string) { return http.StatusForbidden, "" })
	gw := start(t, "\tapi_key "+keyA+" "+keyB, up.Upstream)
	want := `{"type":"error","error":{"type":"api_error","message":"the upstream refused every api_key of provider openai (401/403); they are set aside until the configuration is reloaded"}}`
	for i := 0; i < 2; i++ {
		res, body := gw.PostRead("/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":50,"messages":[{"role":"user","content":"Hello"}]}`)
		if res.StatusCode != http.StatusBadGateway || body != want {
			t.Fatalf("request %d: %d %s", i, res.StatusCode, body)
		}
	}
	if seen := up.seen(); len(seen) != 2 {
		t.Fatalf("upstream requests %q; want one per key", seen)
	}
}

// TestKeyPoolAllCooling: when every key answers 429 the client gets a 429
// whose retry-after is the shortest wait of the keys; requests while every
// key cools down do not reach the upstream. key_cooldown_max bounds a long
// Retry-After.
func TestKeyPoolAllCooling(t *testing.T) {
	up := newKeyUpstream(t, func(key string) (int, string) {
		switch key {
		case keyA:
			return http.StatusTooManyRequests, "40"
		case keyB:
			return http.StatusTooManyRequests, "20"
		}
		return http.StatusTooManyRequests, "3600"
	})
	gw := start(t, "\tapi_key "+keyA+" "+keyB+" "+keyC+"\n\tkey_cooldown_max 30s", up.Upstream)
	const req = `{"model":"claude-sonnet-4-5","max_tokens":50,"messages":[{"role":"user","content":"Hello"}]}`
	exhausted := map[string]string{"provider": "openai"}
	before := gw.Metric(t, "caddy_thinkgate_upstream_keys_exhausted_total", exhausted)
	res, body := gw.PostRead("/v1/messages", req)
	want := `{"type":"error","error":{"type":"rate_limit_error","message":"every api_key of provider openai is rate limited by the upstream; retry in 20s"}}`
	if res.StatusCode != http.StatusTooManyRequests || body != want {
		t.Fatalf("got %d %s", res.StatusCode, body)
	}
	if got := res.Header.Get("Retry-After"); got != "20" {
		t.Errorf("retry-after %q, want 20", got)
	}
	if seen := up.seen(); len(seen) != 3 {
		t.Fatalf("upstream requests %q; want one per key", seen)
	}
	// Every key cools down: the gateway answers alone.
	res, _ = gw.PostRead("/v1/messages", req)
	secs, _ := strconv.Atoi(res.Header.Get("Retry-After"))
	if res.StatusCode != http.StatusTooManyRequests || secs < 1 || secs > 20 {
		t.Fatalf("second request: %d retry-after %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
	if seen := up.seen(); len(seen) != 3 {
		t.Fatalf("upstream requests %q after the keys cooled down", seen)
	}
	if got := gw.Metric(t, "caddy_thinkgate_upstream_keys_exhausted_total", exhausted) - before; got != 2 {
		t.Errorf("exhausted: %v", got)
	}
}

// TestKeyPoolCooldownBound: a Retry-After longer than key_cooldown_max
// rests the key only that long.
func TestKeyPoolCooldownBound(t *testing.T) {
	up := newKeyUpstream(t, func(string) (int, string) { return http.StatusTooManyRequests, "3600" })
	gw := start(t, "\tapi_key "+keyA+" "+keyB+"\n\tkey_cooldown_max 5s", up.Upstream)
	res, _ := gw.PostRead("/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":50,"messages":[{"role":"user","content":"Hello"}]}`)
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "5" {
		t.Fatalf("got %d retry-after %q; want 429 and 5", res.StatusCode, res.Header.Get("Retry-After"))
	}
}

// TestKeyPoolSessionStickiness: one session keeps one key, whether it is
// named in metadata.user_id or the x-claude-code-session-id header;
// sessions spread over the keys.
func TestKeyPoolSessionStickiness(t *testing.T) {
	up := newKeyUpstream(t, func(string) (int, string) { return http.StatusOK, "" })
	gw := start(t, "\tapi_key "+keyA+" "+keyB+" "+keyC, up.Upstream)
	client := gw.Client()
	keyOf := func(p anthropic.MessageNewParams, opts ...option.RequestOption) string {
		t.Helper()
		if _, err := client.Messages.New(context.Background(), p, opts...); err != nil {
			t.Fatal(err)
		}
		seen := up.seen()
		return seen[len(seen)-1]
	}
	used := map[string]bool{}
	for i := 0; i < 8; i++ {
		session := fmt.Sprintf("session-%d", i)
		first := keyOf(params(claudeCodeUserID(session)))
		used[first] = true
		for j := 0; j < 2; j++ {
			if got := keyOf(params(claudeCodeUserID(session))); got != first {
				t.Fatalf("%s: key %q then %q", session, first, got)
			}
		}
		if got := keyOf(params(""), option.WithHeader("X-Claude-Code-Session-Id", session)); got != first {
			t.Fatalf("%s by header: key %q, by metadata %q", session, got, first)
		}
	}
	if len(used) < 2 {
		t.Fatalf("8 sessions all used %v", used)
	}
}

// sessionKey is the prompt_cache_key the gateway derives for a session
// without client keys: the keyed hash under the site's signing key.
func sessionKey(session string) string {
	sum := emit.NewSigner([]byte("test-signing-key")).KeyedID("client session", "", "session", session)
	return hex.EncodeToString(sum[:16])
}

// TestPromptCacheKeyOpenAI: the upstream body carries prompt_cache_key,
// the session's keyed hash, the same for metadata.user_id and the header;
// prompt_cache_key off sends none.
func TestPromptCacheKeyOpenAI(t *testing.T) {
	up := newKeyUpstream(t, func(string) (int, string) { return http.StatusOK, "" })
	gw := start(t, "\tapi_key "+keyA, up.Upstream)
	client := gw.Client()
	if _, err := client.Messages.New(context.Background(), params(claudeCodeUserID("sess-42"))); err != nil {
		t.Fatal(err)
	}
	user, _ := json.Marshal(claudeCodeUserID("sess-42")) // the openai provider's user, as it sends it
	want := `{"model":"gpt-4.1","messages":[{"role":"user","content":"Hello"}],"max_tokens":50,"user":` + string(user) + `,"prompt_cache_key":"` + sessionKey("sess-42") + `"}`
	if got := string(up.Last(t).Body); got != want {
		t.Fatalf("body:\n got %s\nwant %s", got, want)
	}
	if _, err := client.Messages.New(context.Background(), params(""), option.WithHeader("X-Claude-Code-Session-Id", "sess-42")); err != nil {
		t.Fatal(err)
	}
	want = `{"model":"gpt-4.1","messages":[{"role":"user","content":"Hello"}],"max_tokens":50,"prompt_cache_key":"` + sessionKey("sess-42") + `"}`
	if got := string(up.Last(t).Body); got != want {
		t.Fatalf("body by header:\n got %s\nwant %s", got, want)
	}
	// No session, no client: no key.
	if _, err := client.Messages.New(context.Background(), params("")); err != nil {
		t.Fatal(err)
	}
	want = `{"model":"gpt-4.1","messages":[{"role":"user","content":"Hello"}],"max_tokens":50}`
	if got := string(up.Last(t).Body); got != want {
		t.Fatalf("body without session:\n got %s\nwant %s", got, want)
	}

	gw = start(t, "\tapi_key "+keyA+"\n\tprompt_cache_key off", up.Upstream)
	c := gw.Client()
	if _, err := c.Messages.New(context.Background(), params(""), option.WithHeader("X-Claude-Code-Session-Id", "sess-42")); err != nil {
		t.Fatal(err)
	}
	if got := string(up.Last(t).Body); got != want {
		t.Fatalf("body with prompt_cache_key off:\n got %s\nwant %s", got, want)
	}
}

// TestPromptCacheKeyResponses: the Responses body carries the same key.
func TestPromptCacheKeyResponses(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[{"type":"message","id":"m1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"hi","annotations":[]}]}],"usage":{"input_tokens":10,"output_tokens":2,"total_tokens":12}}`)
	})
	gw := testgw.Start(t, slot, fmt.Sprintf(`thinkgate responses {
	signing_key test-signing-key
	model claude-* gpt-5
	api_key %s
}
reverse_proxy %s`, keyA, up.Addr()))
	p := params("")
	c := gw.Client()
	if _, err := c.Messages.New(context.Background(), p, option.WithHeader("X-Claude-Code-Session-Id", "sess-42")); err != nil {
		t.Fatal(err)
	}
	want := `{"model":"gpt-5","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Hello"}]}],"max_output_tokens":50,"store":false,"prompt_cache_key":"` + sessionKey("sess-42") + `"}`
	if got := string(up.Last(t).Body); got != want {
		t.Fatalf("body:\n got %s\nwant %s", got, want)
	}
}
