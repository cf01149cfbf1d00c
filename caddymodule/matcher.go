package caddymodule

import (
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

func init() {
	caddy.RegisterModule(MatchMessages{})
}

// MatchMessages matches Anthropic Messages API requests (POST …/messages
// and …/messages/count_tokens) by what their body asks for: the model,
// thinking, an estimate of the input tokens, tools, images, documents,
// streaming. Every condition set must hold; a condition with several
// values holds when one does. A request that is not a Messages call, or
// whose body is not a valid Messages request, matches nothing (the
// thinkgate handler that sees it then answers the 400).
//
// The body is read once within max_request_body and parsed once, however
// many thinkgate matchers look at it; the thinkgate handler that follows
// takes that parse (see ParsedRequest), and the body stays readable for
// every other handler.
type MatchMessages struct {
	// Model globs: the request's model matches one of them. The globs are
	// the handler's model rule patterns: '*' any run of characters ('/'
	// included), '?' one character, '[a-z]' a class.
	Model []string `json:"model,omitempty"`

	// Thinking: thinking is on (true) or off (false) for the request:
	// enabled is on, disabled off, and a request without thinking or with
	// adaptive thinking (left to the model) follows DefaultThinking.
	Thinking *bool `json:"thinking,omitempty"`

	// DefaultThinking decides a request without a thinking field or with
	// adaptive thinking: on unless set to false.
	DefaultThinking *bool `json:"default_thinking,omitempty"`

	// MinInputTokens and MaxInputTokens bound the estimate of the request's
	// input tokens (inclusive); 0 leaves that side open.
	MinInputTokens int64 `json:"min_input_tokens,omitempty"`
	MaxInputTokens int64 `json:"max_input_tokens,omitempty"`

	// Tool globs: one of the request's tools has a type (web_search_20250305)
	// or a name matching one of them.
	Tool []string `json:"tool,omitempty"`

	// Image and Document: the request carries (true) or does not carry
	// (false) an image or a document block in its messages, tool results
	// included.
	Image    *bool `json:"image,omitempty"`
	Document *bool `json:"document,omitempty"`

	// Stream: the request asks for a stream (count_tokens never does).
	Stream *bool `json:"stream,omitempty"`

	// Client globs: the client thinkgate_clients named matches one of
	// them (a request without a named client matches none).
	Client []string `json:"client,omitempty"`

	// MaxRequestBody bounds the read of the body, in bytes. Default 32 MiB,
	// the handler's default. A larger body matches nothing, and the
	// thinkgate handler that sees it answers 413.
	MaxRequestBody int64 `json:"max_request_body,omitempty"`

	// RequestBodyTimeout bounds the time to read the body. Default 30s, the
	// handler's default. A body not received in time matches nothing, and
	// the thinkgate handler that sees it answers 408 and closes the
	// connection; Caddy's own server timeouts need not be set.
	RequestBodyTimeout caddy.Duration `json:"request_body_timeout,omitempty"`

	defaultThinking bool
	server          *caddyhttp.Server // the server the matcher runs in (keyring.go)
}

// CaddyModule returns the Caddy module information.
func (MatchMessages) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.matchers.thinkgate",
		New: func() caddy.Module { return new(MatchMessages) },
	}
}

// Provision sets the defaults.
func (m *MatchMessages) Provision(ctx caddy.Context) error {
	m.server = serverOf(ctx)
	if m.MaxRequestBody == 0 {
		m.MaxRequestBody = defaultMaxRequestBody
	}
	if m.RequestBodyTimeout == 0 {
		m.RequestBodyTimeout = caddy.Duration(defaultRequestBodyTimeout)
	}
	m.defaultThinking = m.DefaultThinking == nil || *m.DefaultThinking
	return nil
}

