// Command caddy is Caddy with its standard modules and thinkgate, for
// `go run ./cmd/caddy run --config Caddyfile.example` without xcaddy.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/thinkgate/thinkgate"
)

func main() {
	caddycmd.Main()
}
