// Package anthropic holds the anthropic provider's integration tests: what
// the upstream receives through a real Caddy, and that the client gets the
// upstream's response untouched. It has no code of its own; the tests are
// in package anthropic_test.
package anthropic
