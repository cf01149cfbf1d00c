// Package azure holds the azure provider's integration tests: a real Caddy
// in front of a mock Azure AI Foundry endpoint that refuses what Azure
// refuses. It has no code of its own; the tests are in package azure_test.
package azure
