package caddymodule

import (
	"fmt"
	"sort"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types/ref"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// CELLibrary makes the matcher a function of Caddy's expression matcher:
// thinkgate({'model': ['claude-haiku-*'], 'stream': 'off'}). Each key is a
// condition and its value the condition's arguments, as in the Caddyfile
// (CEL takes only strings and lists of strings here).
func (MatchMessages) CELLibrary(ctx caddy.Context) (cel.Library, error) {
	return caddyhttp.CELMatcherImpl(
		"thinkgate",
		"thinkgate_matcher_request_map",
		[]*cel.Type{caddyhttp.CELTypeJSON},
		func(data ref.Val) (caddyhttp.RequestMatcherWithError, error) {
			conditions, err := caddyhttp.CELValueToMapStrList(data)
			if err != nil {
				return nil, fmt.Errorf("thinkgate matcher: %v", err)
			}
			m := new(MatchMessages)
			if err := m.UnmarshalCaddyfile(caddyfile.NewDispenser(conditionTokens(conditions))); err != nil {
				return nil, err
			}
			if err := m.Provision(ctx); err != nil {
				return nil, err
			}
			return m, m.Validate()
		},
	)
}

// conditionTokens writes conditions as the matcher's Caddyfile block, one
// condition a line, in name order.
func conditionTokens(conditions map[string][]string) []caddyfile.Token {
	names := make([]string, 0, len(conditions))
	for n := range conditions {
		names = append(names, n)
	}
	sort.Strings(names)
	tokens := []caddyfile.Token{{Text: "thinkgate", Line: 1}, {Text: "{", Line: 1}}
	line := 1
	for _, n := range names {
		line++
		tokens = append(tokens, caddyfile.Token{Text: n, Line: line})
		for _, arg := range conditions[n] {
			tokens = append(tokens, caddyfile.Token{Text: arg, Line: line})
		}
	}
	return append(tokens, caddyfile.Token{Text: "}", Line: line + 1})
}

var _ caddyhttp.CELLibraryProducer = (*MatchMessages)(nil)
