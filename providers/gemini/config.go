package gemini

import (
	"fmt"

	"github.com/thinkgate/thinkgate/providers"
)

// Config is the gemini provider's own configuration. Its JSON form is the
// provider's part of a Caddy config.
type Config struct {
	// APIKey is sent as x-goog-api-key. Empty: the client's own key
	// (x-api-key or Authorization: Bearer) is sent instead. In a Caddy
	// config, use {env.NAME}.
	APIKey string `json:"api_key,omitempty"`
	// APIVersion is the path's version, VersionV1Beta (default) or
	// VersionV1.
	APIVersion string `json:"api_version,omitempty"`
	// Conversion's options are the provider's own: its JSON fields sit
	// beside api_key.
	Conversion
}

// Conversion are the options of the request conversion, shared by every
// provider that speaks Gemini's format (gemini, and vertex for Gemini on
// Vertex AI), so that each takes the same options under the same names.
type Conversion struct {
	// ThinkingBudget is the thinkingBudget sent when thinking is on and the
	// request sets no budget_tokens: a number of tokens, or -1 to let the
	// model decide; 0 means DefaultThinkingBudget.
	ThinkingBudget int `json:"thinking_budget,omitempty"`
	// SchemaExpansion bounds each tool's input_schema, once reduced to
	// Gemini's Schema (every $ref inlined), to this many times the size the
	// client sent; a larger one is refused with 400. 0 means
	// DefaultSchemaExpansion.
	SchemaExpansion int `json:"schema_expansion,omitempty"`
	// ThinkingLevelModels are the patterns of the (upstream) models that
	// take thinkingLevel instead of thinkingBudget; nil means
	// DefaultThinkingLevelModels, and "none" matches no model.
	ThinkingLevelModels []string `json:"thinking_level_models,omitempty"`
	// ThinkingLevels maps budgets to thinkingLevel; empty means
	// DefaultThinkingLevels.
	ThinkingLevels []providers.EffortStep `json:"thinking_levels,omitempty"`
}

// Validate checks the configuration.
func (c Config) Validate() error {
	switch c.APIVersion {
	case "", VersionV1Beta, VersionV1:
	default:
		return fmt.Errorf("api_version: must be %s or %s, got %q", VersionV1Beta, VersionV1, c.APIVersion)
	}
	return c.Conversion.Validate()
}

// Validate checks the conversion options.
func (c Conversion) Validate() error {
	if c.ThinkingBudget < -1 {
		return fmt.Errorf("thinking_budget: must be a positive number of tokens or -1 (dynamic), got %d", c.ThinkingBudget)
	}
	if c.SchemaExpansion < 0 {
		return fmt.Errorf("schema_expansion: must be a positive whole number (default %d), got %d", DefaultSchemaExpansion, c.SchemaExpansion)
	}
	return validateLevels(c.ThinkingLevelModels, c.ThinkingLevels)
}

// WithDefaults returns c with every option left at its zero value set to
// its default.
func (c Conversion) WithDefaults() Conversion {
	if c.ThinkingBudget == 0 {
		c.ThinkingBudget = DefaultThinkingBudget
	}
	if c.SchemaExpansion <= 0 {
		c.SchemaExpansion = DefaultSchemaExpansion
	}
	if c.ThinkingLevelModels == nil {
		c.ThinkingLevelModels = DefaultThinkingLevelModels
	}
	if len(c.ThinkingLevels) == 0 {
		c.ThinkingLevels = DefaultThinkingLevels
	}
	return c
}
