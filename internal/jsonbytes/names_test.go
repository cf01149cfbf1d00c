package jsonbytes

import "testing"

func TestPlainName(t *testing.T) {
	fields := map[string]int{"type": 1, "tool_use_id": 2}
	for name, want := range map[string]bool{
		"type":        true,  // a field, exactly
		"other":       true,  // no field
		"Other":       true,  // no field in any case
		"Type":        false, // encoding/json would match it to type
		"TOOL_USE_ID": false,
		`ty\u0070e`:   false, // an escape
		"typé":        false, // not ASCII
	} {
		if got := PlainName([]byte(name), fields); got != want {
			t.Errorf("PlainName(%q) = %v, want %v", name, got, want)
		}
	}
}
