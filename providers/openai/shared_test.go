package openai

import (
	"fmt"
	"testing"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// TestSharedRequestParts: the parts both OpenAI-shaped converters read the
// same way, with the error each names itself in.
func TestSharedRequestParts(t *testing.T) {
	f := false
	for _, tc := range []struct {
		in       wire.ToolChoice
		choice   string
		parallel *bool
		err      string
	}{
		{wire.ToolChoice{}, "auto", nil, ""},
		{wire.ToolChoice{Type: "any", DisableParallelToolUse: true}, "required", &f, ""},
		{wire.ToolChoice{Type: "none", DisableParallelToolUse: true}, "none", nil, ""},
		{wire.ToolChoice{Type: "tool", Name: "get_weather"}, "function", nil, ""},
		{wire.ToolChoice{Type: "some"}, "", nil, `invalid_request_error: tool_choice.type: must be auto, any, tool or none, got "some"`},
	} {
		choice, parallel, err := ToolChoice(&tc.in)
		if choice != tc.choice || fmt.Sprint(parallel != nil && !*parallel) != fmt.Sprint(tc.parallel != nil) || fmt.Sprint(err) != fmt.Sprint(errOrNil(tc.err)) {
			t.Errorf("%+v: got %q %v %v", tc.in, choice, parallel, err)
		}
	}

	tools := []wire.Tool{{Name: "get_weather"}, {Type: "tool_search_tool_regex_20251119", Name: "tool_search"}, {Type: "web_search_20250305", Name: "web_search"}}
	for i, want := range []string{"true <nil>", "false <nil>", `false invalid_request_error: tools.2: server tool "web_search" (type "web_search_20250305") is not supported by the responses provider`} {
		offered, err := OfferedAsFunction(i, &tools[i], "responses")
		if got := fmt.Sprint(offered, " ", err); got != want {
			t.Errorf("tool %d: got %s, want %s", i, got, want)
		}
	}

	sys := wire.Content{Blocks: []wire.Block{{Type: "text", Text: "one"}, {Type: "text"}, {Type: "text", Text: "two"}}}
	if got, err := SystemText(sys, "system", "openai"); got != "one\ntwo" || err != nil {
		t.Errorf("SystemText: %q %v", got, err)
	}
	sys.Blocks = append(sys.Blocks, wire.Block{Type: "image"})
	if _, err := SystemText(sys, "messages.2.content", "openai"); fmt.Sprint(err) != `invalid_request_error: messages.2.content.3: content block type "image" in a system prompt is not supported by the openai provider` {
		t.Errorf("SystemText with an image: %v", err)
	}
}

func TestUpstreamPath(t *testing.T) {
	for _, tc := range [][3]string{
		{"", "/v1/chat/completions", ""},
		{"/api/v1/chat/completions", "/api/v1/chat/completions", ""},
		{"/openai/v1/chat/completions?api-version=preview&x=1", "/openai/v1/chat/completions", "api-version=preview&x=1"},
	} {
		if path, query := UpstreamPath(tc[0], DefaultPath); path != tc[1] || query != tc[2] {
			t.Errorf("%q: got %q %q, want %q %q", tc[0], path, query, tc[1], tc[2])
		}
	}
}

func errOrNil(msg string) any {
	if msg == "" {
		return nil
	}
	return msg
}
