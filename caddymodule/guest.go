package caddymodule

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/thinkgate/thinkgate/providers"
)

// A provider guest module embeds its provider's Config, so the Config's JSON
// fields are the module's and Config.Validate is its Validate, and embeds
// guest, which builds the provider at Provision. Its Caddyfile options are
// the Config's JSON names, read by unmarshalProviderOptions. Its one method
// for the handler, ProviderInfo, says what the handler needs of it; the
// module registers itself in providerNamespace, which is where every list
// of providers (errors, docs, tests) comes from.

// providerNamespace is the guest-module namespace of the providers.
const providerNamespace = "http.handlers.thinkgate.providers"

// ProviderModule is a provider's guest module as the thinkgate handler sees
// it. The handler asks for it once, at Provision, after the module is
// provisioned, and keeps what ProviderInfo returns.
type ProviderModule interface {
	caddy.Module
	ProviderInfo() ProviderInfo
}

// ProviderInfo is what the handler knows of its provider.
type ProviderInfo struct {
	// Provider is the provisioned provider.
	Provider providers.Provider
	// SplitTags is split_tags' default: on for upstreams whose models are
	// prompted to write their thinking in tags.
	SplitTags bool
	// ScansRequest: the provider works from wire.ScanRequest's
	// findings (it is a providers.RequestScanner that scans), so the
	// handler reads its requests with a scan rather than a full parse.
	ScansRequest bool
	// Secrets are the credentials the provider sends upstream, resolved,
	// scrubbed from the text relayed from the upstream.
	Secrets []string
	// GenAIName is the OpenTelemetry GenAI conventions' name of the system
	// behind the provider (gen_ai.provider.name); "" uses the module's name.
	GenAIName string
	// KeyPool is the provider's pool of upstream keys (api_key with
	// several), nil without one.
	KeyPool *keyPool
}

// guest is what every provider module holds besides its Config: the
// provider built from it and the credential to scrub from relayed upstream
// text.
type guest struct {
	// APIKeys is a pool of upstream keys, in place of the Config's single
	// api_key (the Caddyfile's api_key with several keys). Use {env.NAME}.
	APIKeys []string `json:"api_keys,omitempty"`

	// KeySelection chooses a pool's key for a request: session (default:
	// one client session keeps one key) or round_robin.
	KeySelection string `json:"key_selection,omitempty"`

	// KeyCooldownMax bounds how long a key that answered 429 rests,
	// whatever its Retry-After. Default 1m.
	KeyCooldownMax caddy.Duration `json:"key_cooldown_max,omitempty"`

	provider providers.Provider
	apiKeys  []string // resolved: api_key, or the pool
	pool     *keyPool // with two keys or more
}

// info completes a module's ProviderInfo, whose SplitTags and GenAIName
// the module gives, with what Provision built.
func (g *guest) info(static ProviderInfo) ProviderInfo {
	static.Provider = g.provider
	static.Secrets = g.secrets()
	static.KeyPool = g.pool
	if s, ok := g.provider.(providers.RequestScanner); ok {
		static.ScansRequest = s.ScansRequest()
	}
	return static
}

// guestOf gives unmarshalProviderOptions the guest of a provider module.
func (g *guest) guestOf() *guest { return g }

// secrets is the credential scrubbed from what is relayed from the
// upstream: the api_key, or every key of the pool, resolved.
func (g *guest) secrets() []string { return g.apiKeys }

// keyPool is the provider's pool of upstream keys, nil without one.
func (g *guest) keyPool() *keyPool { return g.pool }

// checkKeyPool checks the pool's options against the module's api_key.
func (g *guest) checkKeyPool(apiKey string, hasAPIKey bool) error {
	if len(g.APIKeys) > 0 && !hasAPIKey {
		return errors.New("api_keys: this provider takes no api_key")
	}
	if len(g.APIKeys) > 0 && apiKey != "" {
		return errors.New("api_key and api_keys: set one of them (api_key takes several keys)")
	}
	switch g.KeySelection {
	case "", keySelectionSession, keySelectionRoundRobin:
	default:
		return fmt.Errorf("key_selection: must be %s or %s, got %q", keySelectionSession, keySelectionRoundRobin, g.KeySelection)
	}
	if g.KeyCooldownMax < 0 {
		return errors.New("key_cooldown_max: must not be negative")
	}
	if len(g.APIKeys) < 2 && (g.KeySelection != "" || g.KeyCooldownMax != 0) {
		return errors.New("key_selection and key_cooldown_max need several keys (api_key <key> <key>...)")
	}
	return nil
}

