// Package providers holds what every upstream format shares: the Anthropic
// request as clients send it (ParseRequest, Exchange), the Provider
// interface each upstream package implements, the SSE decoder, the Emitter
// that alone writes the Anthropic event grammar (to an event stream, or to
// one non-streaming Message with NewCollector), the signatures of the
// thinking blocks the gateway creates, Anthropic-shaped errors, and the JSON
// scanners and escaper of the hot path. It has no Caddy in it: caddymodule
// wires it into Caddy.
//
// A provider plugs in at one place. Rewrite converts the request and returns
// the request's Translator; when the upstream's status and headers arrive,
// its Handle says how the body is handled (a Handling): passed through, an
// EventStream translated as it flows, a whole body translated, or an error
// mapped. An EventStream drives the provider's Stream over an emitter and
// hands the events to the caller's sink; it alone decides how a failing
// stream ends.
package providers
