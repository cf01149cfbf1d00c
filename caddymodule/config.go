package caddymodule

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/thinkgate/thinkgate/providers"
)

// Configuration errors name the option they are about and say what is wrong
// with it: "path: must start with /, got \"v1\"". They carry no module
// prefix: Caddy adds the context, the module chain for JSON ("loading
// module 'gemini': ...") and the file and line for a Caddyfile. The one
// error that names the block is UnknownOption's, since the option it is
// about is not one of the block's.

// handlerOptions are the Caddyfile options every provider shares, listed
// when an option is unknown.
var handlerOptions = []string{
	"split_tags", "thinking_block", "tags", "start_in_thinking", "parse_in_code_fences",
	"max_tag_length", "default_thinking", "thinking_hint", "model", "keepalive",
	"max_request_body", "request_body_timeout", "client_keys", "client_keys_file",
	"max_event_size", "signing_key", "previous_signing_keys", "upstream_idle_timeout", "forward_rate_limit_headers",
	"advertise_models", "upstream_body_timeout", "trace_content", "model_info",
}

// providerNames lists the registered providers, for errors that name a
// wrong one.
func providerNames() string {
	var names []string
	for _, m := range caddy.GetModules(providerNamespace) {
		names = append(names, m.ID.Name())
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// checkProviderName fails for a provider that is not registered, listing
// the ones that are (Caddy's own error names only the missing module).
func checkProviderName(name string) error {
	if _, err := caddy.GetModule(providerNamespace + "." + name); err != nil {
		msg := fmt.Sprintf("unknown provider %q; the providers are %s", name, providerNames())
		if c := closest(name, strings.Split(providerNames(), ", ")); c != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", c)
		}
		return fmt.Errorf("%s", msg)
	}
	return nil
}

// UnknownOption is the error for an option neither the handler nor the
// provider takes; module is the provider's guest module, whose JSON fields
// are its options. It names the closest option, if one is near, and lists
// them all.
func UnknownOption(d *caddyfile.Dispenser, provider string, module any) error {
	own := optionNames(module)
	all := append(append([]string(nil), own...), handlerOptions...)
	msg := fmt.Sprintf("thinkgate %s: unknown option '%s'", provider, d.Val())
	if c := closest(d.Val(), all); c != "" {
		msg += fmt.Sprintf(" (did you mean '%s'?)", c)
	}
	msg += "; the " + provider + " options are " + strings.Join(own, ", ") +
		", and every provider takes " + strings.Join(handlerOptions, ", ")
	return d.Err(msg)
}

// closest returns the candidate within a small edit distance of s, or "".
func closest(s string, candidates []string) string {
	best, bestDist := "", 3
	if len(s) <= 4 {
		bestDist = 2
	}
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of two short ASCII strings.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// missingArg is the error for an option given no value. An unset {$VAR} is
// replaced by nothing when the Caddyfile is read, which is the usual cause.
func missingArg(d *caddyfile.Dispenser) error {
	return d.Errf("wrong argument count or unexpected line ending after '%s' "+
		"(an unset {$VAR} leaves nothing here; {env.VAR} is read at load and fails there with its name)", d.Val())
}

// secret resolves an option's {env.*} placeholders at load. A value that
// was set but resolves to nothing is an error: sending no credential, or
// the client's own, in place of the configured one must not pass silently.
func secret(option, raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	v := resolveSecret(raw)
	if v == "" {
		err := fmt.Errorf("%s: %s resolved to the empty string (unset environment variable?)", option, raw)
		if line, ok := placeholderLines.Load(option + "\x00" + raw); ok {
			err = fmt.Errorf("%v, at %s", err, line)
		}
		return "", err
	}
	return v, nil
}

// resolveSecret replaces {env.*} and other global placeholders at load, so
// the secret never has to appear in the config itself.
func resolveSecret(s string) string {
	return caddy.NewReplacer().ReplaceKnown(s, "")
}

// modelRuleWarnings explains model rules that cannot do what they seem to:
// a rule an earlier one shadows (the first match wins) and a pattern
// written as a regular expression (patterns are globs).
func modelRuleWarnings(rules []providers.ModelRule) []string {
	var out []string
	for j, r := range rules {
		for i := range j {
			if shadows(rules[i].From, r.From) {
				out = append(out, fmt.Sprintf("model %s %s: never used, the earlier rule 'model %s %s' matches every name it does (the first matching rule wins)",
					r.From, r.To, rules[i].From, rules[i].To))
				break
			}
		}
		if looksLikeRegexp(r.From) {
			out = append(out, fmt.Sprintf("model %s %s: patterns are globs, not regular expressions ('*' is any run of characters, '?' one character); did you mean %s?",
				r.From, r.To, globFor(r.From)))
		}
	}
	return out
}

// shadows reports whether every model name that later matches is matched
// by earlier already. It is exact for a literal later pattern and for an
// earlier pattern whose only wildcard is '*'; other pairs are not flagged.
func shadows(earlier, later string) bool {
	if earlier == later {
		return true
	}
	if !strings.ContainsAny(later, `*?[\`) || !strings.ContainsAny(earlier, `?[\`) {
		_, ok := providers.MatchModel(earlier, later)
		return ok
	}
	return false
}

// looksLikeRegexp spots the regular-expression idioms a glob takes
// literally.
func looksLikeRegexp(p string) bool {
	return strings.Contains(p, ".*") || strings.Contains(p, ".+") ||
		strings.HasPrefix(p, "^") || strings.HasSuffix(p, "$") || strings.Contains(p, `\d`)
}

// globFor rewrites the common regular-expression idioms as a glob.
func globFor(p string) string {
	p = strings.TrimPrefix(p, "^")
	p = strings.TrimSuffix(p, "$")
	return strings.NewReplacer(".*", "*", ".+", "?*", `\d`, "[0-9]").Replace(p)
}

// orderWarning explains a thinkgate handler that a reverse_proxy runs
// before: reverse_proxy answers the client itself, so thinkgate never sees
// the request, and the client gets the upstream's raw output. The Caddyfile
// orders thinkgate first at the top level of a site, but inside route {}
// (and in JSON) handlers run as written.
//
// Routes are provisioned in order, so when this handler is provisioned the
// routes before its own hold their handlers, and its own route still holds
// its raw list.
func orderWarning(ctx caddy.Context, h *Handler) string {
	mods := ctx.Modules()
	for i := len(mods) - 1; i >= 0; i-- {
		switch m := mods[i].(type) {
		case *caddyhttp.Subroute:
			return orderWarningIn(m.Routes)
		case *caddyhttp.App:
			for _, srv := range m.Servers {
				if w := orderWarningIn(srv.Routes); w != "" {
					return w
				}
			}
			return ""
		}
	}
	return ""
}

const misorderedWarning = "thinkgate comes after reverse_proxy in the same route list, so reverse_proxy answers " +
	"and thinkgate never runs: clients get the upstream's raw output. Put thinkgate before reverse_proxy " +
	"(inside route {} handlers run in the order written)"

func orderWarningIn(routes caddyhttp.RouteList) string {
	proxied := false
	for _, r := range routes {
		if len(r.HandlersRaw) == 0 {
			// Already provisioned: a reverse_proxy that every request
			// reaches (no matcher) ends the chain for those after it.
			for _, hd := range r.Handlers {
				if caddy.GetModuleName(hd) == "reverse_proxy" && len(r.MatcherSets) == 0 {
					proxied = true
				}
			}
			continue
		}
		// The route being provisioned: this handler's own.
		for _, raw := range r.HandlersRaw {
			var v struct {
				Handler string `json:"handler"`
			}
			_ = json.Unmarshal(raw, &v)
			switch v.Handler {
			case "reverse_proxy":
				proxied = true
			case "thinkgate":
				if proxied {
					return misorderedWarning
				}
				return ""
			}
		}
		return ""
	}
	return ""
}