// credentialOptions are the options whose placeholders ({env.NAME}) are
// resolved at load, so that a secret never has to appear in the config
// itself, and which fail the load when set but resolved to nothing.
var credentialOptions = []string{"api_key", "profile_arn"}

// placeholderOptions are the options whose placeholders must resolve at
// load: the credentials and vertex's credentials_file. The Caddyfile
// checks them at the option's line.
var placeholderOptions = append(slices.Clone(credentialOptions), "credentials_file")

// provision builds the provider from a copy of cfg with its credentials
// resolved; the module keeps cfg as written, placeholders and all.
// With a pool, the provider is built with the first key and the pool
// swaps in another per request (keyPool.useKey).
func provision[C any, P providers.Provider](g *guest, cfg C, build func(C) P) error {
	v := reflect.ValueOf(&cfg).Elem()
	apiKey, hasAPIKey := optionField(v, "api_key")
	raw := ""
	if hasAPIKey {
		raw = apiKey.String()
	}
	if err := g.checkKeyPool(raw, hasAPIKey); err != nil {
		return err
	}
	g.apiKeys = nil
	for _, k := range g.APIKeys {
		s, err := secret("api_key", k)
		if err != nil {
			return err
		}
		if slices.Contains(g.apiKeys, s) {
			return errors.New("api_key: the same key is listed twice")
		}
		g.apiKeys = append(g.apiKeys, s)
	}
	if len(g.apiKeys) > 0 {
		apiKey.SetString(g.apiKeys[0])
	}
	if len(g.apiKeys) > 1 {
		g.pool = newKeyPool(g.apiKeys, g.KeySelection, time.Duration(g.KeyCooldownMax))
	}
	for _, name := range credentialOptions {
		f, ok := optionField(v, name)
		if !ok || name == "api_key" && len(g.apiKeys) > 0 {
			continue
		}
		s, err := secret(name, f.String())
		if err != nil {
			return err
		}
		f.SetString(s)
		if name == "api_key" && s != "" {
			g.apiKeys = []string{s}
		}
	}
	g.provider = build(cfg)
	return nil
}

// sizeOptions are the whole-number options written as a size (512KiB).
var sizeOptions = map[string]bool{"max_queued": true}

// unmarshalProviderOptions reads the options of a provider's Caddyfile
// block into module, whose embedded Config holds them. An option is a
// Config field's JSON name and takes the field's kind of value: a string
// one argument; a flag on or off, or nothing for on; a list one or more, and repeating the option adds to it; a
// whole number one, a size where sizeOptions names it. A number's 0 is
// refused: in the JSON config it stands for the default, so the Caddyfile
// leaves the option out instead. After each option the module validates
// the whole, so that an error points at the option's line.
func unmarshalProviderOptions(d *caddyfile.Dispenser, module interface {
	caddy.Module
	caddy.Validator
}) error {
	v := reflect.ValueOf(module).Elem()
	d.Next() // the provider's name
	for d.NextBlock(0) {
		name := d.Val()
		if name == "api_key" && d.CountRemainingArgs() > 1 {
			// Several keys: a pool.
			name = "api_keys"
		}
		f, ok := optionField(v, name)
		if !ok || keyPoolOptions[name] && !hasOption(module, "api_key") {
			return UnknownOption(d, caddy.GetModuleName(module), module)
		}
		if err := setOption(d, name, f); err != nil {
			return err
		}
		if err := module.Validate(); err != nil {
			return d.Err(err.Error())
		}
	}
	if g, ok := module.(interface{ guestOf() *guest }); ok {
		apiKey, has := optionField(v, "api_key")
		raw := ""
		if has {
			raw = apiKey.String()
		}
		if err := g.guestOf().checkKeyPool(raw, has); err != nil {
			return d.Err(err.Error())
		}
	}
	return nil
}

