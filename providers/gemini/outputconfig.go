package gemini

import "github.com/thinkgate/thinkgate/providers"

// EffortBudgets are the thinkingBudget an output_config.effort asks of a
// model that takes a budget (Gemini 2.5). xhigh and max are high: 24576 tokens is the
// largest budget every 2.5 model takes (Flash and Flash-Lite stop there).
var EffortBudgets = map[string]int{
	providers.EffortLow:    1024,
	providers.EffortMedium: 8192,
	providers.EffortHigh:   24576,
	providers.EffortXHigh:  24576,
	providers.EffortMax:    24576,
}

// applyOutputConfig maps output_config onto g (docs/providers/gemini.md):
// effort becomes the thinkingLevel the levels table holds (levels: the
// model takes thinkingLevel; max its highest level) or an EffortBudgets
// budget, in place of the budget's, except that thinking turned off stays
// off on a model that can turn it off; a json_schema format asks for JSON
// held to the schema (responseMimeType, responseJsonSchema).
func applyOutputConfig(x *providers.Exchange, g *generationConfig, levels []providers.EffortStep) error {
	oc, err := x.OutputConfig()
	if err != nil {
		return err
	}
	if tc := g.ThinkingConfig; oc.Effort != "" && tc != nil {
		switch {
		case levels != nil:
			tc.ThinkingLevel = providers.MapEffort(oc.Effort, providers.StepLevels(levels))
		case tc.ThinkingBudget == nil || *tc.ThinkingBudget != 0:
			n := EffortBudgets[oc.Effort]
			tc.ThinkingBudget = &n
		}
	}
	if oc.Schema != nil {
		g.ResponseMimeType, g.ResponseJSONSchema = "application/json", oc.Schema
	}
	return nil
}
