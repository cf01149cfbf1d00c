package anthropic

import (
	"fmt"
	"strings"
)

// Config is the anthropic provider's own configuration. Its JSON form is
// the provider's part of a Caddy config.
type Config struct {
	// APIKey, when set, replaces the client's key upstream. In a Caddy
	// config, use {env.NAME}.
	APIKey string `json:"api_key,omitempty"`
	// Path is the upstream Messages path, default DefaultPath;
	// count_tokens goes to Path + "/count_tokens". The client's own path is
	// never forwarded.
	Path string `json:"path,omitempty"`
}

// Validate checks the configuration: the path is absolute and carries no
// query (the client's query is filtered, not the operator's to add to).
func (c Config) Validate() error {
	if c.Path != "" && (!strings.HasPrefix(c.Path, "/") || strings.ContainsAny(c.Path, "?#")) {
		return fmt.Errorf("path: must start with / and carry no query, got %q", c.Path)
	}
	return nil
}
