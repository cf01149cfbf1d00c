package bedrock

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

const invokeRequest = `{"model":"claude-sonnet","max_tokens":1024,"stream":true,"anthropic_beta":["output-128k-2025-02-19","oauth-2025-04-20"],` +
	`"thinking":{"type":"enabled","budget_tokens":512},"system":"Be brief.",` +
	`"messages":[{"role":"user","content":"Hi"}]}`

const sonnet = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

// TestInvokeRequest: what goes to InvokeModel, for a stream, a message and
// count_tokens: path (escaped), Host, body (golden), and of the client's
// headers only what Bedrock may see.
func TestInvokeRequest(t *testing.T) {
	for _, tc := range []struct {
		name, path, body, rawPath, accept, golden string
	}{
		{"stream", "/v1/messages", invokeRequest, "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream",
			"application/vnd.amazon.eventstream", "invoke_stream.json"},
		{"message", "/v1/messages", strings.Replace(invokeRequest, `"stream":true,`, "", 1),
			"/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke", "application/json", "invoke_message.json"},
		{"count_tokens", "/v1/messages/count_tokens", `{"model":"claude-sonnet","thinking":{"type":"enabled","budget_tokens":512},"messages":[{"role":"user","content":"Hi"}]}`,
			"/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/count-tokens", "application/json", "count_tokens.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := keyProvider(t, Config{})
			s := testSettings(false)
			s.Models = []providers.ModelRule{{From: "claude-sonnet", To: sonnet}}
			x := exchange(t, s, tc.body, tc.path)
			out := &providers.Outbound{Path: tc.path, RawQuery: "beta=true", Header: clientHeader()}
			if _, err := p.Rewrite(x, out); err != nil {
				t.Fatal(err)
			}
			if out.RawPath != tc.rawPath || out.Path != strings.Replace(tc.rawPath, "%3A", ":", 1) || out.RawQuery != "" {
				t.Errorf("target %q (raw %q) ?%q, want raw %q", out.Path, out.RawPath, out.RawQuery, tc.rawPath)
			}
			if out.Host != "bedrock-runtime.us-east-1.amazonaws.com" {
				t.Errorf("host %q", out.Host)
			}
			want := http.Header{
				"Content-Type":  {"application/json"},
				"Accept":        {tc.accept},
				"Authorization": {"Bearer bedrock-key"},
				"User-Agent":    {"Anthropic/Go 1.0"},
			}
			if got, w := headerString(out.Header), headerString(want); got != w {
				t.Errorf("headers:\n%s\nwant:\n%s", got, w)
			}
			if string(x.Body) != tc.body {
				t.Errorf("the client's body changed: %s", x.Body)
			}
			golden.Bytes(t, tc.golden, out.Body)
			if tc.name == "count_tokens" {
				// The InvokeModel body inside, readable.
				b64, _ := jsonparser.GetString(out.Body, "input", "invokeModel", "body")
				inner, err := base64.StdEncoding.DecodeString(b64)
				if err != nil {
					t.Fatal(err)
				}
				golden.Bytes(t, "count_tokens_invoke_body.json", inner)
			}
		})
	}
}

func headerString(h http.Header) string {
	var b strings.Builder
	for _, k := range sortedKeys(h) {
		b.WriteString(k + ": " + strings.Join(h[k], " | ") + "\n")
	}
	return b.String()
}

func sortedKeys(h http.Header) []string {
	var ks []string
	for k := range h {
		ks = append(ks, k)
	}
	for i := range ks {
		for j := i + 1; j < len(ks); j++ {
			if ks[j] < ks[i] {
				ks[i], ks[j] = ks[j], ks[i]
			}
		}
	}
	return ks
}

