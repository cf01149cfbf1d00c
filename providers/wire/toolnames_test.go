package wire

import (
	"strings"
	"testing"
)

func TestToolUseID(t *testing.T) {
	for in, want := range map[string]string{
		"":                 "",
		"call_Ab-9":        "call_Ab-9",
		"call.1:x/é":       "call_1_x___",
		"fc_68a.b 1":       "fc_68a_b_1",
		"toolu_01ABCdef_-": "toolu_01ABCdef_-",
	} {
		if got := ToolUseID([]byte(in)); got != want {
			t.Errorf("ToolUseID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestToolNames(t *testing.T) {
	var names ToolNames
	if got := names.Original([]byte("get_weather")); got != "get_weather" {
		t.Errorf("nil ToolNames maps %q", got)
	}
	if got := names.Shorten("get_weather"); got != "get_weather" || names != nil {
		t.Errorf("a valid name: sent as %q, remembered %v", got, names)
	}
	long := "mcp__" + strings.Repeat("server.v2", 10)
	short := names.Shorten(long)
	if len(short) != maxToolName || !ValidToolName(short) || names.Original([]byte(short)) != long {
		t.Errorf("%q: sent as %q, maps back to %q", long, short, names.Original([]byte(short)))
	}
	if names.Shorten(long+"x") == short {
		t.Error("two long names sent as one")
	}
}
