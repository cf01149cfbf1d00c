package vertex

import (
	"fmt"
	"strings"
	"time"

	"github.com/thinkgate/thinkgate/providers/gemini"
)

// Config is the vertex provider's own configuration. Its JSON form is the
// provider's part of a Caddy config.
type Config struct {
	// Project is the Google Cloud project id (or number) of the path.
	// Required.
	Project string `json:"project,omitempty"`
	// Location is the Vertex AI region of the path (us-east5,
	// europe-west1, …) or "global". Required.
	Location string `json:"location,omitempty"`
	// CredentialsFile is a Google credentials JSON file (a service-account
	// key, a gcloud user credential, a workload identity federation
	// config). Empty: Application Default Credentials.
	CredentialsFile string `json:"credentials_file,omitempty"`
	// Publisher picks the model publisher: PublisherAuto (default) sends
	// claude* models to Anthropic's and the others to Google's.
	Publisher string `json:"publisher,omitempty"`
	// TokenTimeout bounds the fetch of an access token (a Go duration,
	// "10s"); empty means DefaultTokenTimeout.
	TokenTimeout string `json:"token_timeout,omitempty"`
	// DropBetas are anthropic-beta values removed for Claude in addition
	// to DefaultDropBetas; "*" removes the header altogether.
	DropBetas []string `json:"drop_betas,omitempty"`
	// Conversion's options (thinking_budget, schema_expansion,
	// thinking_level_models, thinking_levels) apply to Gemini models as
	// for the gemini provider.
	gemini.Conversion
}

// Publishers.
const (
	PublisherAuto      = "auto"
	PublisherGoogle    = "google"
	PublisherAnthropic = "anthropic"
)

// DefaultTokenTimeout bounds a token fetch when token_timeout is not set.
const DefaultTokenTimeout = 10 * time.Second

// Validate checks each option that is set. Project and Location, which a
// working config needs, are checked by Required, at load: the Caddyfile
// validates after each option, before the block is complete.
func (c Config) Validate() error {
	if c.Project != "" {
		if err := checkProject(c.Project); err != nil {
			return err
		}
	}
	if c.Location != "" {
		if err := checkLocation(c.Location); err != nil {
			return err
		}
	}
	switch c.Publisher {
	case "", PublisherAuto, PublisherGoogle, PublisherAnthropic:
	default:
		return fmt.Errorf("publisher: must be %s, %s or %s, got %q", PublisherAuto, PublisherGoogle, PublisherAnthropic, c.Publisher)
	}
	if _, err := c.tokenTimeout(); err != nil {
		return err
	}
	for _, b := range c.DropBetas {
		if b == "" || strings.ContainsAny(b, ", ") {
			return fmt.Errorf("drop_betas: %q is not a single beta name", b)
		}
	}
	return c.Conversion.Validate()
}

// Required checks the options without which no request can be sent.
func (c Config) Required() error {
	if c.Project == "" {
		return fmt.Errorf("project: required (the Google Cloud project id)")
	}
	if c.Location == "" {
		return fmt.Errorf("location: required (a Vertex AI region such as us-east5, or global)")
	}
	return nil
}

// tokenTimeout is TokenTimeout parsed, its default filled in.
func (c Config) tokenTimeout() (time.Duration, error) {
	if c.TokenTimeout == "" {
		return DefaultTokenTimeout, nil
	}
	d, err := time.ParseDuration(c.TokenTimeout)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("token_timeout: must be a positive duration such as 10s, got %q", c.TokenTimeout)
	}
	return d, nil
}

// checkProject accepts a project id or number as it goes into the path:
// letters, digits, '-', '_', '.' and ':' (a domain-scoped project is
// example.com:project), no "..". None of these leaves the path segment.
func checkProject(s string) error {
	if !idChars(s, "-_.:") {
		return fmt.Errorf("project: %q is not a Google Cloud project id (letters, digits, '-', '_', '.', ':')", s)
	}
	return nil
}

// checkLocation accepts a region name: lowercase letters, digits and '-'.
// It also names the host (Host), so nothing else may be in it.
func checkLocation(s string) error {
	ok := s != ""
	for i := 0; i < len(s) && ok; i++ {
		c := s[i]
		ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-'
	}
	if !ok {
		return fmt.Errorf("location: %q is not a Vertex AI location (lowercase letters, digits and '-', or global)", s)
	}
	return nil
}

// idChars reports whether s is a non-empty id of letters, digits and the
// given punctuation, without "..".
func idChars(s, punct string) bool {
	if s == "" || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(punct, c) >= 0) {
			return false
		}
	}
	return true
}

// Host is the Vertex AI host that serves location: the global endpoint,
// a multi-region's (us, eu) or a region's own.
func Host(location string) string {
	switch location {
	case "global":
		return "aiplatform.googleapis.com"
	case "us", "eu":
		return "aiplatform." + location + ".rep.googleapis.com"
	}
	return location + "-aiplatform.googleapis.com"
}
