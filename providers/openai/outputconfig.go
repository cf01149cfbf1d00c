package openai

import (
	"encoding/json"

	"github.com/thinkgate/thinkgate/providers"
)

// responseFormat is Chat Completions' response_format for a JSON schema.
type responseFormat struct {
	Type       string           `json:"type"`
	JSONSchema jsonSchemaFormat `json:"json_schema"`
}

type jsonSchemaFormat struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

// outputConfig maps output_config onto out (docs/providers/openai.md):
// effort becomes reasoning_effort where the thinking mode sends one
// (effort, both) and reasoning.effort for OpenRouter, in place of what the
// budget gave; a format becomes a strict json_schema response_format.
func (c *converter) outputConfig(out *chatRequest) error {
	oc, err := c.x.OutputConfig()
	if err != nil {
		return err
	}
	if oc.Effort != "" {
		effort := providers.MapEffort(oc.Effort, providers.StepLevels(c.cfg.Efforts))
		switch c.cfg.ThinkingMode {
		case ModeEffort, ModeBoth:
			out.ReasoningEffort = effort
		case ModeOpenRouter:
			// OpenRouter takes an effort or a max_tokens, not both.
			if out.Reasoning != nil {
				out.Reasoning.MaxTokens, out.Reasoning.Effort = 0, effort
			}
		}
	}
	if oc.Schema != nil {
		out.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: jsonSchemaFormat{
			Name: providers.StructuredOutputName, Schema: oc.Schema, Strict: true}}
	}
	return nil
}
