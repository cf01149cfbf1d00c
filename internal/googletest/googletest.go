// Package googletest runs Google's service-account token flow offline: it
// writes a service-account key file whose token_uri points at a test token
// server, which checks the JWT-bearer grant the client library sends (its
// signature against the key's public half) and counts the tokens it issues.
package googletest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// ClientEmail is the service account of the key file.
const ClientEmail = "gateway@test-project.iam.gserviceaccount.com"

// Scope is the scope every grant must ask for.
const Scope = "https://www.googleapis.com/auth/cloud-platform"

// TokenServer is a test OAuth token endpoint.
type TokenServer struct {
	*httptest.Server
	key *rsa.PrivateKey

	mu sync.Mutex
	// ExpiresIn is the lifetime of the tokens it issues, in seconds.
	ExpiresIn int
	// FailStatus, when set, answers every grant with this status and
	// FailBody.
	FailStatus int
	FailBody   string
	// Delay holds each answer this long.
	Delay time.Duration
	// Trickle is how many of the next grants are answered one byte at a
	// time, 20ms apart, a body that never ends within a test; cut counts
	// those whose client gave up on them.
	Trickle int
	cut     int
	issued  int
	badJWTs []string
}

// NewTokenServer starts a token server with a fresh RSA key.
func NewTokenServer(t testing.TB) *TokenServer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	s := &TokenServer{key: key, ExpiresIn: 3600}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// TokenURL is the token_uri of the key file.
func (s *TokenServer) TokenURL() string { return s.URL + "/token" }

// Token is the access token the n-th grant (from 1) issues.
func Token(n int) string { return fmt.Sprintf("ya29.test-access-token-%d", n) }

// Issued is how many tokens the server has issued.
func (s *TokenServer) Issued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.issued
}

// Cut is how many trickled answers the client stopped reading.
func (s *TokenServer) Cut() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cut
}

// Set changes the server's behaviour under its lock.
func (s *TokenServer) Set(f func(s *TokenServer)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

// Check fails the test if any grant the server got was not a valid
// JWT-bearer grant of the key file's account.
func (s *TokenServer) Check(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.badJWTs {
		t.Errorf("token server: %s", e)
	}
}

func (s *TokenServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	delay, status, body := s.Delay, s.FailStatus, s.FailBody
	s.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	if err := s.checkGrant(r); err != nil {
		s.mu.Lock()
		s.badJWTs = append(s.badJWTs, err.Error())
		s.mu.Unlock()
		http.Error(w, `{"error":"invalid_grant","error_description":"test server: `+err.Error()+`"}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	s.mu.Lock()
	trickle := s.Trickle > 0
	if trickle {
		s.Trickle--
	}
	s.mu.Unlock()
	if trickle {
		s.trickle(w, r)
		return
	}
	if status != 0 {
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
		return
	}
	s.mu.Lock()
	s.issued++
	n, exp := s.issued, s.ExpiresIn
	s.mu.Unlock()
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": Token(n), "expires_in": exp, "token_type": "Bearer"})
}

// checkGrant verifies a JWT-bearer grant: its form, its RS256 signature
// under the key file's key, and its claims.
func (s *TokenServer) checkGrant(r *http.Request) error {
	if r.Method != http.MethodPost || r.URL.Path != "/token" {
		return fmt.Errorf("%s %s, want POST /token", r.Method, r.URL.Path)
	}
	if err := r.ParseForm(); err != nil {
		return err
	}
	if g := r.PostForm.Get("grant_type"); g != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		return fmt.Errorf("grant_type %q", g)
	}
	parts := strings.Split(r.PostForm.Get("assertion"), ".")
	if len(parts) != 3 {
		return fmt.Errorf("assertion is not a JWT")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return fmt.Errorf("signature: %v", err)
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(&s.key.PublicKey, crypto.SHA256, sum[:], sig); err != nil {
		return fmt.Errorf("signature does not verify: %v", err)
	}
	var header struct{ Alg, Kid string }
	var claims struct {
		Iss, Scope, Aud string
		Exp, Iat        int64
	}
	if err := decodeSegment(parts[0], &header); err != nil {
		return err
	}
	if err := decodeSegment(parts[1], &claims); err != nil {
		return err
	}
	switch {
	case header.Alg != "RS256" || header.Kid != "test-key-id":
		return fmt.Errorf("header %+v", header)
	case claims.Iss != ClientEmail || claims.Scope != Scope || claims.Aud != s.TokenURL():
		return fmt.Errorf("claims %+v", claims)
	case claims.Exp <= time.Now().Unix() || claims.Iat > time.Now().Unix()+60:
		return fmt.Errorf("times iat %d exp %d", claims.Iat, claims.Exp)
	}
	return nil
}

func decodeSegment(seg string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// WriteKeyFile writes a service-account key file for the server's key and
// returns its path.
func (s *TokenServer) WriteKeyFile(t testing.TB) string {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(s.key)
	if err != nil {
		t.Fatal(err)
	}
	file, _ := json.Marshal(map[string]string{
		"type":           "service_account",
		"project_id":     "test-project",
		"private_key_id": "test-key-id",
		"private_key":    string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email":   ClientEmail,
		"client_id":      "1234567890",
		"token_uri":      s.TokenURL(),
	})
	path := filepath.Join(t.TempDir(), "service-account.json")
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// trickle sends a token answer padded to minutes of one byte every 20ms,
// until the client stops reading it.
func (s *TokenServer) trickle(w http.ResponseWriter, r *http.Request) {
	body := `{"access_token":"ya29.trickled",` + strings.Repeat(" ", 20000) + `"expires_in":3600,"token_type":"Bearer"}`
	rc := http.NewResponseController(w)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for i := 0; i < len(body); i++ {
		select {
		case <-r.Context().Done():
			s.mu.Lock()
			s.cut++
			s.mu.Unlock()
			return
		case <-tick.C:
		}
		if _, err := w.Write([]byte{body[i]}); err != nil || rc.Flush() != nil {
			s.mu.Lock()
			s.cut++
			s.mu.Unlock()
			return
		}
	}
}
