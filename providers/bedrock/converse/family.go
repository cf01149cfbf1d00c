package converse

import (
	"strings"

	"github.com/thinkgate/thinkgate/providers"
)

// Model families: how a model on Converse is asked to think
// (additionalModelRequestFields), and what else of the request it takes.
const (
	// FamilyClaude: Anthropic's Claude, thinking {type, budget_tokens}.
	FamilyClaude = "claude"
	// FamilyNova: Amazon Nova 2, reasoningConfig {type, maxReasoningEffort}.
	FamilyNova = "nova"
	// FamilyGPTOSS: OpenAI's gpt-oss, reasoning_effort.
	FamilyGPTOSS = "gpt-oss"
	// FamilyDeepSeek: DeepSeek-R1, which always reasons and takes no field.
	FamilyDeepSeek = "deepseek"
	// FamilyNone: any other model; no thinking field is sent.
	FamilyNone = "none"
)

// efforts are the reasoning efforts Nova 2 and gpt-oss take.
var efforts = []string{"low", "medium", "high"}

// familyOf names a model id's family: a foundation model id
// ("anthropic.claude-sonnet-4-5-20250929-v1:0"), a cross-region inference
// profile ("us.anthropic.claude…") or a model ARN that holds one. An
// application inference profile's ARN says nothing of its model: the
// thinking_family option names it.
func familyOf(model string) string {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "anthropic.claude"):
		return FamilyClaude
	case strings.Contains(m, "amazon.nova-2"):
		return FamilyNova
	case strings.Contains(m, "openai.gpt-oss"):
		return FamilyGPTOSS
	case strings.Contains(m, "deepseek.r1"):
		return FamilyDeepSeek
	}
	return FamilyNone
}

// takesCachePoints reports whether a model takes cachePoint blocks
// (Bedrock's prompt caching): Claude and the Nova models. Others answer
// a cachePoint with a ValidationException.
func takesCachePoints(family, model string) bool {
	return family == FamilyClaude || strings.Contains(strings.ToLower(model), "amazon.nova")
}

// Claude's thinking bounds: a budget under minClaudeBudget is refused, and
// the budget must stay below max_tokens.
const minClaudeBudget = 1024

// thinking sets the family's thinking fields for the request, and drops
// the sampling fields a thinking model refuses. toolLoop reports whether
// the history ends answering tool calls of an assistant turn that does not
// begin with reasoning.
func (c *conversion) thinking(out *settings, toolLoop bool) {
	x, req := c.x, c.x.Request
	fields := map[string]any{}
	switch c.family {
	case FamilyClaude:
		switch {
		case x.Thinking && req.Thinking.Type == "adaptive":
			fields["thinking"] = map[string]any{"type": "adaptive"}
		case x.Thinking && toolLoop:
			// Claude refuses thinking when the turn that called the tools
			// being answered does not begin with its own reasoning (the
			// history came from elsewhere): this request goes without;
			// the next user turn asks again.
		case x.Thinking:
			budget := x.ThinkingBudget()
			if budget == 0 {
				// Thinking on without a budget (true, or default_thinking):
				// the hint's default, kept below max_tokens.
				budget = providers.DefaultHintBudget
				if req.MaxTokens > 0 {
					budget = min(budget, req.MaxTokens-1)
				}
			}
			if budget >= minClaudeBudget || x.ThinkingBudget() > 0 {
				fields["thinking"] = map[string]any{"type": "enabled", "budget_tokens": budget}
			}
		}
		if fields["thinking"] != nil {
			// Claude takes only temperature 1 and top_p from 0.95 with
			// thinking on, and no top_k: the sampling fields could change
			// nothing but cause a 400.
			out.dropSampling()
		} else if req.TopK != nil {
			fields["top_k"] = *req.TopK
		}
		if len(c.betas) > 0 {
			fields["anthropic_beta"] = c.betas
		}
	case FamilyNova:
		if x.Thinking {
			effort := providers.ReasoningEffort(x.ThinkingBudget(), true, c.opts.Efforts)
			fields["reasoningConfig"] = map[string]any{"type": "enabled", "maxReasoningEffort": effort}
			out.dropSampling()
			if effort == "high" && out.InferenceConfig != nil {
				// Nova 2 takes no maxTokens with high effort.
				out.InferenceConfig.MaxTokens = 0
			}
		}
	case FamilyGPTOSS:
		if x.Thinking {
			fields["reasoning_effort"] = providers.ReasoningEffort(x.ThinkingBudget(), true, c.opts.Efforts)
		}
	}
	if len(fields) > 0 {
		out.AdditionalModelRequestFields = fields
	}
}

// dropSampling removes temperature and top_p, and an inferenceConfig left
// empty.
func (r *settings) dropSampling() {
	ic := r.InferenceConfig
	if ic == nil {
		return
	}
	ic.Temperature, ic.TopP = nil, nil
}
