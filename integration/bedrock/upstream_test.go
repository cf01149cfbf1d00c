package bedrock_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

func optionBeta(b string) option.RequestOption { return option.WithHeader("anthropic-beta", b) }

// TestUpstreamVerifies: the test upstream takes a request the SDK's signer
// signed and refuses, with Bedrock's 403, one whose body, signed header or
// host was changed after signing, or that was signed with another secret.
func TestUpstreamVerifies(t *testing.T) {
	up := testgw.NewBedrockUpstream(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	body := []byte(`{"max_tokens":1,"messages":[{"role":"user","content":"Hi"}],"anthropic_version":"bedrock-2023-05-31"}`)
	send := func(secret string, tamper func(r *http.Request)) (int, string) {
		sum := sha256.Sum256(body)
		hash := hex.EncodeToString(sum[:])
		r, _ := http.NewRequest("POST", up.URL+rawTarget+"invoke", bytes.NewReader(body))
		r.Host = signed
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-Amz-Content-Sha256", hash)
		creds := aws.Credentials{AccessKeyID: testgw.BedrockAccessKey, SecretAccessKey: secret}
		if err := v4.NewSigner().SignHTTP(context.Background(), creds, r, hash, "bedrock", "us-east-1", time.Now()); err != nil {
			t.Fatal(err)
		}
		if tamper != nil {
			tamper(r)
		}
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("X-Amzn-Errortype") + " " + string(b)
	}
	if status, msg := send(testgw.BedrockSecretKey, nil); status != 204 {
		t.Fatalf("a valid signature: %d %s", status, msg)
	}
	refused := `InvalidSignatureException:http://internal.amazon.com/coral/com.amazon.bedrock/ {"message":"` + testgw.BedrockSignatureMessage + `"}`
	for name, tamper := range map[string]func(r *http.Request){
		"body": func(r *http.Request) {
			b := bytes.Replace(body, []byte("Hi"), []byte("Ho"), 1)
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
			sum := sha256.Sum256(b)
			r.Header.Set("X-Amz-Content-Sha256", hex.EncodeToString(sum[:]))
		},
		"body, its hash kept": func(r *http.Request) {
			b := bytes.Replace(body, []byte("Hi"), []byte("Ho"), 1)
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
		},
		"header": func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") },
		"host":   func(r *http.Request) { r.Host = "bedrock-runtime.us-west-2.amazonaws.com" },
		"path":   func(r *http.Request) { r.URL.Path, r.URL.RawPath = "/model/other/invoke", "" },
	} {
		if status, msg := send(testgw.BedrockSecretKey, tamper); status != 403 || msg != refused {
			t.Errorf("tampered %s: %d %s", name, status, msg)
		}
	}
	if status, msg := send("another-secret", nil); status != 403 || msg != refused {
		t.Errorf("another secret: %d %s", status, msg)
	}
	if status, msg := send(testgw.BedrockSecretKey, func(r *http.Request) { r.Header.Set("Authorization", "Bearer nope") }); status != 403 || !strings.Contains(msg, "Invalid API Key") {
		t.Errorf("a wrong API key: %d %s", status, msg)
	}
}
