package gemini

import (
	"github.com/thinkgate/thinkgate/providers"
)

// The conversion as other providers that speak Gemini's format use it
// (vertex: Gemini on Vertex AI). c must have its defaults (WithDefaults);
// model is the upstream model, already checked with ModelName.

// GenerateContent returns the body of a generateContent (or
// streamGenerateContent) call for x's request.
func (c Conversion) GenerateContent(x *providers.Exchange, model string) ([]byte, error) {
	return writeRequest(x, c.ThinkingBudget, c.SchemaExpansion, c.levelsFor(model), model, formGenerate)
}

// CountTokensContents returns a countTokens body holding the request's
// contents, systemInstruction and tools at its top level: the form Vertex
// AI's countTokens takes (it has no generateContentRequest field, and
// refuses the fields that only generation reads).
func (c Conversion) CountTokensContents(x *providers.Exchange, model string) ([]byte, error) {
	return writeRequest(x, c.ThinkingBudget, c.SchemaExpansion, c.levelsFor(model), model, formCountContents)
}