// Validate checks the globs and bounds.
func (m *MatchMessages) Validate() error {
	for _, g := range m.Model {
		if err := providers.CheckModelGlob(g); err != nil {
			return fmt.Errorf("model: bad pattern %q: %v", g, err)
		}
	}
	for _, g := range m.Tool {
		if err := providers.CheckModelGlob(g); err != nil {
			return fmt.Errorf("tool: bad pattern %q: %v", g, err)
		}
	}
	for _, g := range m.Client {
		if err := providers.CheckModelGlob(g); err != nil {
			return fmt.Errorf("client: bad pattern %q: %v", g, err)
		}
	}
	if m.MinInputTokens < 0 || m.MaxInputTokens < 0 {
		return fmt.Errorf("min_input_tokens, max_input_tokens: must not be negative")
	}
	if m.MaxInputTokens > 0 && m.MinInputTokens > m.MaxInputTokens {
		return fmt.Errorf("min_input_tokens: %d is more than max_input_tokens %d, so nothing would match", m.MinInputTokens, m.MaxInputTokens)
	}
	if m.MaxRequestBody < 0 {
		return fmt.Errorf("max_request_body: must not be negative")
	}
	if m.RequestBodyTimeout < 0 {
		return fmt.Errorf("request_body_timeout: must not be negative")
	}
	return nil
}

// MatchWithError reports whether r is a Messages request meeting every
// condition. It never fails: a body that cannot be read or parsed only
// matches nothing, and its error is the handler's to answer.
func (m *MatchMessages) MatchWithError(r *http.Request) (bool, error) {
	if len(m.Client) > 0 && !m.clientMatches(r) {
		return false, nil // decided before the body is read
	}
	countTokens := strings.HasSuffix(r.URL.Path, "/messages/count_tokens")
	if r.Method != http.MethodPost || !countTokens && !strings.HasSuffix(r.URL.Path, "/messages") || !jsonContent(r.Header) {
		return false, nil
	}
	if unauthenticated(m.server, r) {
		// No thinkgate handler of the server would serve this client: its
		// body is not read, and the handler that gets the request answers
		// the 401.
		return false, nil
	}
	p := parseBody(r, m.MaxRequestBody, time.Duration(m.RequestBodyTimeout))
	req := p.Request
	if req == nil {
		return false, nil
	}
	if len(m.Model) > 0 && !anyGlob(m.Model, req.Model) {
		return false, nil
	}
	if m.Thinking != nil && m.thinkingOn(req.Thinking) != *m.Thinking {
		return false, nil
	}
	if m.Stream != nil && (req.Stream && !countTokens) != *m.Stream {
		return false, nil
	}
	if len(m.Tool) > 0 && !m.hasTool(req.Tools) {
		return false, nil
	}
	if m.Image == nil && m.Document == nil && m.MinInputTokens == 0 && m.MaxInputTokens == 0 {
		return true, nil
	}
	s := p.summary()
	switch {
	case m.Image != nil && s.image != *m.Image,
		m.Document != nil && s.document != *m.Document,
		m.MinInputTokens > 0 && s.inputTokens < m.MinInputTokens,
		m.MaxInputTokens > 0 && s.inputTokens > m.MaxInputTokens:
		return false, nil
	}
	return true, nil
}

func (m *MatchMessages) clientMatches(r *http.Request) bool {
	rc := clientOf(r)
	return rc != nil && anyGlob(m.Client, rc.name)
}

// thinkingOn decides the thinking condition: a request that leaves
// thinking to the model ({"type":"adaptive"}, Claude Code's default)
// counts as one that does not mention it, so default_thinking decides both
// and "thinking on" with "default_thinking off" takes only requests that
// ask for thinking.
func (m *MatchMessages) thinkingOn(t wire.ThinkingParam) bool {
	if t.Present && t.Bool == nil && t.Type == "adaptive" {
		return m.defaultThinking
	}
	return t.Enabled(m.defaultThinking)
}

func (m *MatchMessages) hasTool(tools []wire.Tool) bool {
	for _, t := range tools {
		if t.Type != "" && anyGlob(m.Tool, t.Type) || anyGlob(m.Tool, t.Name) {
			return true
		}
	}
	return false
}

func anyGlob(globs []string, name string) bool {
	for _, g := range globs {
		if _, ok := providers.MatchModel(g, name); ok {
			return true
		}
	}
	return false
}

