// Package docs holds the reference documentation (Markdown) and its test:
// every Caddyfile snippet in README.md, CONTRIBUTING.md and docs/ adapts,
// is formatted as caddy fmt writes it and, when it is a whole Caddyfile,
// validates; every relative link resolves. The rules for marking snippets
// are in CONTRIBUTING.md. It has no code of its own; the tests are in
// package docs_test.
package docs
