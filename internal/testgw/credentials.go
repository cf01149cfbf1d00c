package testgw

import (
	"net/http"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/providers"
)

// ClientCredentials are credential headers, as name/value pairs for
// PostRead, that a client may send beside its Anthropic key; none may reach
// an upstream whose credential the gateway supplies.
var ClientCredentials = []string{
	"x-api-key", "client-key",
	"Authorization", "Bearer client-token",
	"Cookie", "session=client",
	"Api-Key", "client-api-key",
	"X-Goog-Api-Key", "client-goog-key",
	"X-Goog-User-Project", "client-project",
	"X-Amz-Security-Token", "client-amz-token",
}

// CheckCredentials fails t unless, of every credential header, the upstream
// request's header h holds exactly want (absent where want has no entry).
func CheckCredentials(t testing.TB, h http.Header, want map[string]string) {
	t.Helper()
	for _, k := range providers.CredentialHeaders {
		if got := strings.Join(h.Values(k), ", "); got != want[k] {
			t.Errorf("upstream %s: %q, want %q", k, got, want[k])
		}
	}
}
