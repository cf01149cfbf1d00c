package vertex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"golang.org/x/sync/singleflight"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// Scope is the OAuth scope of Vertex AI calls.
const Scope = "https://www.googleapis.com/auth/cloud-platform"

// Tokens gives the access token of each upstream request.
type Tokens interface {
	// AccessToken returns a valid token, or the Anthropic error the client
	// gets when there is none.
	AccessToken() (string, error)
}

// LoadCredentials finds the credentials of cfg: its credentials_file, or
// Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's
// file, the metadata server). A file that cannot be read or parsed is an
// error naming the option. No token is fetched yet. The description says
// which credential was found, for the operator's log; it holds no secret.
func LoadCredentials(cfg Config) (_ Tokens, description string, _ error) {
	tokens, creds, err := loadCredentials(cfg)
	if err != nil {
		return nil, "", err
	}
	return tokens, describe(cfg.CredentialsFile, creds.JSON), nil
}

// describe names a credential by its file, type and account.
func describe(file string, data []byte) string {
	var f struct {
		Type        string `json:"type"`
		ClientEmail string `json:"client_email"`
	}
	_ = json.Unmarshal(data, &f)
	var parts []string
	if file != "" {
		parts = append(parts, "file "+file)
	} else {
		parts = append(parts, "Application Default Credentials")
	}
	if f.Type != "" {
		parts = append(parts, f.Type)
	} else if data == nil {
		parts = append(parts, "metadata server")
	}
	if f.ClientEmail != "" {
		parts = append(parts, f.ClientEmail)
	}
	return strings.Join(parts, ", ")
}

func loadCredentials(cfg Config) (Tokens, *google.Credentials, error) {
	timeout, err := cfg.tokenTimeout()
	if err != nil {
		return nil, nil, err
	}
	// The library fetches tokens with the client found in this context;
	// its timeout ends a fetch the caller stopped waiting for.
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Timeout: timeout})
	var creds *google.Credentials
	if cfg.CredentialsFile != "" {
		data, err := os.ReadFile(cfg.CredentialsFile)
		if err != nil {
			return nil, nil, fmt.Errorf("credentials_file: %v", err)
		}
		// The file is the operator's own, so any credential type it holds
		// is taken.
		//nolint:staticcheck // CredentialsFromJSON's deprecation is about files from untrusted sources
		if creds, err = google.CredentialsFromJSON(ctx, data, Scope); err != nil {
			return nil, nil, fmt.Errorf("credentials_file: %s: %v", cfg.CredentialsFile, err)
		}
	} else if creds, err = google.FindDefaultCredentials(ctx, Scope); err != nil {
		return nil, nil, fmt.Errorf("credentials_file not set, and Application Default Credentials: %v", err)
	}
	return NewTokens(creds.TokenSource, timeout), creds, nil
}

// sharedTokens hands out the token of a library token source, which caches
// it and fetches a new one shortly before it expires. Concurrent callers
// share one fetch, and none waits longer than the timeout for it: behind
// the library's lock, each waiting request would otherwise try the fetch
// again after a failure, one after another.
type sharedTokens struct {
	src     oauth2.TokenSource
	timeout time.Duration
	fetches singleflight.Group
	// last is the token last handed out: while it is valid (by the
	// library's own margin) a request takes it without a call.
	last atomic.Pointer[oauth2.Token]
}

// NewTokens wraps a library token source (one that caches its token).
func NewTokens(src oauth2.TokenSource, timeout time.Duration) Tokens {
	return &sharedTokens{src: src, timeout: timeout}
}

func (t *sharedTokens) AccessToken() (string, error) {
	if tok := t.last.Load(); tok != nil && tok.Valid() {
		return tok.AccessToken, nil
	}
	start := time.Now()
	ch := t.fetches.DoChan("", func() (any, error) { return t.src.Token() })
	timer := time.NewTimer(t.timeout)
	defer timer.Stop()
	select {
	case r := <-ch:
		if r.Err != nil {
			// The fetch's HTTP client has the same timeout and may end it
			// just before the timer fires: either way the wait ran out.
			if time.Since(start) >= t.timeout {
				return "", t.waitedTooLong()
			}
			return "", TokenError(r.Err)
		}
		tok := r.Val.(*oauth2.Token)
		if tok.AccessToken == "" {
			return "", TokenError(errors.New("the token endpoint answered without an access token"))
		}
		t.last.Store(tok)
		return tok.AccessToken, nil
	case <-timer.C:
		return "", t.waitedTooLong()
	}
}

func (t *sharedTokens) waitedTooLong() *wire.Error {
	return TokenError(fmt.Errorf("no access token within %v", t.timeout))
}

// credentialFailed starts the message of every token error.
const credentialFailed = "vertex: the Google credential failed: "

// TokenError is the client's error for a failed token fetch: what the
// token endpoint said of the credential where it said something (400 and
// 401 are the credential's rejection, 403 its lack of rights), else a 502:
// the gateway could not authenticate, through no fault of the client's.
// The message carries the endpoint's error code and description, never
// the credential.
func TokenError(err error) *wire.Error {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.Response == nil {
		return wire.APIError(http.StatusBadGateway, credentialFailed+err.Error())
	}
	status := re.Response.StatusCode
	msg := fmt.Sprintf("%sthe token endpoint answered %d", credentialFailed, status)
	code, desc := re.ErrorCode, re.ErrorDescription
	if code == "" {
		// The JWT flow leaves the OAuth error body unparsed.
		var body struct {
			Code string `json:"error"`
			Desc string `json:"error_description"`
		}
		if json.Unmarshal(re.Body, &body) == nil {
			code, desc = body.Code, body.Desc
		}
	}
	if code != "" {
		msg += " " + truncate(code)
		if desc != "" {
			msg += ": " + truncate(desc)
		}
	}
	switch status {
	case http.StatusBadRequest, http.StatusUnauthorized:
		return &wire.Error{Status: http.StatusUnauthorized, Type: "authentication_error", Message: msg}
	case http.StatusForbidden:
		return &wire.Error{Status: http.StatusForbidden, Type: "permission_error", Message: msg}
	}
	return wire.APIError(http.StatusBadGateway, msg)
}

// maxErrorText bounds each part of the token endpoint's error quoted to the
// client.
const maxErrorText = 256

func truncate(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) > maxErrorText {
		n := maxErrorText
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n]
	}
	return s
}
