package amazonq

import (
	"fmt"
	"time"
)

// Config is the amazonq provider's own configuration. Its JSON form is the
// provider's part of a Caddy config.
type Config struct {
	// APIKey is the bearer token sent upstream. When empty the client's own
	// bearer token (Authorization or x-api-key) goes through. In a Caddy
	// config, use {env.NAME}.
	APIKey string `json:"api_key,omitempty"`
	// ProfileARN is sent as profileArn when set (needed by IAM Identity
	// Center / organisation accounts).
	ProfileARN string `json:"profile_arn,omitempty"`
	// Protocol is ProtocolJSON (default: POST /generateAssistantResponse,
	// application/json, as Kiro-style endpoints take it) or ProtocolAWS
	// (the official form: POST / with application/x-amz-json-1.0 and
	// x-amz-target).
	Protocol string `json:"protocol,omitempty"`
	// Origin is userInputMessage.origin, default DefaultOrigin.
	Origin string `json:"origin,omitempty"`
	// Now is the clock of the template's "Current time" line; nil means
	// time.Now. Tests set it to get deterministic bodies.
	Now func() time.Time `json:"-"`
}

// Validate checks the configuration.
func (c Config) Validate() error {
	switch c.Protocol {
	case "", ProtocolJSON, ProtocolAWS:
		return nil
	}
	return fmt.Errorf("protocol: must be %s or %s, got %q", ProtocolJSON, ProtocolAWS, c.Protocol)
}
