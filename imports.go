// Package thinkgate puts any LLM behind the Anthropic Messages API, with its
// thinking shown as real thinking blocks. It is a Caddy module; this package
// only pulls it in, so that `xcaddy build --with github.com/thinkgate/thinkgate`
// (here: `go tool xcaddy build --with github.com/thinkgate/thinkgate@v0.0.0=.`)
// builds a Caddy that has it.
package thinkgate

import (
	// The Caddy module and its providers.
	_ "github.com/thinkgate/thinkgate/caddymodule"
)
