// Package keypools holds the integration tests of upstream key pools
// (api_key with several keys) and of prompt_cache_key: the official SDK in
// front of a real Caddy, an httptest upstream speaking Chat Completions or
// Responses behind. It has no code of its own; the tests are in package
// keypools_test.
package keypools
