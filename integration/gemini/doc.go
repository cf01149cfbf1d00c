// Package gemini holds the gemini provider's integration tests: a real Caddy
// in front of a mock Gemini API that checks requests as Gemini does and
// answers in its wire format. It has no code of its own; the tests are in
// package gemini_test.
package gemini
