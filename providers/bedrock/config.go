package bedrock

import (
	"fmt"
	"strings"
	"time"

	"github.com/thinkgate/thinkgate/providers/bedrock/converse"
)

// APIs: which Bedrock API a request goes to.
const (
	// APIAuto sends Anthropic models (model ids, inference profiles and
	// ARNs naming one) to InvokeModel and every other model to Converse.
	APIAuto = "auto"
	// APIInvoke sends the Anthropic body to InvokeModel.
	APIInvoke = "invoke"
	// APIConverse converts the request for the Converse API.
	APIConverse = "converse"
)

// DefaultCredentialTimeout bounds fetching the AWS credentials for one
// request (a refresh from a role, SSO or the instance metadata service
// included), so that a credential source that does not answer fails the
// request instead of holding it.
const DefaultCredentialTimeout = 10 * time.Second

// Config is the bedrock provider's own configuration. Its JSON form is the
// provider's part of a Caddy config.
type Config struct {
	// Region is the AWS region the requests are signed for and sent to
	// (us-east-1). Required.
	Region string `json:"region,omitempty"`
	// Profile is the shared-configuration profile the credentials come
	// from; empty uses AWS_PROFILE or the default chain.
	Profile string `json:"profile,omitempty"`
	// APIKey is a Amazon Bedrock API key, sent as a bearer token instead of
	// a SigV4 signature. In a Caddy config, use {env.NAME}.
	APIKey string `json:"api_key,omitempty"`
	// API is APIAuto (default), APIInvoke or APIConverse.
	API string `json:"api,omitempty"`
	// Host is the bedrock-runtime host the requests are signed for and
	// carry as their Host; default bedrock-runtime.{region}.amazonaws.com.
	// Set it for a VPC or FIPS endpoint.
	Host string `json:"host,omitempty"`
	// DropBetas are anthropic-beta values left out of anthropic_beta in
	// addition to DefaultDropBetas; "*" sends none.
	DropBetas []string `json:"drop_betas,omitempty"`
	// CredentialTimeout bounds fetching the credentials for one request, a
	// Go duration ("5s"); default DefaultCredentialTimeout.
	CredentialTimeout string `json:"credential_timeout,omitempty"`

	// Options are the Converse conversion's.
	converse.Options
}

// Validate checks the configuration. A value that is a placeholder
// ({env.AWS_REGION}) is checked once it is resolved, by New.
func (c Config) Validate() error {
	if c.Region != "" && !isPlaceholder(c.Region) {
		if err := checkRegion(c.Region); err != nil {
			return err
		}
	}
	if c.Host != "" && !isPlaceholder(c.Host) {
		if err := checkHost(c.Host); err != nil {
			return err
		}
	}
	switch c.API {
	case "", APIAuto, APIInvoke, APIConverse:
	default:
		return fmt.Errorf("api: must be %s, %s or %s, got %q", APIAuto, APIInvoke, APIConverse, c.API)
	}
	for _, b := range c.DropBetas {
		if b == "" || strings.ContainsAny(b, ", ") {
			return fmt.Errorf("drop_betas: %q is not a single beta name", b)
		}
	}
	if c.CredentialTimeout != "" {
		d, err := time.ParseDuration(c.CredentialTimeout)
		if err != nil || d <= 0 {
			return fmt.Errorf("credential_timeout: must be a positive duration such as 10s, got %q", c.CredentialTimeout)
		}
	}
	return c.Options.Validate()
}

// checkRegion accepts an AWS region name: lower-case letters, digits and
// '-' (us-east-1, us-gov-west-1), which is all that may go into the
// default host and the signature's scope.
func checkRegion(r string) error {
	bad := len(r) > 32
	for i := 0; i < len(r) && !bad; i++ {
		c := r[i]
		bad = !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-')
	}
	if bad || r[0] == '-' || r[len(r)-1] == '-' {
		return fmt.Errorf("region: %q is not an AWS region name (such as us-east-1)", r)
	}
	return nil
}

// checkHost accepts a host name with an optional port, and nothing that
// could leave the Host header (a path, a user, a scheme).
func checkHost(h string) error {
	bad := h == "" || len(h) > 253
	for i := 0; i < len(h) && !bad; i++ {
		c := h[i]
		bad = !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == ':')
	}
	if bad {
		return fmt.Errorf("host: %q is not a host name (such as bedrock-runtime.us-east-1.amazonaws.com)", h)
	}
	return nil
}

func isPlaceholder(s string) bool {
	return strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}")
}

// maxModelID bounds a model id or ARN (Bedrock's own limit is 2048).
const maxModelID = 2048

// ModelID checks the upstream model id that goes into the path: a model id
// (anthropic.claude-sonnet-4-5-20250929-v1:0), an inference profile
// (us.anthropic.…) or an ARN. Only letters, digits and ".-_:/@+" are taken,
// without "..". The path carries it escaped (EscapedModel), so a '/' of an
// ARN stays inside its segment.
func ModelID(id string) error {
	bad := id == "" || len(id) > maxModelID || strings.Contains(id, "..")
	for i := 0; i < len(id) && !bad; i++ {
		c := id[i]
		bad = !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '.' || c == '-' || c == '_' || c == ':' || c == '/' || c == '@' || c == '+')
	}
	if bad {
		return fmt.Errorf("model: %q is not a Bedrock model id, inference profile or ARN (letters, digits and \".-_:/@+\" only)", id)
	}
	return nil
}

// IsAnthropicModel reports whether a model id names an Anthropic model:
// anthropic.…, an inference profile such as us.anthropic.… or
// global.anthropic.…, or an ARN whose resource is one of those. An
// application inference profile's ARN does not name its model: api
// invoke sends such a profile to InvokeModel.
func IsAnthropicModel(id string) bool {
	if strings.HasPrefix(id, "arn:") {
		i := strings.LastIndexByte(id, '/')
		if i < 0 {
			return false
		}
		id = id[i+1:]
	}
	first, rest, _ := strings.Cut(id, ".")
	if first == "anthropic" {
		return true
	}
	second, _, _ := strings.Cut(rest, ".")
	return second == "anthropic"
}
