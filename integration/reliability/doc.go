// Package reliability holds the integration tests of how the gateway
// behaves when things go wrong (upstream errors, cut and malformed streams,
// silent upstreams, vanishing clients, bad requests) and of its operational
// surface. It has no code of its own; the tests are in package
// reliability_test.
package reliability
