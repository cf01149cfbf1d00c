package amazonq_test

import (
	"net/http"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestClientCredentialsStripped: with api_key the upstream sees the
// gateway's credential and none of the client's credential headers.
func TestClientCredentialsStripped(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) })
	gw := testgw.Start(t, testgw.SlotAmazonQ, site(t, "", up))
	gw.PostRead("/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, testgw.ClientCredentials...)
	testgw.CheckCredentials(t, up.Last(t).Header, map[string]string{"Authorization": "Bearer q-token"})
}
