package caddymodule

import (
	"fmt"
	"github.com/dustin/go-humanize"
	"sync"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/thinkgate/thinkgate/providers"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("thinkgate", parseCaddyfile)
	// Inside encode (so the client gets compressed output if it asked) and
	// ahead of reverse_proxy, which sends the rewritten request.
	httpcaddyfile.RegisterDirectiveOrder("thinkgate", httpcaddyfile.After, "encode")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	t := new(Handler)
	err := t.UnmarshalCaddyfile(h.Dispenser)
	return t, err
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	thinkgate [<matcher>] <provider> {
//	    api_key          <key>            # upstream credential; use {env.NAME}
//	    model            <from> <to>      # rename models; <from> may be a glob; repeatable
//	    split_tags       [on|off]         # split inline <thinking> tags into thinking blocks
//	    thinking_block   thinking|text    # Anthropic thinking blocks (default) or text blocks
//	    tags             <name>...        # tag names to recognise, default: thinking
//	    start_in_thinking [on|off]        # output starts inside a span the template opened
//	    parse_in_code_fences [on|off]     # also split tags inside ``` fences of the answer
//	    max_tag_length   <size>           # longest opening tag buffered, default 64KiB
//	    default_thinking on|off           # a request without `thinking` counts as enabled (default on)
//	    thinking_hint    <text>           # hint for tag-based upstreams; {budget} is replaced
//	    keepalive        <duration>|off   # ping when the upstream is silent this long (default 10s)
//	    max_request_body <size>           # default 32MiB
//	    request_body_timeout <duration>   # time to read the request body (default 30s)
//	    max_event_size   <size>           # largest upstream stream event, default 16MiB
//	    client_keys      <key>...         # clients must present one of these; use {env.NAME}
//	    client_keys_file <path>           # more client keys, one per line
//	    signing_key      <secret>         # key of the gateway's thinking-block signatures
//	    previous_signing_keys <secret>... # keys that still verify, not sign (rotation)
//	    upstream_idle_timeout <duration>|off  # end a stream whose upstream is silent this long (default 5m)
//	    upstream_body_timeout <duration>  # time to read a whole upstream body: error, Message, count (default 30s)
//	    forward_rate_limit_headers [on|off]   # pass the upstream's rate-limit headers (default off)
//	    advertise_models <name>...|off   # GET /v1/models lists these (default: the model rules' plain names)
//	    model_info <model-glob> { … }    # a model card: limits and capabilities (cards.go); repeatable
//	    trace_content    <size>|off       # record message text on the trace span, this much each way (default off)
//	    <provider options>
//	}
//
// <provider> is the name of a provider module (http.handlers.thinkgate.providers.<name>;
// an unknown name is refused with the list of the registered ones).
// Options that only the provider knows (path, api_key …) go in the same
// block and are handed to it; an option neither knows is an error that
// names it and lists the valid ones.
//
// model rules are tried in the order written and the first match wins, so
// a specific pattern must come before a broader one (model claude-opus-* o3
// before model claude-* gpt-4.1); patterns are globs, not regular
// expressions; '*' crosses '/' (model names are not paths). Each '*' of
// <to> is what the '*' of the same rank in <from> matched, so
// model openrouter,* * sends openrouter,anthropic/claude-sonnet-4 upstream
// as anthropic/claude-sonnet-4. A rule an earlier one shadows is logged as
// a warning at load.
//
// Without signing_key the gateway makes a key once and keeps it in Caddy's
// storage, shared by every instance on that storage.
//
// thinkgate must run before reverse_proxy: the directive order does that
// at the top level of a site, but inside route {} handlers run as written.
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // directive name
	if !d.NextArg() {
		return d.Err("expected a provider name: " + providerNames())
	}
	nameTok := d.Token()
	name := d.Val()
	if d.NextArg() {
		return d.ArgErr()
	}
	if err := checkProviderName(name); err != nil {
		return d.WrapErr(err)
	}
	provTokens := []caddyfile.Token{nameTok, {Text: "{", Line: nameTok.Line, File: nameTok.File}}

	for d.NextBlock(0) {
		opt := d.Val()
		switch opt {
		case "split_tags":
			v, err := parseOnOff(d, true)
			if err != nil {
				return err
			}
			h.SplitTags = &v
		case "thinking_block":
			if !d.NextArg() {
				return missingArg(d)
			}
			h.ThinkingBlock = d.Val()
			if h.ThinkingBlock != "thinking" && h.ThinkingBlock != "text" {
				return d.Errf("thinking_block: must be thinking or text, got %q", h.ThinkingBlock)
			}
			if d.NextArg() {
				return d.ArgErr()
			}
		case "tags":
			h.Tags = d.RemainingArgs()
			if len(h.Tags) == 0 {
				return missingArg(d)
			}
		case "start_in_thinking":
			v, err := parseOnOff(d, true)
			if err != nil {
				return err
			}
			h.StartInThinking = v
		case "parse_in_code_fences":
			v, err := parseOnOff(d, true)
			if err != nil {
				return err
			}
			h.ParseInCodeFences = v
		case "max_tag_length":
			n, err := parseSize(d)
			if err != nil {
				return err
			}
			h.MaxTagLength = int(n)
		case "default_thinking":
			v, err := parseOnOff(d, false)
			if err != nil {
				return err
			}
			h.DefaultThinking = &v
		case "thinking_hint":
			if !d.NextArg() {
				return missingArg(d)
			}
			h.ThinkingHint = d.Val()
			if d.NextArg() {
				return d.ArgErr()
			}
		case "model":
			args := d.RemainingArgs()
			if len(args) != 2 {
				return d.Errf("model: expected <from> <to>, got %d arguments", len(args))
			}
			rule := providers.ModelRule{From: args[0], To: args[1]}
			if err := checkModelRule(rule); err != nil {
				return d.WrapErr(err)
			}
			h.Models = append(h.Models, rule)
		case "model_info":
			card, err := parseModelInfo(d)
			if err != nil {
				return err
			}
			h.ModelInfo = append(h.ModelInfo, card)
		case "advertise_models":
			names := d.RemainingArgs()
			if len(names) == 0 {
				return missingArg(d)
			}
			if len(names) == 1 && names[0] == "off" {
				names = []string{}
			}
			h.AdvertiseModels = &names
		case "keepalive":
			v, err := parseDurationOrOff(d)
			if err != nil {
				return err
			}
			h.Keepalive = v
		case "max_request_body":
			n, err := parseSize(d)
			if err != nil {
				return err
			}
			if n <= 0 {
				return d.Errf("max_request_body: must be positive")
			}
			h.MaxRequestBody = n
		case "request_body_timeout":
			v, err := ParseStringOption(d)
			if err != nil {
				return err
			}
			dur, err := caddy.ParseDuration(v)
			if err != nil || dur <= 0 {
				return d.Errf("request_body_timeout: %q is not a positive duration; write e.g. 30s or 2m", v)
			}
			h.RequestBodyTimeout = caddy.Duration(dur)
		case "max_event_size":
			n, err := parseSize(d)
			if err != nil {
				return err
			}
			if n <= 0 || n > 1<<30 {
				return d.Errf("max_event_size: must be between 1B and 1GiB")
			}
			h.MaxEventSize = n
		case "client_keys":
			keys := d.RemainingArgs()
			if len(keys) == 0 {
				return missingArg(d)
			}
			if err := checkPlaceholders(d, "client_keys", keys...); err != nil {
				return err
			}
			h.ClientKeys = append(h.ClientKeys, keys...)
		case "client_keys_file":
			v, err := ParseStringOption(d)
			if err != nil {
				return err
			}
			if err := checkPlaceholders(d, "client_keys_file", v); err != nil {
				return err
			}
			h.ClientKeysFile = v
		case "upstream_body_timeout":
			v, err := ParseStringOption(d)
			if err != nil {
				return err
			}
			dur, err := caddy.ParseDuration(v)
			if err != nil || dur <= 0 {
				return d.Errf("upstream_body_timeout: %q is not a positive duration; write e.g. 30s or 2m", v)
			}
			h.UpstreamBodyTimeout = caddy.Duration(dur)
		case "upstream_idle_timeout":
			d, err := parseDurationOrOff(d)
			if err != nil {
				return err
			}
			h.UpstreamIdleTimeout = d
		case "forward_rate_limit_headers":
			v, err := parseOnOff(d, true)
			if err != nil {
				return err
			}
			h.ForwardRateLimitHeaders = v
		case "trace_content":
			args := d.RemainingArgs()
			if len(args) != 1 {
				return d.Errf("trace_content: expected one size or off")
			}
			h.TraceContent = 0
			if args[0] != "off" {
				n, err := humanize.ParseBytes(args[0])
				if err != nil || n == 0 || n > maxTraceContent {
					return d.Errf("trace_content: %q is not a size between 1B and 16MiB, or off", args[0])
				}
				h.TraceContent = int64(n)
			}
		case "signing_key":
			v, err := ParseStringOption(d)
			if err != nil {
				return err
			}
			if err := checkPlaceholders(d, "signing_key", v); err != nil {
				return err
			}
			h.SigningKey = v
		case "previous_signing_keys":
			keys := d.RemainingArgs()
			if len(keys) == 0 {
				return missingArg(d)
			}
			if err := checkPlaceholders(d, "previous_signing_keys", keys...); err != nil {
				return err
			}
			h.PreviousSigningKeys = append(h.PreviousSigningKeys, keys...)
		default:
			// The provider's own option: its module parses (or rejects) it.
			provTokens = append(provTokens, d.NextSegment()...)
		}
	}

	last := provTokens[len(provTokens)-1]
	// The closing brace goes on a line of its own, or NextArg would read it
	// as the last option's argument.
	provTokens = append(provTokens, caddyfile.Token{Text: "}", Line: last.Line + 1, File: last.File})
	pd := caddyfile.NewDispenser(provTokens)
	pd.Next() // UnmarshalModule reads the segment at the cursor
	mod, err := caddyfile.UnmarshalModule(pd, providerNamespace+"."+name)
	if err != nil {
		return err
	}
	h.ProviderRaw = caddyconfig.JSONModuleObject(mod, "name", name, nil)
	return nil
}

func parseOnOff(d *caddyfile.Dispenser, bare bool) (bool, error) {
	opt := d.Val()
	if !d.NextArg() {
		if bare {
			return true, nil
		}
		return false, missingArg(d)
	}
	var v bool
	switch d.Val() {
	case "on", "true":
		v = true
	case "off", "false":
		v = false
	default:
		return false, d.Errf("%s: expected on or off, got %q", opt, d.Val())
	}
	if d.NextArg() {
		return false, d.ArgErr()
	}
	return v, nil
}

func parseSize(d *caddyfile.Dispenser) (int64, error) {
	opt := d.Val()
	if !d.NextArg() {
		return 0, missingArg(d)
	}
	n, err := humanize.ParseBytes(d.Val())
	if err != nil {
		return 0, d.Errf("%s: %q is not a size; write a number of bytes with a unit, e.g. 32MiB or 64KiB", opt, d.Val())
	}
	if d.NextArg() {
		return 0, d.ArgErr()
	}
	return int64(n), nil
}

// checkPlaceholders notes the Caddyfile line of a secret option whose
// placeholders ({env.NAME}) resolve to nothing here, so that the load's
// error about it (secret) can name the line, as every other Caddyfile
// error does. The adapt does not fail: the Caddyfile may be adapted where
// the secrets are not set (caddy adapt), and the load, where they must be,
// decides.
func checkPlaceholders(d *caddyfile.Dispenser, option string, values ...string) error {
	for _, v := range values {
		if _, err := secret(option, v); err != nil {
			placeholderLines.Store(option+"\x00"+v, fmt.Sprintf("%s:%d", d.File(), d.Line()))
		}
	}
	return nil
}

// placeholderLines maps an option and its value, as written, to the
// Caddyfile line of the last adapt in this process that found it
// unresolved.
var placeholderLines sync.Map

// ParseStringOption reads an option's single argument.
func ParseStringOption(d *caddyfile.Dispenser) (string, error) {
	if !d.NextArg() {
		return "", missingArg(d)
	}
	v := d.Val()
	if d.NextArg() {
		return "", d.ArgErr()
	}
	return v, nil
}

// Interface guards
var _ caddyfile.Unmarshaler = (*Handler)(nil)

// parseDurationOrOff reads a positive duration or "off" (stored as -1).
func parseDurationOrOff(d *caddyfile.Dispenser) (caddy.Duration, error) {
	opt := d.Val()
	if !d.NextArg() {
		return 0, missingArg(d)
	}
	v := caddy.Duration(-1)
	if d.Val() != "off" {
		dur, err := caddy.ParseDuration(d.Val())
		if err != nil || dur <= 0 {
			return 0, d.Errf("%s: %q is not a positive duration or off; write e.g. 30s, 5m or off", opt, d.Val())
		}
		v = caddy.Duration(dur)
	}
	if d.NextArg() {
		return 0, d.ArgErr()
	}
	return v, nil
}
