package caddymodule

import (
	"bufio"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"strings"

	"go.uber.org/zap/zapcore"

	"github.com/thinkgate/thinkgate/providers"
)

// loadClientKeys resolves the configured keys ({env.*} among them) and reads
// the key file.
func loadClientKeys(keys []string, file string) ([][]byte, error) {
	var out [][]byte
	for _, k := range keys {
		v, err := secret("client_keys", k)
		if err != nil {
			return nil, err
		}
		out = append(out, []byte(v))
	}
	if file != "" {
		path, err := secret("client_keys_file", file)
		if err != nil {
			return nil, err
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("client_keys_file: %v", err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			out = append(out, []byte(line))
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("client_keys_file: %v", err)
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("client_keys_file: %s holds no key", file)
		}
	}
	return out, nil
}

// clientKeyOK checks the client's x-api-key or bearer token against every
// configured key in constant time, so timing tells nothing about a key.
func (h *Handler) clientKeyOK(hdr http.Header) bool {
	presented := presentedKey(hdr)
	if presented == "" {
		return false
	}
	p := []byte(presented)
	ok := 0
	for _, k := range h.clientKeys {
		ok |= subtle.ConstantTimeCompare(p, k)
	}
	return ok == 1
}

// presentedKey is the key a client presents: x-api-key, or else a bearer
// token.
func presentedKey(hdr http.Header) string {
	if k := hdr.Get("X-Api-Key"); k != "" {
		return k
	}
	if a := hdr.Get("Authorization"); len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
		return strings.TrimSpace(a[7:])
	}
	return ""
}

// clientID identifies a client that passed client_keys by a hash of its
// key, so the key itself goes no further than the check.
func clientID(hdr http.Header) string {
	sum := sha256.Sum256([]byte(presentedKey(hdr)))
	return hex.EncodeToString(sum[:])
}

// secretHeaders are the credential headers redacted in every log line the
// gateway writes: the same list the providers strip.
var secretHeaders = func() map[string]bool {
	m := make(map[string]bool, len(providers.CredentialHeaders))
	for _, k := range providers.CredentialHeaders {
		m[k] = true
	}
	return m
}()

// redactedHeader logs a header with its credentials replaced.
type redactedHeader http.Header

// MarshalLogObject implements zapcore.ObjectMarshaler.
func (h redactedHeader) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	for k, v := range h {
		if secretHeaders[http.CanonicalHeaderKey(k)] {
			enc.AddString(k, "REDACTED")
			continue
		}
		enc.AddString(k, strings.Join(v, ", "))
	}
	return nil
}
