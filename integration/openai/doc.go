// Package openai holds the openai provider's integration tests: an
// Anthropic client in front of a real Caddy, an upstream speaking Chat
// Completions behind. It has no code of its own; the tests are in package
// openai_test.
package openai
