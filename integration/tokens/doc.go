// Package tokens holds the integration tests of count_tokens, PDF
// documents and cached-input usage on the OpenAI-compatible and Amazon Q
// providers: the official SDK in front of a real Caddy, upstreams speaking
// each provider's format behind. It has no code of its own; the tests are
// in package tokens_test.
package tokens
