package caddymodule

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func TestUnmarshalClientsCaddyfile(t *testing.T) {
	d := caddyfile.NewTestDispenser(`thinkgate_clients {
		client alice {
			key {env.ALICE_KEY}
			models claude-sonnet-* claude-haiku-*
			requests_per_minute 60
			tokens_per_minute 400000
			tokens_per_day 20000000
			max_streams 4
		}
		client ci {
			key_file /etc/thinkgate/ci.key
		}
		store redis 127.0.0.1:6379 {
			password {env.REDIS_PASSWORD}
			prefix thinkgate
			timeout 80ms
			on_store_error deny
		}
	}`)
	var c Clients
	if err := c.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(c)
	want := `{"clients":[{"name":"alice","key":"{env.ALICE_KEY}","models":["claude-sonnet-*","claude-haiku-*"],"requests_per_minute":60,"tokens_per_minute":400000,"tokens_per_day":20000000,"max_streams":4},{"name":"ci","key_file":"/etc/thinkgate/ci.key"}],"store":{"type":"redis","address":"127.0.0.1:6379","password":"{env.REDIS_PASSWORD}","prefix":"thinkgate","timeout":80000000,"on_store_error":"deny"}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestClientsCaddyfileErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"thinkgate_clients {\n}", "no client"},
		{"thinkgate_clients {\nclient a {\nkey k\nrequests_per_minut 3\n}\n}", "client: unknown option 'requests_per_minut' (did you mean 'requests_per_minute'?)"},
		{"thinkgate_clients {\nclient a {\n}\n}", "client a: needs key or key_file"},
		{"thinkgate_clients {\nclient a {\nkey k\nkey_file f\n}\n}", "client a: needs key or key_file"},
		{"thinkgate_clients {\nclient a/b {\nkey k\n}\n}", `client "a/b": a name is`},
		{"thinkgate_clients {\nclient a {\nkey k\nmax_streams 0\n}\n}", `max_streams: "0" is not a positive whole number`},
		{"thinkgate_clients {\nclient a {\nkey k\n}\nstore memcached x:1\n}", "store: expected redis <host:port>"},
		{"thinkgate_clients {\nclient a {\nkey k\n}\nstore redis x:1 {\nprefixx p\n}\n}", "store: unknown option 'prefixx' (did you mean 'prefix'?)"},
		{"thinkgate_clients {\nclient a {\nkey k\n}\nstore redis x:1 {\non_store_error maybe\n}\n}", `on_store_error: must be allow or deny, got "maybe"`},
		{"thinkgate_clients {\nclient a {\nkey k\n}\nstore redis x:1 {\ntimeout soon\n}\n}", `timeout: "soon" is not a positive duration`},
		{"thinkgate_clients {\nclients a\n}", "thinkgate_clients: unknown option 'clients'"},
	} {
		var c Clients
		err := c.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestClientsValidate(t *testing.T) {
	for _, tc := range []struct {
		c    Clients
		want string
	}{
		{Clients{Clients: []ClientConfig{{Name: "a", Key: "k"}, {Name: "a", Key: "l"}}}, "client a: defined twice"},
		{Clients{Clients: []ClientConfig{{Name: "a", Key: "k", Models: []string{"[a"}}}}, `client a: models: bad pattern "[a"`},
		{Clients{Clients: []ClientConfig{{Name: "a", Key: "k"}}, Store: &StoreConfig{Type: "redis"}}, "store: needs an address"},
	} {
		if err := tc.c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.c, err, tc.want)
		}
	}
}

// TestClientsDirectiveOrder: thinkgate_clients runs before thinkgate and
// before the site's handle blocks, whatever the order written.
func TestClientsDirectiveOrder(t *testing.T) {
	b, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(`:8080 {
	handle /x {
		respond "x"
	}
	thinkgate anthropic
	thinkgate_clients {
		client a {
			key k
		}
	}
	reverse_proxy 127.0.0.1:1
}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	i, j, k := strings.Index(out, `"thinkgate_clients"`), strings.Index(out, `"handler":"thinkgate"`), strings.Index(out, `"handler":"subroute"`)
	if i < 0 || j < 0 || k < 0 || i > j || i > k {
		t.Errorf("thinkgate_clients at %d, thinkgate at %d, handle at %d:\n%s", i, j, k, out)
	}
}
