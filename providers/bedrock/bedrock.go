// Package bedrock is the provider for Amazon Bedrock's runtime API.
//
// Anthropic models go to InvokeModel: the client's Anthropic body, as the
// anthropic provider rewrites it, with model and stream removed,
// anthropic_version set and the client's betas as anthropic_beta, sent to
// /model/{modelId}/invoke-with-response-stream (/invoke, /count-tokens).
// The streamed answer is an AWS event stream whose chunk events each carry
// one Anthropic event, base64-encoded; those events go through the
// anthropic provider's own stream handling (split_tags included). Other
// models go to the Converse API, whose conversion is package converse.
//
// Requests are signed with SigV4 (service bedrock) by aws-sdk-go-v2's
// signer, over the converted body, with credentials from the SDK's default
// chain or a named profile, cached and refreshed by the SDK; or they carry a
// Bedrock API key as a bearer token. The signed host is the one the request
// carries: the provider sets the outgoing Host itself.
package bedrock

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/endpointcreds"
	"github.com/aws/aws-sdk-go-v2/credentials/processcreds"
	"github.com/aws/smithy-go/encoding/httpbinding"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/bedrock/converse"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// SigningService is the SigV4 service name of bedrock-runtime.
const SigningService = "bedrock"

// DefaultHost returns the bedrock-runtime host of a region.
func DefaultHost(region string) string { return "bedrock-runtime." + region + ".amazonaws.com" }

// Provider is the Amazon Bedrock provider.
type Provider struct {
	cfg         Config
	host        string
	creds       aws.CredentialsProvider // nil with an API key
	credTimeout time.Duration
	signer      *v4.Signer
	dropBetas   map[string]bool
	dropAll     bool
	// now is the signing clock; tests fix it.
	now func() time.Time
}

// New returns a provider for cfg. Without an API key it loads the AWS
// configuration (environment, shared files, the profile) as the SDK does;
// the credentials themselves are fetched, cached and refreshed when
// requests need them.
func New(ctx context.Context, cfg Config) (*Provider, error) {
	if cfg.Region == "" {
		return nil, fmt.Errorf("region: required (the AWS region of the Bedrock endpoint, such as us-east-1)")
	}
	if err := checkRegion(cfg.Region); err != nil {
		return nil, err
	}
	if cfg.Host == "" {
		cfg.Host = DefaultHost(cfg.Region)
	}
	if err := checkHost(cfg.Host); err != nil {
		return nil, err
	}
	if cfg.API == "" {
		cfg.API = APIAuto
	}
	p := &Provider{
		cfg:         cfg,
		host:        strings.ToLower(cfg.Host),
		credTimeout: DefaultCredentialTimeout,
		signer:      v4.NewSigner(),
		dropBetas:   make(map[string]bool),
		now:         time.Now,
	}
	if cfg.CredentialTimeout != "" {
		d, err := time.ParseDuration(cfg.CredentialTimeout)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("credential_timeout: must be a positive duration such as 10s, got %q", cfg.CredentialTimeout)
		}
		p.credTimeout = d
	}
	for _, b := range append(append([]string(nil), DefaultDropBetas...), cfg.DropBetas...) {
		if b == "*" {
			p.dropAll = true
		}
		p.dropBetas[strings.ToLower(b)] = true
	}
	if cfg.APIKey != "" {
		return p, nil
	}
	// Every credential fetch (STS, SSO, the container endpoint, the
	// instance metadata service) runs with a client whose timeout covers
	// the whole answer, its body included. The SDK's credential cache
	// carries on a fetch its caller stopped waiting for, so the
	// per-request bound alone would leave a source that trickles its
	// answer holding every later request's fetch.
	fetchClient := awshttp.NewBuildableClient().WithTimeout(p.credTimeout)
	opts := []func(*config.LoadOptions) error{
		config.WithRegion(cfg.Region),
		config.WithHTTPClient(fetchClient),
		config.WithEndpointCredentialOptions(func(o *endpointcreds.Options) { o.HTTPClient = fetchClient }),
		config.WithProcessCredentialOptions(func(o *processcreds.Options) { o.Timeout = p.credTimeout }),
	}
	if cfg.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(cfg.Profile))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		if cfg.Profile != "" {
			return nil, fmt.Errorf("profile: loading AWS profile %q: %v", cfg.Profile, err)
		}
		return nil, fmt.Errorf("loading the AWS configuration: %v", err)
	}
	p.creds = awsCfg.Credentials
	if p.creds == nil {
		return nil, fmt.Errorf("no AWS credential source found: set api_key, a profile, or the AWS environment")
	}
	if _, cached := p.creds.(*aws.CredentialsCache); !cached {
		p.creds = aws.NewCredentialsCache(p.creds)
	}
	return p, nil
}

// SetClock sets the signing clock (tests).
func (p *Provider) SetClock(now func() time.Time) { p.now = now }

// ScansRequest: the InvokeModel body is the client's, rewritten only where
// it holds thinking the gateway signed, and the Converse body is written
// from the client's bytes.
func (p *Provider) ScansRequest() bool { return true }

