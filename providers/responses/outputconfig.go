package responses

import (
	"encoding/json"

	"github.com/thinkgate/thinkgate/providers"
)

// textConfig is the Responses request's text field.
type textConfig struct {
	Format textFormat `json:"format"`
}

type textFormat struct {
	Type   string          `json:"type"`
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

// outputConfig maps output_config onto out (docs/providers/responses.md):
// effort becomes reasoning.effort in place of what the budget gave (also
// with thinking off, then without a summary: the model reasons either
// way), max the highest level the efforts table lets through; a format
// becomes a strict json_schema text.format.
func (c *converter) outputConfig(out *request) error {
	oc, err := c.x.OutputConfig()
	if err != nil {
		return err
	}
	if oc.Effort != "" {
		effort := providers.MapEffort(oc.Effort, providers.StepLevels(c.cfg.Efforts))
		if out.Reasoning == nil {
			out.Reasoning = &reasoning{}
		}
		out.Reasoning.Effort = effort
	}
	if oc.Schema != nil && !c.x.CountTokens {
		out.Text = &textConfig{Format: textFormat{Type: "json_schema", Name: providers.StructuredOutputName, Schema: oc.Schema, Strict: true}}
	}
	return nil
}
