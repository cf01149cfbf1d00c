// Package amazonq holds the amazonq provider's integration tests: a real
// Caddy in front of an httptest upstream that speaks Amazon Q's AWS binary
// event stream. It has no code of its own; the tests are in package
// amazonq_test.
package amazonq
