// Package upstreamedge holds the integration tests of what the gateway
// takes from an upstream it cannot trust to behave: bodies that trickle in
// (upstream_body_timeout, the credential fetches of vertex and bedrock) and
// error text that echoes the request's credentials back. It has no code of
// its own; the tests are in package upstreamedge_test.
package upstreamedge
