package openai

import (
	"fmt"
	"strings"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// The parts of a request that the Chat Completions converter here and the
// Responses API's (providers/responses) read the same way. Each names
// itself (provider) in the errors a client gets.

// Unsupported is the invalid_request_error for what the provider cannot
// send upstream, at path in the request.
func Unsupported(provider, path, what string) error {
	return wire.InvalidRequest(fmt.Sprintf("%s: %s is not supported by the %s provider", path, what, provider))
}

// OfferedAsFunction reports whether the client tool t, at index i of tools,
// is offered upstream as a function. Server tools run only on Anthropic's
// side and cannot be offered: an error, except tool_search, left out, since
// its job (making deferred tools available) is done by sending every tool
// in full.
func OfferedAsFunction(i int, t *wire.Tool, provider string) (bool, error) {
	if t.IsCustom() {
		return true, nil
	}
	if strings.HasPrefix(t.Type, "tool_search_tool") {
		return false, nil
	}
	return false, Unsupported(provider, fmt.Sprintf("tools.%d", i), fmt.Sprintf("server tool %q (type %q)", t.Name, t.Type))
}

// ToolChoice maps tool_choice: "auto", "required", "none", or "function"
// for a named tool (tc.Name), with parallel_tool_calls false where the
// client disables parallel tool use (nil: not sent).
func ToolChoice(tc *wire.ToolChoice) (choice string, parallel *bool, err error) {
	if tc.DisableParallelToolUse && tc.Type != "none" {
		f := false
		parallel = &f
	}
	switch tc.Type {
	case "auto", "":
		return "auto", parallel, nil
	case "any":
		return "required", parallel, nil
	case "none":
		return "none", nil, nil
	case "tool":
		return "function", parallel, nil
	}
	return "", nil, wire.InvalidRequest(fmt.Sprintf("tool_choice.type: must be auto, any, tool or none, got %q", tc.Type))
}

// SystemText joins the text blocks of a system prompt or system message
// with newlines, leaving out empty ones: both APIs take it as one string.
func SystemText(c wire.Content, path, provider string) (string, error) {
	var b strings.Builder
	for j, blk := range c.Blocks {
		if blk.Type != "text" {
			return "", Unsupported(provider, fmt.Sprintf("%s.%d", path, j), fmt.Sprintf("content block type %q in a system prompt", blk.Type))
		}
		if blk.Text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(blk.Text)
	}
	return b.String(), nil
}

// UpstreamPath splits the configured path (def where none is) into the
// path and the query of the upstream request.
func UpstreamPath(path, def string) (string, string) {
	if path == "" {
		path = def
	}
	p, query, _ := strings.Cut(path, "?")
	return p, query
}
