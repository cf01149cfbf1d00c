package caddymodule

import (
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/anthropic"
	"github.com/thinkgate/thinkgate/providers/azure"
	"github.com/thinkgate/thinkgate/providers/bedrock"
	"github.com/thinkgate/thinkgate/providers/vertex"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// checkAnthropicRules refuses, with Anthropic's own 400, a request that
// Anthropic's API would refuse (wire.CheckAnthropicRules), unless it
// goes to an upstream that is Anthropic's API: there the upstream's own
// check answers, in its own words, and a new field or block type the
// gateway does not know yet still reaches it.
func (h *Handler) checkAnthropicRules(x *providers.Exchange) *wire.Error {
	if forwardsToAnthropic(h.provider, x.UpstreamModel) {
		return nil
	}
	return wire.CheckAnthropicRules(x.Request, x.CountTokens)
}

// forwardsToAnthropic reports whether p sends a request for model to
// Anthropic's Messages API as it is (a passthrough): anthropic and azure
// always, vertex for the models it sends to Anthropic's publisher, bedrock
// for those it sends to InvokeModel (Anthropic's models).
func forwardsToAnthropic(p providers.Provider, model string) bool {
	switch p := p.(type) {
	case *anthropic.Provider, *azure.Provider:
		return true
	case *vertex.Provider:
		return p.PublisherFor(model) == vertex.PublisherAnthropic
	case *bedrock.Provider:
		return p.API(model) == bedrock.APIInvoke
	}
	return false
}
