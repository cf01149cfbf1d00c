package caddymodule

// Caddyfile.example, which the tests here adapt, fronts the demo upstream.
import _ "github.com/thinkgate/thinkgate/internal/demo"