// TestInvokeBetas: the header's betas, then the body's, once each, less
// the dropped ones; "*" sends none.
func TestInvokeBetas(t *testing.T) {
	for _, tc := range []struct {
		drop []string
		want string
	}{
		{nil, `"anthropic_beta":["interleaved-thinking-2025-05-14","fine-grained-tool-streaming-2025-05-14","output-128k-2025-02-19"]`},
		{[]string{"Fine-Grained-Tool-Streaming-2025-05-14"}, `"anthropic_beta":["interleaved-thinking-2025-05-14","output-128k-2025-02-19"]`},
		{[]string{"*"}, ``},
	} {
		p := keyProvider(t, Config{DropBetas: tc.drop, API: APIInvoke})
		x := exchange(t, testSettings(false), invokeRequest, "/v1/messages")
		out := &providers.Outbound{Path: "/v1/messages", Header: clientHeader()}
		if _, err := p.Rewrite(x, out); err != nil {
			t.Fatal(err)
		}
		if tc.want == "" {
			if strings.Contains(string(out.Body), "anthropic_beta") {
				t.Errorf("drop %v: betas sent: %s", tc.drop, out.Body)
			}
		} else if !strings.Contains(string(out.Body), tc.want) {
			t.Errorf("drop %v: body %s\nwant %s", tc.drop, out.Body, tc.want)
		}
	}
}

// TestInvokeMembersInAnyCase: a client's model, stream, anthropic_version
// and anthropic_beta members are the gateway's in any letter case or
// escaping (encoding/json reads "Model" and "stre\u0061m" as the model and
// the stream): none of the client's spellings reaches InvokeModel, which
// refuses members it does not know, and a differently spelt anthropic_beta
// still gives its betas.
func TestInvokeMembersInAnyCase(t *testing.T) {
	body := `{"modeL":"claude-sonnet","max_tokens":1024,"stre\u0061m":true,"Anthropic_Version":"2023-06-01",` +
		`"ANTHROPIC_BETA":["output-128k-2025-02-19"],"messages":[{"role":"user","content":"Hi"}]}`
	p := keyProvider(t, Config{API: APIInvoke})
	s := testSettings(false)
	s.Models = []providers.ModelRule{{From: "claude-sonnet", To: sonnet}}
	x := exchange(t, s, body, "/v1/messages")
	out := &providers.Outbound{Path: "/v1/messages", Header: http.Header{}}
	if _, err := p.Rewrite(x, out); err != nil {
		t.Fatal(err)
	}
	want := `{"max_tokens":1024,"messages":[{"role":"user","content":"Hi"}],"anthropic_version":"bedrock-2023-05-31","anthropic_beta":["output-128k-2025-02-19"]}`
	if string(out.Body) != want || !strings.HasSuffix(out.Path, "/invoke-with-response-stream") {
		t.Errorf("%s %s\nwant body %s", out.Path, out.Body, want)
	}
}

