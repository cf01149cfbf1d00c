package azure

import (
	"fmt"
	"strings"
)

// Config is the azure provider's own configuration. Its JSON form is the
// provider's part of a Caddy config.
type Config struct {
	// APIKey is the Azure resource key, sent as x-api-key and api-key. When
	// set, the client's own credential never reaches Azure; without it the
	// client's credential goes to Azure. In a Caddy config, use {env.NAME}.
	APIKey string `json:"api_key,omitempty"`
	// Path is the upstream Messages path, default DefaultPath; count_tokens
	// goes to Path + "/count_tokens".
	Path string `json:"path,omitempty"`
	// DropFields are top-level request fields removed in addition to
	// DefaultDropFields.
	DropFields []string `json:"drop_fields,omitempty"`
	// DropBetas are anthropic-beta values removed in addition to
	// DefaultDropBetas; "*" removes the header altogether.
	DropBetas []string `json:"drop_betas,omitempty"`
}

// Validate checks the configuration.
func (c Config) Validate() error {
	if c.Path != "" && !strings.HasPrefix(c.Path, "/") {
		return fmt.Errorf("path: must start with /, got %q", c.Path)
	}
	for _, f := range c.DropFields {
		switch f {
		case "":
			return fmt.Errorf("drop_fields: empty field name")
		case "model", "messages":
			return fmt.Errorf("drop_fields: %q is required by Azure and cannot be dropped", f)
		}
	}
	for _, b := range c.DropBetas {
		if b == "" || strings.ContainsAny(b, ", ") {
			return fmt.Errorf("drop_betas: %q is not a single beta name", b)
		}
	}
	return nil
}