// setOption reads the value of the option at d's cursor into f.
func setOption(d *caddyfile.Dispenser, name string, f reflect.Value) error {
	switch f.Kind() {
	case reflect.String:
		s, err := ParseStringOption(d)
		if err != nil {
			return err
		}
		if slices.Contains(placeholderOptions, name) {
			if err := checkPlaceholders(d, name, s); err != nil {
				return err
			}
		}
		f.SetString(s)
	case reflect.Bool:
		on, err := parseOnOff(d, true)
		if err != nil {
			return err
		}
		f.SetBool(on)
	case reflect.Slice:
		args := d.RemainingArgs()
		if len(args) == 0 {
			return missingArg(d)
		}
		if f.Type() == reflect.TypeOf([]providers.EffortStep(nil)) {
			// A budget table, <name>:<max_budget>... <name>: one whole
			// table per option.
			steps, err := providers.ParseEffortSteps(args)
			if err != nil {
				return d.Errf("%s: %v", name, err)
			}
			f.Set(reflect.ValueOf(steps))
			return nil
		}
		if name == "api_keys" {
			// Resolved at load, as api_key is, and named so in errors.
			if err := checkPlaceholders(d, "api_key", args...); err != nil {
				return err
			}
		}
		f.Set(reflect.AppendSlice(f, reflect.ValueOf(args)))
	case reflect.Int:
		var n int64
		if sizeOptions[name] {
			size, err := parseSize(d)
			if err != nil {
				return err
			}
			n = size
		} else {
			s, err := ParseStringOption(d)
			if err != nil {
				return err
			}
			if n, err = strconv.ParseInt(s, 10, 0); err != nil {
				return d.Errf("%s: %q is not a whole number", name, s)
			}
		}
		if n == 0 {
			return d.Errf("%s: 0 is not allowed; leave the option out for its default", name)
		}
		f.SetInt(n)
	case reflect.Int64:
		if f.Type() != reflect.TypeOf(caddy.Duration(0)) {
			return d.Errf("%s: a %s option has no Caddyfile form", name, f.Type())
		}
		s, err := ParseStringOption(d)
		if err != nil {
			return err
		}
		dur, err := caddy.ParseDuration(s)
		if err != nil {
			return d.Errf("%s: %v", name, err)
		}
		if dur <= 0 {
			return d.Errf("%s: must be positive, got %s", name, s)
		}
		f.SetInt(int64(dur))
	default:
		return d.Errf("%s: a %s option has no Caddyfile form", name, f.Type())
	}
	return nil
}

// optionField finds the field of a provider module, or of a struct it
// embeds, whose JSON name is name.
func optionField(v reflect.Value, name string) (reflect.Value, bool) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			if f, ok := optionField(v.Field(i), name); ok {
				return f, true
			}
			continue
		}
		if sf.IsExported() && jsonName(sf) == name {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// keyPoolOptions are the guest's options of a key pool: only a provider
// with an api_key has them.
var keyPoolOptions = map[string]bool{"api_keys": true, "key_selection": true, "key_cooldown_max": true}

// hasOption reports whether a provider module has an option.
func hasOption(module any, name string) bool {
	_, ok := optionField(reflect.Indirect(reflect.ValueOf(module)), name)
	return ok
}

// optionNames lists the options of a provider module: the JSON names of
// its fields and of those of the structs it embeds, in order (the key
// pool's only with an api_key).
func optionNames(module any) []string {
	names := allOptionNames(module)
	if slices.Contains(names, "api_key") {
		return names
	}
	return slices.DeleteFunc(names, func(n string) bool { return keyPoolOptions[n] })
}

func allOptionNames(module any) []string {
	var names []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
				walk(sf.Type)
			} else if name := jsonName(sf); sf.IsExported() && name != "" {
				names = append(names, name)
			}
		}
	}
	walk(reflect.Indirect(reflect.ValueOf(module)).Type())
	return names
}

// jsonName is a field's name in the JSON config, "" for one it has none in.
func jsonName(sf reflect.StructField) string {
	name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	return name
}

// providerGuest is everything a provider module implements; each module's
// file holds its guard.
type providerGuest interface {
	caddy.Module
	caddy.Provisioner
	caddy.Validator
	caddyfile.Unmarshaler
	ProviderModule
}
