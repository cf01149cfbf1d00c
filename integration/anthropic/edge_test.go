package anthropic_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestPathAndQueryEdge: the upstream gets the configured path and of the
// client's query only beta=true, whatever path tricks or parameters the
// client sends with the operator's key attached.
func TestPathAndQueryEdge(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, messageJSON)
	})
	const req = `{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
	for _, c := range []struct {
		options, target, wantPath, wantQuery string
	}{
		{"", "/v1/../../internal/messages", "/v1/messages", ""},
		{"", "/v1/%2e%2e/%2e%2e/internal/messages", "/v1/messages", ""},
		{"", "/admin/x/messages?key=1", "/v1/messages", ""},
		{"", "/v1/x;/messages", "/v1/messages", ""},
		{"", "/v1/messages?beta=true&api-version=evil", "/v1/messages", "beta=true"},
		{"", "/v1/messages?key=1&beta=true", "/v1/messages", "beta=true"},
		{"", "/internal/messages/count_tokens?x=1", "/v1/messages/count_tokens", ""},
		{"\tpath /proxy/v1/messages", "/v1/../admin/messages?beta=true", "/proxy/v1/messages", "beta=true"},
		{"\tpath /proxy/v1/messages", "/v1/messages/count_tokens", "/proxy/v1/messages/count_tokens", ""},
	} {
		gw := testgw.Start(t, testgw.SlotAnthropic, site("\tapi_key upstream-key\n"+c.options, up))
		r, _ := http.NewRequest("POST", gw.URL+c.target, strings.NewReader(req))
		r.Header.Set("Content-Type", "application/json")
		res, err := gw.Tester.Client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d %s", c.target, res.StatusCode, body)
		}
		last := up.Last(t)
		if last.Path != c.wantPath || last.RawQuery != c.wantQuery {
			t.Errorf("%s %s: upstream target %s?%s, want %s?%s", c.options, c.target, last.Path, last.RawQuery, c.wantPath, c.wantQuery)
		}
	}
}

// TestClientCredentialsStripped: with api_key, the upstream sees the
// gateway's key and none of the client's credential headers; without it,
// the client's own x-api-key still goes through.
func TestClientCredentialsStripped(t *testing.T) {
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, messageJSON)
	})
	const req = `{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
	gw := testgw.Start(t, testgw.SlotAnthropic, site("\tapi_key upstream-key", up))
	res, body := gw.PostRead("/v1/messages", req, testgw.ClientCredentials...)
	if res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	testgw.CheckCredentials(t, up.Last(t).Header, map[string]string{"X-Api-Key": "upstream-key"})

	gw = testgw.Start(t, testgw.SlotAnthropic, site("", up))
	if res, body := gw.PostRead("/v1/messages", req, testgw.ClientCredentials...); res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	if got := up.Last(t).Header.Get("X-Api-Key"); got != "client-key" {
		t.Errorf("without api_key the upstream got x-api-key %q, want the client's", got)
	}
}
