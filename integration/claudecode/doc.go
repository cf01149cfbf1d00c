// Package claudecode runs the real Claude Code CLI and the TypeScript SDK,
// installed from npm at pinned versions, against a real Caddy with each
// provider in front of a test upstream speaking that provider's format.
// CONTRIBUTING.md says how to move the pinned versions.
package claudecode
