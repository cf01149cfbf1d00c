package caddymodule

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("thinkgate_clients", parseClientsCaddyfile)
	// Before encode, so before thinkgate, thinkgate_fallback (both after
	// encode) and the handle and route blocks of a routing site: the client
	// is known, and an unknown one refused, before any matcher reads the
	// body.
	httpcaddyfile.RegisterDirectiveOrder("thinkgate_clients", httpcaddyfile.Before, "encode")
}

func parseClientsCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	c := new(Clients)
	err := c.UnmarshalCaddyfile(h.Dispenser)
	return c, err
}

// clientOptions are a client block's options, listed when one is unknown.
var clientOptions = []string{"key", "key_file", "models", "requests_per_minute", "tokens_per_minute", "tokens_per_day", "max_streams"}

// storeOptions are a store block's options.
var storeOptions = []string{"password", "prefix", "timeout", "on_store_error"}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	thinkgate_clients {
//	    client <name> {
//	        key                 <key>         # the client's key; use {env.NAME}
//	        key_file            <path>        # or a file holding it
//	        models              <glob>...     # the models it may use (default: all)
//	        requests_per_minute <n>
//	        tokens_per_minute   <n>           # input + output + cache-creation tokens
//	        tokens_per_day      <n>           # the same, per UTC day
//	        max_streams         <n>           # Messages calls in progress at once
//	    }
//	    store redis <host:port> {             # share the counters (default: this process)
//	        password       <password>         # use {env.NAME}
//	        prefix         <prefix>           # of every key, default thinkgate
//	        timeout        <duration>         # bound of a store call, default 50ms
//	        on_store_error allow|deny         # when the store fails (default allow)
//	    }
//	}
//
// client is repeatable; each has one key (key or key_file). Windows are
// fixed: the wall-clock minute and the UTC day. thinkgate_clients goes
// before thinkgate and any handle block in the directive order; inside
// route {} put it first.
func (c *Clients) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // directive name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		switch d.Val() {
		case "client":
			cc, err := unmarshalClient(d)
			if err != nil {
				return err
			}
			c.Clients = append(c.Clients, cc)
		case "store":
			if c.Store != nil {
				return d.Err("store: given twice")
			}
			s, err := unmarshalStore(d)
			if err != nil {
				return err
			}
			c.Store = s
		default:
			return d.Errf("thinkgate_clients: unknown option '%s'; the options are client and store", d.Val())
		}
	}
	if len(c.Clients) == 0 {
		return d.Err("thinkgate_clients: no client; add client <name> { key … }")
	}
	return nil
}

func unmarshalClient(d *caddyfile.Dispenser) (ClientConfig, error) {
	var cc ClientConfig
	if !d.NextArg() {
		return cc, d.Err("client: expected a name")
	}
	cc.Name = d.Val()
	if !clientNamePattern.MatchString(cc.Name) {
		return cc, d.Errf("client %q: a name is 1 to 64 letters, digits, '.', '_' or '-'", cc.Name)
	}
	if d.NextArg() {
		return cc, d.ArgErr()
	}
	for d.NextBlock(1) {
		opt := d.Val()
		switch opt {
		case "key", "key_file":
			v, err := ParseStringOption(d)
			if err != nil {
				return cc, err
			}
			if opt == "key" {
				cc.Key = v
			} else {
				cc.KeyFile = v
			}
		case "models":
			globs := d.RemainingArgs()
			if len(globs) == 0 {
				return cc, missingArg(d)
			}
			cc.Models = append(cc.Models, globs...)
		case "requests_per_minute", "tokens_per_minute", "tokens_per_day", "max_streams":
			v, err := ParseStringOption(d)
			if err != nil {
				return cc, err
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return cc, d.Errf("%s: %q is not a positive whole number", opt, v)
			}
			switch opt {
			case "requests_per_minute":
				cc.RequestsPerMinute = n
			case "tokens_per_minute":
				cc.TokensPerMinute = n
			case "tokens_per_day":
				cc.TokensPerDay = n
			default:
				cc.MaxStreams = n
			}
		default:
			return cc, unknownOption(d, "client", opt, clientOptions)
		}
	}
	if (cc.Key == "") == (cc.KeyFile == "") {
		return cc, d.Errf("client %s: needs key or key_file (one of them)", cc.Name)
	}
	return cc, nil
}

func unmarshalStore(d *caddyfile.Dispenser) (*StoreConfig, error) {
	args := d.RemainingArgs()
	if len(args) != 2 || args[0] != "redis" {
		return nil, d.Err("store: expected redis <host:port>")
	}
	s := &StoreConfig{Type: args[0], Address: args[1]}
	for d.NextBlock(1) {
		opt := d.Val()
		if !slices.Contains(storeOptions, opt) {
			return nil, unknownOption(d, "store", opt, storeOptions)
		}
		v, err := ParseStringOption(d)
		if err != nil {
			return nil, err
		}
		switch opt {
		case "password":
			s.Password = v
		case "prefix":
			s.Prefix = v
		case "timeout":
			dur, err := caddy.ParseDuration(v)
			if err != nil || dur <= 0 {
				return nil, d.Errf("timeout: %q is not a positive duration; write e.g. 50ms", v)
			}
			s.Timeout = caddy.Duration(dur)
		case "on_store_error":
			if v != "allow" && v != "deny" {
				return nil, d.Errf("on_store_error: must be allow or deny, got %q", v)
			}
			s.OnStoreError = v
		}
	}
	return s, nil
}

// unknownOption names the unknown option of a block and lists the valid ones.
func unknownOption(d *caddyfile.Dispenser, block, opt string, valid []string) error {
	msg := fmt.Sprintf("%s: unknown option '%s'", block, opt)
	if c := closest(opt, valid); c != "" {
		msg += fmt.Sprintf(" (did you mean '%s'?)", c)
	}
	return d.Err(msg + "; the options are " + strings.Join(valid, ", "))
}

// Interface guards
var _ caddyfile.Unmarshaler = (*Clients)(nil)