// Host is the host requests are signed for and carry.
func (p *Provider) Host() string { return p.host }

// API returns the API a model id goes to.
func (p *Provider) API(model string) string {
	if p.cfg.API == APIAuto {
		if IsAnthropicModel(model) {
			return APIInvoke
		}
		return APIConverse
	}
	return p.cfg.API
}

// Rewrite converts the request for the model's API, addresses it and signs it.
func (p *Provider) Rewrite(x *providers.Exchange, out *providers.Outbound) (providers.Translator, error) {
	model := x.UpstreamModel
	if err := ModelID(model); err != nil {
		return nil, wire.InvalidRequest(err.Error())
	}
	var (
		body   []byte
		action string
		tr     providers.Translator
		err    error
	)
	switch p.API(model) {
	case APIInvoke:
		if body, err = p.InvokeBody(x, out.Header); err != nil {
			return nil, err
		}
		switch {
		case x.CountTokens:
			body, action = CountTokensBody(body), "count-tokens"
		case x.Streaming:
			action = "invoke-with-response-stream"
		default:
			action = "invoke"
		}
		tr = &Translator{x: x}
	default:
		var st *converse.State
		betas := p.betas(out.Header.Values("Anthropic-Beta"), x.Body)
		if body, st, err = converse.ConvertRequest(x, p.cfg.Options, betas); err != nil {
			return nil, err
		}
		switch {
		case x.CountTokens:
			action = "count-tokens"
		case x.Streaming:
			action = "converse-stream"
		default:
			action = "converse"
		}
		tr = converse.NewTranslator(x, st)
	}
	out.Body = body
	out.Path = "/model/" + model + "/" + action
	out.RawPath = "/model/" + EscapedModel(model) + "/" + action
	out.RawQuery = ""
	out.Host = p.host
	p.setHeaders(out.Header, x.Streaming)
	if err := p.authorize(out); err != nil {
		return nil, err
	}
	return &hostCheck{Translator: tr, signed: p.host, proxyHost: out.ProxyHost, sigV4: p.creds != nil}, nil
}

// EscapedModel is a model id as its path segment carries it: escaped as the
// AWS SDK escapes it (every byte but the unreserved ones), so an ARN's '/'
// and ':' stay inside the segment.
func EscapedModel(id string) string { return httpbinding.EscapePath(id, true) }

// setHeaders leaves the client's headers that mean nothing to Bedrock or
// would act with the operator's account behind the gateway: its
// credentials, the anthropic-* headers (betas travel in the body), and
// every x-amz-* and x-amzn-* header (Bedrock takes guardrails, tracing and
// performance settings from those).
func (p *Provider) setHeaders(h http.Header, stream bool) {
	providers.StripClientHeaders(h, true, true)
	for k := range h {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "x-amz-") || strings.HasPrefix(lk, "x-amzn-") {
			delete(h, k)
		}
	}
	h.Set("Content-Type", "application/json")
	if stream {
		h.Set("Accept", "application/vnd.amazon.eventstream")
	} else {
		h.Set("Accept", "application/json")
	}
}

// authorize puts the credential on the request: the API key as a bearer
// token, or a SigV4 signature over the method, the escaped path, the host,
// the content type and length, and the body's hash.
func (p *Provider) authorize(out *providers.Outbound) error {
	if p.creds == nil {
		out.Header.Set("Authorization", "Bearer "+p.cfg.APIKey)
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.credTimeout)
	defer cancel()
	creds, err := p.creds.Retrieve(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return wire.APIError(http.StatusBadGateway, fmt.Sprintf(
				"bedrock: the AWS credentials did not arrive within credential_timeout (%v)", p.credTimeout))
		}
		return wire.APIError(http.StatusBadGateway, "bedrock: the AWS credentials could not be loaded: "+err.Error())
	}
	sum := sha256.Sum256(out.Body)
	hash := hex.EncodeToString(sum[:])
	// The signature covers a request holding only what is signed, so that
	// no client header (nor one reverse_proxy changes on the way) is part
	// of it.
	req := &http.Request{
		Method:        http.MethodPost,
		URL:           &url.URL{Scheme: "https", Host: p.host, Path: out.Path, RawPath: out.RawPath},
		Host:          p.host,
		Header:        http.Header{"Content-Type": {"application/json"}, "X-Amz-Content-Sha256": {hash}},
		ContentLength: int64(len(out.Body)),
	}
	if err := p.signer.SignHTTP(ctx, creds, req, hash, SigningService, p.cfg.Region, p.now()); err != nil {
		return wire.APIError(http.StatusBadGateway, "bedrock: signing the request: "+err.Error())
	}
	for _, k := range []string{"Authorization", "X-Amz-Date", "X-Amz-Security-Token", "X-Amz-Content-Sha256", "Content-Type"} {
		if v := req.Header.Get(k); v != "" {
			out.Header.Set(k, v)
		}
	}
	return nil
}

// Interface guards
var (
	_ providers.Provider       = (*Provider)(nil)
	_ providers.RequestScanner = (*Provider)(nil)
	_ providers.Translator     = (*Translator)(nil)
	_ providers.Translator     = (*hostCheck)(nil)
)
