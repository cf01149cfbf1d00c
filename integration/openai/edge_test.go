package openai_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
	"github.com/thinkgate/thinkgate/providers"
)

// TestClientCredentialsStripped: with api_key the upstream sees the
// gateway's credential and none of the client's credential headers.
func TestClientCredentialsStripped(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) })
	gw := testgw.Start(t, testgw.SlotOpenAI, site("", up))
	gw.PostRead("/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`,
		"x-api-key", "client-key",
		"Authorization", "Bearer client-token",
		"Cookie", "session=client",
		"Api-Key", "client-api-key",
		"X-Goog-Api-Key", "client-goog-key",
		"X-Goog-User-Project", "client-project",
		"X-Amz-Security-Token", "client-amz-token")
	h := up.Last(t).Header
	want := map[string]string{"Authorization": "Bearer sk-upstream"}
	for _, k := range providers.CredentialHeaders {
		if got := strings.Join(h.Values(k), ", "); got != want[k] {
			t.Errorf("upstream %s: %q, want %q", k, got, want[k])
		}
	}
}
