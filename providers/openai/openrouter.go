package openai

import "github.com/thinkgate/thinkgate/providers"

// openRouterReasoning is OpenRouter's reasoning request object.
type openRouterReasoning struct {
	MaxTokens int    `json:"max_tokens,omitempty"`
	Effort    string `json:"effort,omitempty"`
	Exclude   bool   `json:"exclude,omitempty"`
}

// openRouterRequest maps the request's thinking to OpenRouter's reasoning
// object: a budget becomes max_tokens (OpenRouter turns it into an effort
// for models that take one), thinking without a budget an effort, display
// "omitted" exclude. Thinking off sends nothing: the model's own default.
func openRouterRequest(x *providers.Exchange, efforts []providers.EffortStep) *openRouterReasoning {
	if !x.Thinking {
		return nil
	}
	r := &openRouterReasoning{Exclude: x.Request.Thinking.Display == "omitted"}
	if b := x.ThinkingBudget(); b > 0 {
		r.MaxTokens = b
	} else {
		r.Effort = providers.ReasoningEffort(0, true, efforts)
	}
	return r
}
