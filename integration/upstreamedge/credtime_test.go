package upstreamedge_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thinkgate/thinkgate/internal/googletest"
	"github.com/thinkgate/thinkgate/internal/testgw"
)

// waitFor waits until cond holds; a minute without it fails the test.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

const geminiMessage = `{"candidates":[{"content":{"role":"model","parts":[{"text":"` + answerText + `"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":6}}`

// TestVertexTokenTrickle: a token endpoint that trickles its answer fails
// the request waiting for it at token_timeout, and the fetch itself ends
// there too, so the next request fetches afresh and is answered.
func TestVertexTokenTrickle(t *testing.T) {
	ts := googletest.NewTokenServer(t)
	ts.Set(func(s *googletest.TokenServer) { s.Trickle = 1 })
	t.Cleanup(ts.CloseClientConnections) // a trickle nobody cut ends with the test
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+googletest.Token(1) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(geminiMessage))
	})
	gw := testgw.Start(t, slot, fmt.Sprintf(`thinkgate vertex {
	project my-project
	location us-east5
	credentials_file %s
	token_timeout %s
	model claude-* gemini-2.5-flash
}
reverse_proxy %s`, ts.WriteKeyFile(t), bound, up.Addr()))

	res, got := gw.PostRead("/v1/messages", messagesBody)
	checkAnswer(t, "while the token trickles", res, got, http.StatusBadGateway,
		apiError("vertex: the Google credential failed: no access token within 300ms"))
	waitFor(t, "the gateway to stop reading the trickled token", func() bool { return ts.Cut() == 1 })
	res, got = gw.PostRead("/v1/messages", messagesBody)
	if res.StatusCode != http.StatusOK || !strings.Contains(got, answerText) {
		t.Errorf("after the trickle: %d %s", res.StatusCode, got)
	}
	ts.Check(t)
}

// isolateAWS leaves nothing of the machine's AWS setup in the SDK's reach.
func isolateAWS(t *testing.T) {
	dir := t.TempDir()
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
		"AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_AUTHORIZATION_TOKEN"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

const (
	bedrockModel   = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	bedrockMessage = `{"id":"msg_bdrk_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"` + answerText + `"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":5}}`
)

// TestBedrockCredentialTrickle: a container credential endpoint that
// trickles its answer fails the request at credential_timeout, and the
// fetch ends there too (the SDK's cache would carry it on), so the next
// request gets credentials and is signed with them.
func TestBedrockCredentialTrickle(t *testing.T) {
	isolateAWS(t)
	var calls atomic.Int32
	ended := make(chan struct{}, 8)
	expires := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			trickle(http.StatusOK, "application/json", padded(`{"AccessKeyId":"`+testgw.BedrockAccessKey+`",`, `"Expiration":"`+expires+`"}`), ended)(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"AccessKeyId": testgw.BedrockAccessKey,
			"SecretAccessKey": testgw.BedrockSecretKey, "Token": testgw.BedrockSessionToken, "Expiration": expires})
	}))
	t.Cleanup(endpoint.Close)
	t.Cleanup(endpoint.CloseClientConnections)
	t.Setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", endpoint.URL+"/credentials")

	up := testgw.NewBedrockUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(bedrockMessage))
	})
	up.Tokens[testgw.BedrockAccessKey] = testgw.BedrockSessionToken
	gw := testgw.Start(t, slot, fmt.Sprintf("thinkgate bedrock {\n\tregion us-east-1\n\tcredential_timeout %s\n\tmodel claude-* %s\n}\nreverse_proxy %s {\n\theader_up Host bedrock-runtime.us-east-1.amazonaws.com\n}",
		bound, bedrockModel, up.Addr()))

	res, got := gw.PostRead("/v1/messages", messagesBody)
	checkAnswer(t, "while the credentials trickle", res, got, http.StatusBadGateway,
		apiError("bedrock: the AWS credentials did not arrive within credential_timeout (300ms)"))
	select {
	case <-ended:
	case <-time.After(time.Minute):
		t.Fatal("the credential fetch still reads the trickled answer")
	}
	// The SDK may retry the fetch after a pause; a request meanwhile
	// waits for that retry and may run out of time again.
	waitFor(t, "a request answered after the trickle", func() bool {
		res, got = gw.PostRead("/v1/messages", messagesBody)
		if res.StatusCode == http.StatusOK && strings.Contains(got, answerText) {
			return true
		}
		time.Sleep(100 * time.Millisecond)
		return false
	})
	if c := up.Last(t).Header.Get("X-Amz-Security-Token"); c != testgw.BedrockSessionToken {
		t.Errorf("signed with session token %q", c)
	}
}
