// Package providers holds what every upstream format shares: the Anthropic
// request as clients send it (ParseRequest, Exchange), the Provider
// interface each upstream package implements, the SSE decoder, the Emitter
// that alone writes the Anthropic event grammar (and its Collector twin for
// non-streaming Messages), the signatures of the thinking blocks the gateway
// creates, Anthropic-shaped errors, and the JSON scanners and escaper of the
// hot path. It has no Caddy in it: caddymodule wires it into Caddy.
package providers
