package testgw

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/thinkgate/thinkgate/internal/eventstreamtest"
)

// Test AWS credentials: what a Bedrock test upstream accepts, by access key id.
const (
	BedrockAccessKey    = "AKIDBEDROCKTEST"
	BedrockSecretKey    = "bedrock-test-secret-key"
	BedrockSessionToken = "bedrock-test-session-token"
	BedrockRegion       = "us-east-1"
	// BedrockAPIKey is the bearer token a Bedrock test upstream accepts.
	BedrockAPIKey = "bedrock-test-api-key"
)

// BedrockSignatureMessage is Bedrock's message for a signature that does
// not match.
const BedrockSignatureMessage = "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."

// BedrockUpstream is a Bedrock runtime test upstream. Every request must
// carry either Authorization: Bearer BedrockAPIKey or a SigV4 signature
// (service bedrock, BedrockRegion) that the SDK's signer, recomputing it over
// the received method, escaped path, host, signed headers and body with the
// test credentials, arrives at too; anything else gets Bedrock's 403. A
// request that passes is answered by Handler.
type BedrockUpstream struct {
	*Upstream
	// Secrets maps access key ids to secret keys; Tokens, where set, to the
	// session token the key needs.
	Secrets, Tokens map[string]string
}

// NewBedrockUpstream starts a verifying Bedrock upstream answering with h.
func NewBedrockUpstream(t testing.TB, h http.HandlerFunc) *BedrockUpstream {
	b := &BedrockUpstream{
		Secrets: map[string]string{BedrockAccessKey: BedrockSecretKey},
		Tokens:  map[string]string{},
	}
	b.Upstream = NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if msg := b.Verify(r); msg != "" {
			BedrockError(w, http.StatusForbidden, "InvalidSignatureException", msg)
			return
		}
		h(w, r)
	})
	return b
}

// Verify checks a request's credential; it returns "" for a valid one, or
// Bedrock's message for the refusal.
func (b *BedrockUpstream) Verify(r *http.Request) string {
	auth := r.Header.Get("Authorization")
	if tok, ok := strings.CutPrefix(auth, "Bearer "); ok {
		if tok == BedrockAPIKey {
			return ""
		}
		return "Invalid API Key format: Must start with pre-defined prefix"
	}
	cred, signedHeaders, sig, ok := parseSigV4(auth)
	if !ok {
		return "Authorization header requires 'Credential' parameter. Authorization header requires 'Signature' parameter."
	}
	parts := strings.Split(cred, "/")
	if len(parts) != 5 || parts[2] != BedrockRegion || parts[3] != "bedrock" || parts[4] != "aws4_request" {
		return "Credential should be scoped to a valid region and service bedrock: " + cred
	}
	secret, known := b.Secrets[parts[0]]
	if !known {
		return "The security token included in the request is invalid."
	}
	if want := b.Tokens[parts[0]]; want != r.Header.Get("X-Amz-Security-Token") {
		return "The security token included in the request is invalid."
	}
	body, _ := readAll(r)
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	if r.Header.Get("X-Amz-Content-Sha256") != hash {
		return BedrockSignatureMessage
	}
	when, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil || parts[1] != when.Format("20060102") {
		return "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP"
	}
	// The request as signed: the received target and host, and only the
	// headers the signature names (host and content-length come from the
	// request itself).
	u := &url.URL{Scheme: "https", Host: r.Host, Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: r.URL.RawQuery}
	re := &http.Request{Method: r.Method, URL: u, Host: r.Host, Header: http.Header{}, ContentLength: r.ContentLength}
	for _, k := range strings.Split(signedHeaders, ";") {
		if k == "host" || k == "content-length" {
			continue
		}
		for _, v := range r.Header.Values(k) {
			re.Header.Add(k, v)
		}
	}
	re.Header.Del("X-Amz-Date")
	re.Header.Del("X-Amz-Security-Token")
	creds := aws.Credentials{AccessKeyID: parts[0], SecretAccessKey: secret, SessionToken: b.Tokens[parts[0]]}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, re, hash, "bedrock", BedrockRegion, when); err != nil {
		return err.Error()
	}
	_, wantHeaders, wantSig, _ := parseSigV4(re.Header.Get("Authorization"))
	if wantHeaders != signedHeaders || wantSig != sig {
		return BedrockSignatureMessage
	}
	return ""
}

func readAll(r *http.Request) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(r.Body)
	r.Body = nopCloser{bytes.NewReader(b.Bytes())}
	return b.Bytes(), err
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// parseSigV4 splits an AWS4-HMAC-SHA256 Authorization header.
func parseSigV4(auth string) (cred, signedHeaders, sig string, ok bool) {
	rest, found := strings.CutPrefix(auth, "AWS4-HMAC-SHA256 ")
	if !found {
		return "", "", "", false
	}
	for _, kv := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		switch k {
		case "Credential":
			cred = v
		case "SignedHeaders":
			signedHeaders = v
		case "Signature":
			sig = v
		}
	}
	return cred, signedHeaders, sig, cred != "" && signedHeaders != "" && sig != ""
}

// BedrockError writes Bedrock's error response: x-amzn-ErrorType and a
// {"message":…} body.
func BedrockError(w http.ResponseWriter, status int, exception, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-Errortype", exception+":http://internal.amazon.com/coral/com.amazon.bedrock/")
	w.Header().Set("X-Amzn-Requestid", "bedrock-test-request")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]string{"message": message})
	_, _ = w.Write(b)
}

// BedrockFrame encodes one event-stream message with string headers.
func BedrockFrame(headers map[string]string, payload []byte) []byte {
	return eventstreamtest.Frame(headers, payload)
}

// BedrockChunk is InvokeModelWithResponseStream's chunk event carrying one
// Anthropic event.
func BedrockChunk(event string) []byte {
	payload := fmt.Sprintf(`{"bytes":%q,"p":"abcdefgh"}`, base64.StdEncoding.EncodeToString([]byte(event)))
	return BedrockFrame(map[string]string{":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}, []byte(payload))
}

// BedrockException is an exception frame (name as Bedrock spells it in a
// stream: throttlingException).
func BedrockException(name, message string) []byte {
	b, _ := json.Marshal(map[string]string{"message": message})
	return BedrockFrame(map[string]string{":exception-type": name, ":content-type": "application/json", ":message-type": "exception"}, b)
}

// BedrockChunks encodes Anthropic events (their data) as chunk frames.
func BedrockChunks(events []Event) []byte {
	var b []byte
	for _, e := range events {
		b = append(b, BedrockChunk(e.Data)...)
	}
	return b
}

// BedrockEventStreamType is the Content-Type of InvokeModelWithResponseStream's answer.
const BedrockEventStreamType = "application/vnd.amazon.eventstream"
