package providers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// OutputConfig is the request's output_config as a translating provider
// reads it (docs/configuration.md, "Effort, structured output and thinking
// display"). Anthropic's own upstreams take the field as the client sent it.
type OutputConfig struct {
	// Effort is low, medium, high, xhigh or max; "" when the client sent
	// none.
	Effort string
	// Schema is the JSON schema of a json_schema format, as the client
	// sent it (a sub-slice of the request body); nil when there is no
	// format.
	Schema json.RawMessage
}

// The efforts output_config.effort takes, lowest first.
const (
	EffortLow    = "low"
	EffortMedium = "medium"
	EffortHigh   = "high"
	EffortXHigh  = "xhigh"
	EffortMax    = "max"
)

// StructuredOutputName is the name a structured output's schema gets where
// the upstream wants one (OpenAI's json_schema.name, Bedrock's
// jsonSchema.name): Anthropic's format carries none.
const StructuredOutputName = "structured_output"

// OutputConfig reads the request's output_config from its raw bytes (no
// decode of the rest of the request). A malformed field is a 400 naming it.
func (x *Exchange) OutputConfig() (OutputConfig, error) {
	if x.Request == nil || x.Request.Fields == nil {
		return OutputConfig{}, nil
	}
	return ParseOutputConfig(x.Request.Fields["output_config"])
}

// ParseOutputConfig reads an output_config value (raw JSON, nil when
// absent). A malformed field is a 400 naming it.
func ParseOutputConfig(raw []byte) (OutputConfig, error) {
	var oc OutputConfig
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return oc, nil
	}
	if raw[0] != '{' {
		return oc, wire.InvalidRequest("output_config: expected an object")
	}
	effort, typ, _, err := jsonparser.Get(raw, "effort")
	switch {
	case err == jsonparser.KeyPathNotFoundError || typ == jsonparser.Null:
	case err != nil || typ != jsonparser.String:
		return oc, wire.InvalidRequest("output_config.effort: expected a string")
	default:
		switch e := string(effort); e {
		case EffortLow, EffortMedium, EffortHigh, EffortXHigh, EffortMax:
			oc.Effort = e
		default:
			return oc, wire.InvalidRequest(fmt.Sprintf("output_config.effort: must be one of low, medium, high, xhigh, max; got %q", e))
		}
	}
	format, typ, _, err := jsonparser.Get(raw, "format")
	switch {
	case err == jsonparser.KeyPathNotFoundError || typ == jsonparser.Null:
		return oc, nil
	case err != nil || typ != jsonparser.Object:
		return oc, wire.InvalidRequest("output_config.format: expected an object")
	}
	if t, _ := jsonparser.GetString(format, "type"); t != "json_schema" {
		return oc, wire.InvalidRequest(fmt.Sprintf("output_config.format.type: must be \"json_schema\", got %q", t))
	}
	schema, typ, _, err := jsonparser.Get(format, "schema")
	if err != nil || typ != jsonparser.Object {
		return oc, wire.InvalidRequest("output_config.format.schema: a JSON schema object is required")
	}
	oc.Schema = schema
	return oc, nil
}

// NoStructuredOutput is the 400 of a provider whose upstream cannot be held
// to a schema: the format is refused rather than dropped, so the client
// never gets free text where it asked for JSON.
func NoStructuredOutput(provider string) *wire.Error {
	return wire.InvalidRequest(fmt.Sprintf("output_config.format: structured outputs are not supported by the %s provider", provider))
}

// effortRank orders effort and level names from every upstream, so that a
// client's effort can be placed among the levels an upstream takes.
var effortRank = map[string]int{
	"none": 0, "minimal": 1, EffortLow: 2, EffortMedium: 3, EffortHigh: 4, EffortXHigh: 5, EffortMax: 6,
}

// MapEffort maps a client's effort onto levels, the levels an upstream
// takes in rising order: max is the highest; another effort is the level of
// the same name, else the lowest level above it, else the highest. "" when
// effort or levels is empty.
func MapEffort(effort string, levels []string) string {
	if effort == "" || len(levels) == 0 {
		return ""
	}
	top := levels[len(levels)-1]
	if effort == EffortMax {
		return top
	}
	want := effortRank[effort]
	for _, l := range levels {
		if l == effort {
			return l
		}
	}
	for _, l := range levels {
		if r, ok := effortRank[l]; ok && r > want {
			return l
		}
	}
	return top
}

// StepLevels returns the efforts of a budget → effort table, in its order
// (rising), each once: the levels a site lets its upstream take. An empty
// table gives DefaultEfforts' levels.
func StepLevels(steps []EffortStep) []string {
	if len(steps) == 0 {
		steps = DefaultEfforts
	}
	levels := make([]string, 0, len(steps))
	for _, s := range steps {
		if !slices.Contains(levels, s.Effort) {
			levels = append(levels, s.Effort)
		}
	}
	return levels
}

// ThinkingDisplay returns the request's thinking.display ("" when unset).
func (x *Exchange) ThinkingDisplay() string {
	if x.Request == nil {
		return ""
	}
	return x.Request.Thinking.Display
}
