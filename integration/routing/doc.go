// Package routing holds the integration tests of routing in one site: the
// thinkgate request matcher picking a handle block, alone and composed
// with Caddy's own matchers; model rules whose target keeps what the
// pattern matched; and GET /v1/models. It has no code of its own; the
// tests are in package routing_test.
package routing
