// Package demo is a canned LLM upstream for trying thinkgate offline: the
// thinkgate_demo directive that Caddyfile.example fronts. It lives outside
// caddymodule so that a production build (xcaddy --with
// github.com/thinkgate/thinkgate) does not carry it; only cmd/caddy and the
// tests import it.
package demo

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

func init() {
	caddy.RegisterModule(DemoUpstream{})
	httpcaddyfile.RegisterHandlerDirective("thinkgate_demo", parseDemoCaddyfile)
	httpcaddyfile.RegisterDirectiveOrder("thinkgate_demo", httpcaddyfile.Before, "reverse_proxy")
}

// DemoText is the demo upstream's answer: the example of docs/thinking.md, a model
// that writes its reasoning between <thinking> tags.
const DemoText = "I need to answer the user's question about the first three letters of the alphabet. " +
	"<thinking>Step 1: Identify the user's core question. The user wants the first 3 letters of the English alphabet. " +
	"Step 2: Recall the sequence of the alphabet. It starts with A, B, C. " +
	"Step 3: Formulate the final answer.</thinking>" +
	"The first three letters of the alphabet are A, B, and C."

// DemoUpstream is a canned LLM upstream for trying thinkgate offline: it
// answers every Messages request with DemoText, streamed in small chunks as
// an Anthropic-format upstream would, so the gateway in front of it has tags
// to split. It is not meant for production.
type DemoUpstream struct {
	// ChunkSize is the number of text bytes per delta (default 16).
	ChunkSize int `json:"chunk_size,omitempty"`
	// Delay is the pause between deltas (default 20ms).
	Delay caddy.Duration `json:"delay,omitempty"`
}

// CaddyModule returns the Caddy module information.
func (DemoUpstream) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.thinkgate_demo",
		New: func() caddy.Module { return new(DemoUpstream) },
	}
}

// Provision sets defaults.
func (d *DemoUpstream) Provision(caddy.Context) error {
	if d.ChunkSize <= 0 {
		d.ChunkSize = 16
	}
	if d.Delay == 0 {
		d.Delay = caddy.Duration(20 * time.Millisecond)
	}
	return nil
}

// ServeHTTP answers like an Anthropic upstream.
func (d *DemoUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if r.Method != http.MethodPost || json.Unmarshal(body, &req) != nil {
		body := wire.InvalidRequest("the demo upstream takes POST /v1/messages with a JSON body").Body()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, err := w.Write(body)
		return err
	}
	id := providers.NewID("msg_")
	usage := emit.Usage{InputTokens: 12, OutputTokens: int64(len(DemoText) / 4)}
	if !req.Stream {
		em := emit.NewCollector(emit.FormText, nil)
		em.MessageStart(id, req.Model, usage)
		em.Text([]byte(DemoText))
		em.Finish("end_turn", "", usage)
		w.Header().Set("Content-Type", "application/json")
		_, err := w.Write(em.MessageJSON())
		return err
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	em := emit.NewEmitter(emit.FormText, nil)
	send := func() error {
		if _, err := w.Write(em.Events()); err != nil {
			return err
		}
		em.Flush()
		return rc.Flush()
	}
	em.MessageStart(id, req.Model, emit.Usage{InputTokens: usage.InputTokens, OutputTokens: 1})
	for i := 0; i < len(DemoText); i += d.ChunkSize {
		em.Text([]byte(DemoText[i:min(i+d.ChunkSize, len(DemoText))]))
		if err := send(); err != nil {
			return nil // client gone
		}
		select {
		case <-r.Context().Done():
			return nil
		case <-time.After(time.Duration(d.Delay)):
		}
	}
	em.Finish("end_turn", "", usage)
	return send()
}

func parseDemoCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	d := new(DemoUpstream)
	return d, d.UnmarshalCaddyfile(h.Dispenser)
}

// UnmarshalCaddyfile sets up the demo upstream. Syntax:
//
//	thinkgate_demo {
//	    chunk_size <bytes>
//	    delay      <duration>
//	}
func (d *DemoUpstream) UnmarshalCaddyfile(disp *caddyfile.Dispenser) error {
	disp.Next()
	for disp.NextBlock(0) {
		switch disp.Val() {
		case "chunk_size":
			v, err := oneArg(disp)
			if err != nil {
				return err
			}
			if _, err := fmt.Sscan(v, &d.ChunkSize); err != nil || d.ChunkSize <= 0 {
				return disp.Errf("chunk_size: expected a positive number, got %q", v)
			}
		case "delay":
			v, err := oneArg(disp)
			if err != nil {
				return err
			}
			dur, err := caddy.ParseDuration(v)
			if err != nil {
				return disp.Errf("delay: %v", err)
			}
			d.Delay = caddy.Duration(dur)
		default:
			return disp.Errf("thinkgate_demo: unknown option '%s'", disp.Val())
		}
	}
	return nil
}

// oneArg reads an option's single value.
func oneArg(disp *caddyfile.Dispenser) (string, error) {
	if !disp.NextArg() {
		return "", disp.ArgErr()
	}
	v := disp.Val()
	if disp.NextArg() {
		return "", disp.ArgErr()
	}
	return v, nil
}

// Interface guards
var (
	_ caddy.Provisioner           = (*DemoUpstream)(nil)
	_ caddyhttp.MiddlewareHandler = (*DemoUpstream)(nil)
	_ caddyfile.Unmarshaler       = (*DemoUpstream)(nil)
)
