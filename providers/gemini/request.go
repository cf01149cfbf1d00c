package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// The parts of the Gemini request (GenerateContentRequest) the converter
// (convert.go) writes from the decoded request rather than from the
// client's bytes: they are small. Field names are Gemini's REST
// (camelCase) names.

type tool struct {
	FunctionDeclarations []functionDeclaration `json:"functionDeclarations"`
}

type functionDeclaration struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

type toolConfig struct {
	FunctionCallingConfig functionCallingConfig `json:"functionCallingConfig"`
}

type functionCallingConfig struct {
	Mode                 string   `json:"mode"`
	AllowedFunctionNames []string `json:"allowedFunctionNames,omitempty"`
}

type generationConfig struct {
	MaxOutputTokens int             `json:"maxOutputTokens,omitempty"`
	Temperature     *float64        `json:"temperature,omitempty"`
	TopP            *float64        `json:"topP,omitempty"`
	TopK            *int            `json:"topK,omitempty"`
	StopSequences   []string        `json:"stopSequences,omitempty"`
	ThinkingConfig  *thinkingConfig `json:"thinkingConfig,omitempty"`
	// ResponseMimeType and ResponseJSONSchema: output_config.format
	// (outputconfig.go).
	ResponseMimeType   string          `json:"responseMimeType,omitempty"`
	ResponseJSONSchema json.RawMessage `json:"responseJsonSchema,omitempty"`
}

type thinkingConfig struct {
	IncludeThoughts bool   `json:"includeThoughts"`
	ThinkingBudget  *int   `json:"thinkingBudget,omitempty"`
	ThinkingLevel   string `json:"thinkingLevel,omitempty"`
}

// SkipSignature is the dummy thoughtSignature Gemini documents for function
// calls it did not generate (history from another model, or a client that
// rewrote the tool_use id): it tells Gemini 3 to skip signature validation
// instead of rejecting the request.
const SkipSignature = "skip_thought_signature_validator"

// functionDeclarations converts the client tools. Server tools (web_search_…,
// bash_…) have no schema and run only at Anthropic: they are left out.
func functionDeclarations(tools []wire.Tool, expansion int) ([]functionDeclaration, error) {
	var decls []functionDeclaration
	err := eachFunctionDeclaration(tools, expansion, func(d *functionDeclaration) error {
		decls = append(decls, *d)
		return nil
	})
	return decls, err
}

// eachFunctionDeclaration converts the client tools one at a time, handing
// each declaration to fn, which must not keep it.
func eachFunctionDeclaration(tools []wire.Tool, expansion int, fn func(*functionDeclaration) error) error {
	for i, t := range tools {
		if !t.IsCustom() {
			continue
		}
		params, err := ReduceSchemaWithin(t.InputSchema, expansion)
		if err != nil {
			return wire.InvalidRequest(fmt.Sprintf("tools.%d.input_schema: %v", i, err))
		}
		if err := fn(&functionDeclaration{Name: t.Name, Description: t.Description, Parameters: params}); err != nil {
			return err
		}
	}
	return nil
}

// appendFunctionDeclarations appends the tools' functionDeclarations
// member (`,"tools":[{"functionDeclarations":[…]}]`) to dst, as
// functionDeclarations encodes them, when there is one: each schema is
// reduced straight into dst. It returns how many it wrote.
func appendFunctionDeclarations(dst []byte, tools []wire.Tool, expansion int) (_ []byte, decls int, err error) {
	var w schemaWriter
	for i := range tools {
		t := &tools[i]
		if !t.IsCustom() {
			continue
		}
		if decls == 0 {
			dst = append(dst, `,"tools":[{"functionDeclarations":[`...)
		} else {
			dst = append(dst, ',')
		}
		decls++
		dst = append(dst, `{"name":`...)
		dst = jsonbytes.AppendStringNoHTML(dst, t.Name)
		if t.Description != "" {
			dst = append(dst, `,"description":`...)
			dst = jsonbytes.AppendStringNoHTML(dst, t.Description)
		}
		raw := bytes.TrimSpace(t.InputSchema)
		if len(raw) > 0 && string(raw) != "null" {
			at := len(dst)
			dst = append(dst, `,"parameters":`...)
			var none bool
			if dst, none, err = w.appendSchema(dst, raw, expansion); err != nil {
				return nil, 0, wire.InvalidRequest(fmt.Sprintf("tools.%d.input_schema: %v", i, err))
			}
			if none {
				dst = dst[:at]
			}
		}
		dst = append(dst, '}')
	}
	if decls > 0 {
		dst = append(dst, "]}]"...)
	}
	return dst, decls, nil
}

// toolChoice maps tool_choice to functionCallingConfig. disable_parallel_tool_use
// has no Gemini counterpart.
func toolChoice(tc *wire.ToolChoice) *toolConfig {
	if tc == nil {
		return nil
	}
	var fc functionCallingConfig
	switch tc.Type {
	case "auto":
		fc.Mode = "AUTO"
	case "any":
		fc.Mode = "ANY"
	case "tool":
		fc.Mode = "ANY"
		fc.AllowedFunctionNames = []string{tc.Name}
	case "none":
		fc.Mode = "NONE"
	default:
		return nil
	}
	return &toolConfig{FunctionCallingConfig: fc}
}

// generationConfigFor is the request's generationConfig; budget is the
// thinking budget of a request that sets none, levels the model's
// budget → level table (nil: it takes thinkingBudget).
func generationConfigFor(x *providers.Exchange, budget int, levels []providers.EffortStep) *generationConfig {
	req := x.Request
	thinking := thinkingConfigFor(req.Thinking, x.Settings.DefaultThinking, budget)
	if levels != nil {
		thinking = levelConfigFor(req.Thinking, x.Settings.DefaultThinking, budget, levels)
	}
	return &generationConfig{
		MaxOutputTokens: req.MaxTokens,
		Temperature:     req.Temperature,
		TopP:            req.TopP,
		TopK:            req.TopK,
		StopSequences:   req.StopSequences,
		ThinkingConfig:  thinking,
	}
}

// thinkingConfigFor maps the request's thinking field to Gemini's thinkingConfig
// as docs/providers/gemini.md states: absent → thoughts with the
// default budget; true/false; enabled → its budget_tokens (or the default);
// disabled → no thoughts, budget 0; adaptive → budget -1 (dynamic).
//
// When default_thinking is off, an absent field asks for no thoughts and
// leaves the budget to the model, so models that cannot stop thinking
// (2.5 Pro, Gemini 3) still work. display "omitted" asks for no thought text.
func thinkingConfigFor(t wire.ThinkingParam, defaultOn bool, budget int) *thinkingConfig {
	on := func(n int) *thinkingConfig {
		return &thinkingConfig{IncludeThoughts: t.Display != "omitted", ThinkingBudget: &n}
	}
	off := func() *thinkingConfig {
		zero := 0
		return &thinkingConfig{IncludeThoughts: false, ThinkingBudget: &zero}
	}
	switch {
	case !t.Present:
		if !defaultOn {
			return &thinkingConfig{IncludeThoughts: false}
		}
		return on(budget)
	case t.Bool != nil:
		if *t.Bool {
			return on(budget)
		}
		return off()
	}
	switch t.Type {
	case "disabled":
		return off()
	case "adaptive":
		return on(-1)
	}
	if t.BudgetTokens > 0 {
		return on(t.BudgetTokens)
	}
	return on(budget)
}

// marshal encodes v without HTML escaping, so <thinking> text stays readable.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
