// Package load holds the load test: many concurrent streams through a real
// Caddy, every byte of each checked. It has no code of its own; the test is
// in package load_test.
package load
