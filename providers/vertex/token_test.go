package vertex

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thinkgate/thinkgate/internal/googletest"
	"github.com/thinkgate/thinkgate/providers/wire"
)

func loadTokens(t *testing.T, ts *googletest.TokenServer, timeout string) Tokens {
	t.Helper()
	file := ts.WriteKeyFile(t)
	tokens, desc, err := LoadCredentials(Config{CredentialsFile: file, TokenTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	if want := "file " + file + ", service_account, " + googletest.ClientEmail; desc != want {
		t.Errorf("description %q, want %q", desc, want)
	}
	return tokens
}

// Concurrent requests share one fetch; later ones reuse the cached token.
func TestTokenFetchedOnceForConcurrentRequests(t *testing.T) {
	ts := googletest.NewTokenServer(t)
	ts.Set(func(s *googletest.TokenServer) { s.Delay = 100 * time.Millisecond })
	tokens := loadTokens(t, ts, "")
	var wg sync.WaitGroup
	got := make([]string, 20)
	errs := make([]error, 20)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = tokens.AccessToken()
		}()
	}
	wg.Wait()
	for i := range got {
		if errs[i] != nil || got[i] != googletest.Token(1) {
			t.Errorf("request %d: %q, %v; want %q", i, got[i], errs[i], googletest.Token(1))
		}
	}
	if tok, err := tokens.AccessToken(); err != nil || tok != googletest.Token(1) {
		t.Errorf("later request: %q, %v", tok, err)
	}
	if n := ts.Issued(); n != 1 {
		t.Errorf("token server asked %d times, want 1", n)
	}
	ts.Check(t)
}

// The library refreshes a token 10s before it expires: a 12s token is
// replaced after 2s, well before its end.
func TestTokenRefreshedBeforeExpiry(t *testing.T) {
	ts := googletest.NewTokenServer(t)
	ts.Set(func(s *googletest.TokenServer) { s.ExpiresIn = 12 })
	tokens := loadTokens(t, ts, "")
	start := time.Now()
	if tok, _ := tokens.AccessToken(); tok != googletest.Token(1) {
		t.Fatalf("first token %q", tok)
	}
	if tok, _ := tokens.AccessToken(); tok != googletest.Token(1) {
		t.Fatalf("token within its life: %q, want the cached one", tok)
	}
	time.Sleep(2*time.Second + 200*time.Millisecond)
	if tok, _ := tokens.AccessToken(); tok != googletest.Token(2) {
		t.Fatalf("token 2.2s into a 12s life: %q, want a fresh one", tok)
	}
	if time.Since(start) >= 12*time.Second {
		t.Fatal("the refresh came after the first token expired")
	}
	if n := ts.Issued(); n != 2 {
		t.Errorf("token server asked %d times, want 2", n)
	}
	ts.Check(t)
}

// A token endpoint that fails, refuses or stalls gives the client an
// Anthropic error that says the credential failed, within the timeout.
func TestTokenFailures(t *testing.T) {
	for _, c := range []struct {
		name       string
		status     int
		body       string
		delay      time.Duration
		down       bool
		wantStatus int
		wantType   string
		wantMsg    string // %s: the token URL
	}{
		{name: "invalid grant", status: 400, body: `{"error":"invalid_grant","error_description":"Invalid JWT Signature."}`,
			wantStatus: 401, wantType: "authentication_error",
			wantMsg: "vertex: the Google credential failed: the token endpoint answered 400 invalid_grant: Invalid JWT Signature."},
		{name: "forbidden", status: 403, body: `{"error":"access_denied","error_description":"Account disabled."}`,
			wantStatus: 403, wantType: "permission_error",
			wantMsg: "vertex: the Google credential failed: the token endpoint answered 403 access_denied: Account disabled."},
		{name: "endpoint error", status: 503, body: `unavailable`,
			wantStatus: 502, wantType: "api_error",
			wantMsg: "vertex: the Google credential failed: the token endpoint answered 503"},
		{name: "slow", delay: 3 * time.Second,
			wantStatus: 502, wantType: "api_error",
			wantMsg: "vertex: the Google credential failed: no access token within 300ms"},
		{name: "down", down: true,
			wantStatus: 502, wantType: "api_error",
			wantMsg: `vertex: the Google credential failed: oauth2: cannot fetch token: Post "%s": dial tcp %s: connect: connection refused`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := googletest.NewTokenServer(t)
			ts.Set(func(s *googletest.TokenServer) { s.FailStatus, s.FailBody, s.Delay = c.status, c.body, c.delay })
			// Only the stalled endpoint meets the timeout; the others must
			// answer for themselves, however loaded the machine.
			timeout := "1m"
			if c.delay > 0 {
				timeout = "300ms"
			}
			tokens := loadTokens(t, ts, timeout)
			url, addr := ts.TokenURL(), ts.Listener.Addr().String()
			if c.down {
				ts.Close()
			}
			// The stalled endpoint would answer with a token: an error
			// says the wait was bounded.
			tok, err := tokens.AccessToken()
			if tok != "" {
				t.Errorf("token %q with an error", tok)
			}
			e := wire.AsError(err)
			want := c.wantMsg
			if strings.Contains(want, "%s") {
				want = fmt.Sprintf(want, url, addr)
			}
			wantBody := `{"type":"error","error":{"type":"` + c.wantType + `","message":` + fmt.Sprintf("%q", want) + `}}`
			if e.Status != c.wantStatus || string(e.Body()) != wantBody {
				t.Errorf("got %d %s\nwant %d %s", e.Status, e.Body(), c.wantStatus, wantBody)
			}
			ts.Check(t)
		})
	}
}

func TestLoadCredentialsErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.json")
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"type":"service_account","private_key":"not a key"`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, want string }{
		{missing, "credentials_file: open " + missing + ": no such file or directory"},
		{bad, "credentials_file: " + bad + ": unexpected end of JSON input"},
	} {
		_, _, err := LoadCredentials(Config{CredentialsFile: c.file})
		if got := errText(err); got != c.want {
			t.Errorf("%s: %q, want %q", c.file, got, c.want)
		}
	}
}