// TestModelPath: ids, inference profiles and ARNs are escaped into their
// one path segment as the AWS SDK escapes them; anything else is refused
// before it reaches a path.
func TestModelPath(t *testing.T) {
	p := keyProvider(t, Config{API: APIInvoke})
	for _, tc := range []struct{ model, raw string }{
		{"anthropic.claude-3-5-haiku-20241022-v1:0", "/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke"},
		{"arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3",
			"/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Aapplication-inference-profile%2Fa1b2c3/invoke"},
	} {
		x := exchange(t, testSettings(false), `{"model":"`+tc.model+`","max_tokens":1,"messages":[{"role":"user","content":"Hi"}]}`, "/v1/messages")
		out := &providers.Outbound{Header: http.Header{}}
		if _, err := p.Rewrite(x, out); err != nil {
			t.Fatal(err)
		}
		if out.RawPath != tc.raw || out.Path != "/model/"+tc.model+"/invoke" {
			t.Errorf("%s: path %q raw %q, want raw %q", tc.model, out.Path, out.RawPath, tc.raw)
		}
		if u, err := url.Parse("https://h" + out.RawPath); err != nil || u.Path != out.Path {
			t.Errorf("%s: raw path does not decode to the path: %v %q", tc.model, err, u.Path)
		}
	}
	for _, bad := range []string{"../invoke", "a/../../b", "a?b", "a#b", "a%2Fb", "a b", "a\\b", "", strings.Repeat("a", 2049)} {
		x := exchange(t, testSettings(false), `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"Hi"}]}`, "/v1/messages")
		x.UpstreamModel = bad
		_, err := p.Rewrite(x, &providers.Outbound{Header: http.Header{}})
		e, ok := err.(*wire.Error)
		if !ok || e.Status != 400 || e.Type != "invalid_request_error" || !strings.HasPrefix(e.Message, "model: ") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestAPIAuto: Anthropic models go to InvokeModel, every other to Converse.
func TestAPIAuto(t *testing.T) {
	p := keyProvider(t, Config{})
	for model, want := range map[string]string{
		"anthropic.claude-sonnet-4-5-20250929-v1:0":                                             APIInvoke,
		"us.anthropic.claude-sonnet-4-5-20250929-v1:0":                                          APIInvoke,
		"global.anthropic.claude-sonnet-4-5-20250929-v1:0":                                      APIInvoke,
		"arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0":    APIInvoke,
		"arn:aws:bedrock:us-east-1:123456789012:inference-profile/eu.anthropic.claude-3-7-v1:0": APIInvoke,
		"arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3":           APIConverse,
		"us.deepseek.r1-v1:0":           APIConverse,
		"amazon.nova-pro-v1:0":          APIConverse,
		"mistral.anthropic-lookalike":   APIConverse,
		"meta.llama3-3-70b-instruct-v1": APIConverse,
	} {
		if got := p.API(model); got != want {
			t.Errorf("%s: %s, want %s", model, got, want)
		}
	}
	if got := keyProvider(t, Config{API: APIInvoke}).API("amazon.nova-pro-v1:0"); got != APIInvoke {
		t.Errorf("api invoke: %s", got)
	}
}

// TestSigV4: the request is signed by the SDK's signer with the chain's
// credentials over exactly the method, escaped path, host, content type,
// length and body hash, and the date and session token: recomputing the
// signature over a request holding just those gives the same header. None
// of the client's credentials or AWS headers remain.
func TestSigV4(t *testing.T) {
	p := sigV4Provider(t, Config{API: APIInvoke})
	x := exchange(t, testSettings(false), invokeRequest, "/v1/messages")
	out := &providers.Outbound{Path: "/v1/messages", Header: clientHeader()}
	if _, err := p.Rewrite(x, out); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(out.Body)
	hash := hex.EncodeToString(sum[:])
	req := &http.Request{Method: "POST", Host: "bedrock-runtime.us-east-1.amazonaws.com",
		URL:    &url.URL{Scheme: "https", Host: "bedrock-runtime.us-east-1.amazonaws.com", Path: out.Path, RawPath: out.RawPath},
		Header: http.Header{"Content-Type": {"application/json"}, "X-Amz-Content-Sha256": {hash}}, ContentLength: int64(len(out.Body))}
	creds := aws.Credentials{AccessKeyID: testAccessKey, SecretAccessKey: testSecretKey, SessionToken: testToken}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hash, "bedrock", "us-east-1", signingTime); err != nil {
		t.Fatal(err)
	}
	want := http.Header{
		"Accept":               {"application/vnd.amazon.eventstream"},
		"Authorization":        {req.Header.Get("Authorization")},
		"Content-Type":         {"application/json"},
		"User-Agent":           {"Anthropic/Go 1.0"},
		"X-Amz-Content-Sha256": {hash},
		"X-Amz-Date":           {"20251107T211601Z"},
		"X-Amz-Security-Token": {testToken},
	}
	if got, w := headerString(out.Header), headerString(want); got != w {
		t.Errorf("headers:\n%s\nwant:\n%s", got, w)
	}
	const scope = "AWS4-HMAC-SHA256 Credential=AKIDBEDROCKUNIT/20251107/us-east-1/bedrock/aws4_request, " +
		"SignedHeaders=content-length;content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature="
	if a := out.Header.Get("Authorization"); !strings.HasPrefix(a, scope) || len(a) != len(scope)+64 {
		t.Errorf("authorization %q", a)
	}
	// Another body, another signature.
	x2 := exchange(t, testSettings(false), strings.Replace(invokeRequest, "Hi", "Ho", 1), "/v1/messages")
	out2 := &providers.Outbound{Path: "/v1/messages", Header: clientHeader()}
	if _, err := p.Rewrite(x2, out2); err != nil {
		t.Fatal(err)
	}
	if out2.Header.Get("Authorization") == out.Header.Get("Authorization") {
		t.Error("two bodies, one signature")
	}
}

// TestCredentialFailure: no credential anywhere in the chain is a 502 that
// says the AWS credentials failed, at once.
func TestCredentialFailure(t *testing.T) {
	isolateAWS(t)
	p, err := New(context.Background(), Config{Region: "us-east-1", API: APIInvoke, CredentialTimeout: "2s"})
	if err != nil {
		t.Fatal(err)
	}
	x := exchange(t, testSettings(false), invokeRequest, "/v1/messages")
	_, err = p.Rewrite(x, &providers.Outbound{Header: http.Header{}})
	e, ok := err.(*wire.Error)
	if !ok || e.Status != 502 || e.Type != "api_error" || !strings.HasPrefix(e.Message, "bedrock: the AWS credentials could not be loaded: ") {
		t.Fatalf("%#v", err)
	}
}

// TestProfile: a named profile's static keys sign; a profile that does not
// exist fails New naming the option.
func TestProfile(t *testing.T) {
	isolateAWS(t)
	dir := t.TempDir()
	writeFile(t, dir+"/credentials", "[team]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = profile-secret\n")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", dir+"/credentials")
	p, err := New(context.Background(), Config{Region: "eu-west-1", Profile: "team", API: APIInvoke})
	if err != nil {
		t.Fatal(err)
	}
	x := exchange(t, testSettings(false), invokeRequest, "/v1/messages")
	out := &providers.Outbound{Header: http.Header{}}
	if _, err := p.Rewrite(x, out); err != nil {
		t.Fatal(err)
	}
	if a := out.Header.Get("Authorization"); !strings.Contains(a, "Credential=AKIDPROFILE/") || !strings.Contains(a, "/eu-west-1/bedrock/aws4_request") {
		t.Errorf("authorization %q", a)
	}
	if out.Host != "bedrock-runtime.eu-west-1.amazonaws.com" || out.Header.Get("X-Amz-Security-Token") != "" {
		t.Errorf("host %q token %q", out.Host, out.Header.Get("X-Amz-Security-Token"))
	}
	_, err = New(context.Background(), Config{Region: "eu-west-1", Profile: "nope"})
	if err == nil || !strings.HasPrefix(err.Error(), `profile: loading AWS profile "nope": `) {
		t.Errorf("missing profile: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	for cfg, want := range map[*Config]string{
		{Region: "us-east-1"}:                     "",
		{Region: "{env.AWS_REGION}"}:              "",
		{Region: "us-east-1/../x"}:                `region: "us-east-1/../x" is not an AWS region name (such as us-east-1)`,
		{Region: "US-EAST-1"}:                     `region: "US-EAST-1" is not an AWS region name (such as us-east-1)`,
		{Host: "evil.example/path"}:               `host: "evil.example/path" is not a host name (such as bedrock-runtime.us-east-1.amazonaws.com)`,
		{API: "chat"}:                             `api: must be auto, invoke or converse, got "chat"`,
		{DropBetas: []string{"a,b"}}:              `drop_betas: "a,b" is not a single beta name`,
		{CredentialTimeout: "0s"}:                 `credential_timeout: must be a positive duration such as 10s, got "0s"`,
		{CredentialTimeout: "5s", API: APIInvoke}: "",
	} {
		err := cfg.Validate()
		if got := ""; err != nil {
			got = err.Error()
			if got != want {
				t.Errorf("%+v: %q, want %q", *cfg, got, want)
			}
		} else if want != "" {
			t.Errorf("%+v: valid, want %q", *cfg, want)
		}
	}
	if _, err := New(context.Background(), Config{}); err == nil || !strings.HasPrefix(err.Error(), "region: required") {
		t.Errorf("no region: %v", err)
	}
}
