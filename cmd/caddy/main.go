// Command caddy is Caddy with its standard modules, thinkgate and the
// thinkgate_demo upstream, for `go run ./cmd/caddy run --config
// Caddyfile.example` without xcaddy.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/thinkgate/thinkgate"
	// The canned upstream Caddyfile.example fronts; not part of the module
	// that xcaddy builds in.
	_ "github.com/thinkgate/thinkgate/internal/demo"
)

func main() {
	caddycmd.Main()
}