// jsonContent is the handler's rule for a Messages body's Content-Type:
// absent, application/json or a +json type.
func jsonContent(h http.Header) bool {
	ct := h.Get("Content-Type")
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// matcherOptions are the matcher's Caddyfile subdirectives, listed when
// one is unknown.
var matcherOptions = []string{
	"model", "thinking", "default_thinking", "min_input_tokens", "max_input_tokens",
	"tool", "image", "document", "stream", "client", "max_request_body", "request_body_timeout",
}

// UnmarshalCaddyfile sets up the matcher from Caddyfile tokens. Syntax:
//
//	@name thinkgate [<condition> <args>...] {
//	    model            <glob>...       # the model matches one of the globs
//	    thinking         on|off          # thinking is on / off for the request
//	    default_thinking on|off          # a request without `thinking`, or adaptive, counts as on (default on)
//	    min_input_tokens <n>             # the input-token estimate is at least n
//	    max_input_tokens <n>             # the input-token estimate is at most n
//	    tool             <glob>...       # a tool's type or name matches one of the globs
//	    image            [on|off]        # the messages carry an image block (off: none)
//	    document         [on|off]        # the messages carry a document block (off: none)
//	    stream           on|off          # the request asks for a stream
//	    client           <glob>...       # thinkgate_clients named the client so
//	    max_request_body <size>          # bound of the body's read, default 32MiB
//	    request_body_timeout <duration>  # time to read the body, default 30s
//	}
//
// Every condition given must hold. One condition may stand on the matcher's
// line (@bg thinkgate model claude-haiku-*). model, tool and client may be repeated;
// their globs add up.
func (m *MatchMessages) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	// Several thinkgate matchers under one name merge into one.
	for d.Next() {
		if d.NextArg() {
			if err := m.unmarshalCondition(d); err != nil {
				return err
			}
		}
		for d.NextBlock(0) {
			if err := m.unmarshalCondition(d); err != nil {
				return err
			}
		}
	}
	return nil
}

// unmarshalCondition reads one condition, its name at the cursor.
func (m *MatchMessages) unmarshalCondition(d *caddyfile.Dispenser) error {
	opt := d.Val()
	switch opt {
	case "model", "tool", "client":
		globs := d.RemainingArgs()
		if len(globs) == 0 {
			return missingArg(d)
		}
		for _, g := range globs {
			if err := providers.CheckModelGlob(g); err != nil {
				return d.Errf("%s: bad pattern %q: %v", opt, g, err)
			}
		}
		switch opt {
		case "model":
			m.Model = append(m.Model, globs...)
		case "tool":
			m.Tool = append(m.Tool, globs...)
		default:
			m.Client = append(m.Client, globs...)
		}
	case "thinking", "default_thinking", "stream":
		v, err := parseOnOff(d, false)
		if err != nil {
			return err
		}
		switch opt {
		case "thinking":
			m.Thinking = &v
		case "default_thinking":
			m.DefaultThinking = &v
		default:
			m.Stream = &v
		}
	case "image", "document":
		v, err := parseOnOff(d, true)
		if err != nil {
			return err
		}
		if opt == "image" {
			m.Image = &v
		} else {
			m.Document = &v
		}
	case "min_input_tokens", "max_input_tokens":
		v, err := ParseStringOption(d)
		if err != nil {
			return err
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return d.Errf("%s: %q is not a positive whole number of tokens", opt, v)
		}
		if opt == "min_input_tokens" {
			m.MinInputTokens = n
		} else {
			m.MaxInputTokens = n
		}
	case "max_request_body":
		n, err := parseSize(d)
		if err != nil {
			return err
		}
		if n <= 0 {
			return d.Errf("max_request_body: must be positive")
		}
		m.MaxRequestBody = n
	case "request_body_timeout":
		if !d.NextArg() {
			return d.ArgErr()
		}
		v := d.Val()
		dur, err := caddy.ParseDuration(v)
		if err != nil || dur <= 0 {
			return d.Errf("request_body_timeout: %q is not a positive duration; write e.g. 30s or 2m", v)
		}
		m.RequestBodyTimeout = caddy.Duration(dur)
	default:
		msg := fmt.Sprintf("thinkgate matcher: unknown condition '%s'", opt)
		if c := closest(opt, matcherOptions); c != "" {
			msg += fmt.Sprintf(" (did you mean '%s'?)", c)
		}
		return d.Err(msg + "; the conditions are " + strings.Join(matcherOptions, ", "))
	}
	return nil
}

// Interface guards
var (
	_ caddy.Provisioner                 = (*MatchMessages)(nil)
	_ caddy.Validator                   = (*MatchMessages)(nil)
	_ caddyhttp.RequestMatcherWithError = (*MatchMessages)(nil)
	_ caddyfile.Unmarshaler             = (*MatchMessages)(nil)
)
