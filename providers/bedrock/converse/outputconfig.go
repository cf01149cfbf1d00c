package converse

import (
	"github.com/thinkgate/thinkgate/providers"
)

// outputConfig is Converse's outputConfig: structured output.
type outputConfig struct {
	TextFormat textFormat `json:"textFormat"`
}

type textFormat struct {
	Type      string          `json:"type"`
	Structure formatStructure `json:"structure"`
}

type formatStructure struct {
	JSONSchema jsonSchemaDefinition `json:"jsonSchema"`
}

// jsonSchemaDefinition holds the schema as a JSON string, as Converse
// takes it.
type jsonSchemaDefinition struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
}

// outputConfig maps output_config onto out (docs/providers/bedrock.md).
// Effort goes where the model family takes one: Claude gets
// output_config.effort as the client sent it (Claude's own scale, max
// included); Nova 2, with reasoning on, maxReasoningEffort; gpt-oss, which
// always reasons, reasoning_effort; max is the highest level of the efforts
// table. DeepSeek-R1 and other models have no effort field: none is sent.
// A json_schema format becomes outputConfig.textFormat for every family.
func (c *conversion) outputConfig(out *settings) error {
	oc, err := c.x.OutputConfig()
	if err != nil {
		return err
	}
	if oc.Effort != "" {
		c.effort(out, oc.Effort)
	}
	if oc.Schema != nil {
		out.OutputConfig = &outputConfig{TextFormat: textFormat{Type: "json_schema", Structure: formatStructure{
			JSONSchema: jsonSchemaDefinition{Schema: string(oc.Schema), Name: providers.StructuredOutputName}}}}
	}
	return nil
}

func (c *conversion) effort(out *settings, effort string) {
	field := func(name string, v any) {
		if out.AdditionalModelRequestFields == nil {
			out.AdditionalModelRequestFields = map[string]any{}
		}
		out.AdditionalModelRequestFields[name] = v
	}
	level := providers.MapEffort(effort, providers.StepLevels(c.opts.Efforts))
	switch c.family {
	case FamilyClaude:
		field("output_config", map[string]any{"effort": effort})
	case FamilyNova:
		rc, ok := out.AdditionalModelRequestFields["reasoningConfig"].(map[string]any)
		if !ok {
			return // reasoning off stays off
		}
		rc["maxReasoningEffort"] = level
		if out.InferenceConfig != nil {
			// Nova 2 takes no maxTokens with high effort (as thinking).
			out.InferenceConfig.MaxTokens = c.x.Request.MaxTokens
			if level == "high" {
				out.InferenceConfig.MaxTokens = 0
			}
		}
	case FamilyGPTOSS:
		field("reasoning_effort", level)
	}
}
