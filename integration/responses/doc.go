// Package responses holds the responses provider's integration tests: an
// Anthropic client in front of a real Caddy, an upstream speaking OpenAI's
// Responses API behind. It has no code of its own; the tests are in package
// responses_test.
package responses
