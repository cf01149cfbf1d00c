package options_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/caddymodule"
	"github.com/thinkgate/thinkgate/internal/testgw"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// A provider written outside caddymodule plugs in as its guest module
// alone: registered in the providers' namespace, it is a provider the
// Caddyfile knows, listed by name where a name is wrong, and the handler
// learns from its ProviderInfo, once at Provision, how to read requests
// (scan or parse), split_tags' default and the secret to scrub.

func init() {
	caddy.RegisterModule(pluggedProvider{})
}

// pluggedSecret is the plugged provider's credential.
const pluggedSecret = "plugged-secret-0123456789"

// pluggedProvider is the guest module of a provider that passes requests
// through, telling the upstream what its exchange looked like.
type pluggedProvider struct {
	// Scans is what ProviderInfo says of the provider's requests.
	Scans bool `json:"scans,omitempty"`
}

func (pluggedProvider) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.thinkgate.providers.plugged",
		New: func() caddy.Module { return new(pluggedProvider) },
	}
}

func (p *pluggedProvider) ProviderInfo() caddymodule.ProviderInfo {
	return caddymodule.ProviderInfo{
		Provider:     plugged{},
		SplitTags:    true,
		ScansRequest: p.Scans,
		Secrets:      []string{pluggedSecret},
	}
}

func (p *pluggedProvider) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	for d.NextBlock(0) {
		if d.Val() != "scans" {
			return d.Errf("unknown option %q", d.Val())
		}
		p.Scans = true
	}
	return nil
}

var (
	_ caddymodule.ProviderModule = (*pluggedProvider)(nil)
	_ caddyfile.Unmarshaler      = (*pluggedProvider)(nil)
)

// plugged passes the request through and says, in headers, what the
// exchange it was given holds.
type plugged struct{}

func (plugged) Rewrite(x *providers.Exchange, out *providers.Outbound) (providers.Translator, error) {
	out.Body = append(x.NewBody(len(x.Body)), x.Body...)
	out.Header.Set("X-Scanned", strconv.FormatBool(x.Request.Scanned()))
	out.Header.Set("X-Split-Tags", strconv.FormatBool(x.Settings.SplitTags))
	out.Header.Set("X-Upstream-Key", pluggedSecret)
	return pluggedTranslator{}, nil
}

type pluggedTranslator struct{}

func (pluggedTranslator) Handle(status int, _ http.Header) providers.Handling {
	if status >= 300 {
		return providers.Handling{Error: func(status int, _ http.Header, body []byte) *wire.Error {
			return &wire.Error{Status: status, Type: "invalid_request_error", Message: string(body)}
		}}
	}
	return providers.Handling{}
}

// TestPluggedProvider: a provider module registered from outside
// caddymodule is served as its ProviderInfo says.
func TestPluggedProvider(t *testing.T) {
	const request = `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"q"}]}`
	// The upstream echoes the key it was sent into its error.
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, "bad key %s", r.Header.Get("X-Upstream-Key"))
	})
	for _, c := range []struct {
		name, options, scanned string
	}{
		{"scans", "\tscans\n", "true"},
		{"parses", "", "false"},
	} {
		t.Run(c.name, func(t *testing.T) {
			gw := testgw.Start(t, testgw.SlotOptions, fmt.Sprintf("thinkgate plugged {\n%s}\nreverse_proxy %s", c.options, up.Addr()))
			res, body := gw.PostRead("/v1/messages", request)
			want := `{"type":"error","error":{"type":"invalid_request_error","message":"bad key [redacted]"}}`
			if res.StatusCode != http.StatusBadRequest || strings.TrimSpace(body) != want {
				t.Errorf("got %d %s\nwant 400 %s", res.StatusCode, body, want)
			}
			got := up.Last(t).Header
			if s := got.Get("X-Scanned"); s != c.scanned {
				t.Errorf("request scanned: %s, want %s", s, c.scanned)
			}
			if s := got.Get("X-Split-Tags"); s != "true" {
				t.Errorf("split_tags: %s, want the provider's default, true", s)
			}
		})
	}
}

// TestPluggedProviderNamed: the Caddyfile's errors list the plugged
// provider with the others: every name comes from Caddy's module registry.
func TestPluggedProviderNamed(t *testing.T) {
	for _, c := range []struct{ site, want string }{
		{"thinkgate\nreverse_proxy 127.0.0.1:1", "expected a provider name: amazonq, anthropic, azure, bedrock, gemini, openai, plugged, responses, vertex"},
		{"thinkgate pluged\nreverse_proxy 127.0.0.1:1", `unknown provider "pluged"; the providers are amazonq, anthropic, azure, bedrock, gemini, openai, plugged, responses, vertex (did you mean plugged?)`},
	} {
		p := testgw.PortsFor(testgw.SlotOptions)
		err := testgw.LoadError(t, testgw.SlotOptions, testgw.Preamble(p)+fmt.Sprintf("\n:%d {\n%s\n}\n", p.HTTP, c.site))
		if !strings.Contains(err, c.want) {
			t.Errorf("load error %s\nwant it to contain %s", err, c.want)
		}
	}
}
