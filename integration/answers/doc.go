// Package answers tests, through a real Caddy, the answers a thinkgate
// handler makes itself rather than an upstream: Anthropic's own request
// checks on the converting providers, and the {http.thinkgate.*}
// placeholders on every answer of the handler's own.
package answers
