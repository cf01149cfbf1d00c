// Package bedrock holds the bedrock provider's integration tests: a real
// Caddy in front of an httptest Bedrock runtime that verifies every SigV4
// signature with the SDK's signer and answers in AWS event-stream frames.
// It has no code of its own; the tests are in package bedrock_test.
package bedrock
