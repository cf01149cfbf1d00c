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

// TestPlainNameAllocates: a name in another case is lowered without an
// allocation (a scan meets one on every block of a long history), and a
// name longer than the buffer is still matched.
func TestPlainNameAllocates(t *testing.T) {
	fields := map[string]int{"type": 1, "a_field_name_longer_than_32_bytes_": 2}
	name := []byte("TYPE")
	if n := testing.AllocsPerRun(100, func() { PlainName(name, fields) }); n != 0 {
		t.Errorf("PlainName(%q) allocates %v times, want none", name, n)
	}
	if PlainName([]byte("A_FIELD_NAME_LONGER_THAN_32_BYTES_"), fields) {
		t.Errorf("a long name in another case: PlainName true, want false")
	}
}
