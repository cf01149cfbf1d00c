package azure_test

import (
	"net/http"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestClientCredentialsStripped: with api_key the upstream sees the
// gateway's credential and none of the client's credential headers.
func TestClientCredentialsStripped(t *testing.T) {
	up := mockAzure(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) })
	gw := testgw.Start(t, testgw.SlotAzure, site("", up))
	gw.PostRead("/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, testgw.ClientCredentials...)
	testgw.CheckCredentials(t, up.Last(t).Header, map[string]string{"X-Api-Key": azureKey, "Api-Key": azureKey})
}

// TestQueryEdge: of the client's query only beta=true reaches Azure, and the
// path is the configured one whatever the client's.
func TestQueryEdge(t *testing.T) {
	up := mockAzure(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) })
	gw := testgw.Start(t, testgw.SlotAzure, site("", up))
	for _, c := range []struct{ target, wantPath, wantQuery string }{
		{"/v1/messages?api-version=evil", "/anthropic/v1/messages", ""},
		{"/v1/messages?beta=true&api-version=evil", "/anthropic/v1/messages", "beta=true"},
		{"/v1/../../admin/messages?key=1", "/anthropic/v1/messages", ""},
		{"/x/messages/count_tokens?beta=true", "/anthropic/v1/messages/count_tokens", "beta=true"},
	} {
		gw.PostRead(c.target, `{"model":"claude-opus-4-6","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`)
		last := up.Last(t)
		if last.Path != c.wantPath || last.RawQuery != c.wantQuery {
			t.Errorf("%s: upstream target %s?%s, want %s?%s", c.target, last.Path, last.RawQuery, c.wantPath, c.wantQuery)
		}
	}
}
