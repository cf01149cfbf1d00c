package anthropic

import "testing"

// TestFastTextDelta: the fast path ends the text where JSON does (the
// shared StringEnd rule) and leaves anything else, a raw control character
// among it, to the general path.
func TestFastTextDelta(t *testing.T) {
	const head = `{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"`
	for _, tc := range []struct {
		text string // between the text's quotes
		tail string
		want string
		ok   bool
	}{
		{`plain`, `"}}`, `plain`, true},
		{`say \"hi\"`, `"}}`, `say \"hi\"`, true},
		{`ends in a backslash \\`, `"}}`, `ends in a backslash \\`, true},
		{`a \\\" b`, `"}}`, `a \\\" b`, true},
		{"raw\nnewline", `"}}`, "", false},
		{"escaped raw \\\ttab", `"}}`, "", false},
		{`plain`, `","x":1}}`, "", false},
		{`no end \"`, ``, "", false},
	} {
		raw, ok := fastTextDelta([]byte(head + tc.text + tc.tail))
		if ok != tc.ok || string(raw) != tc.want {
			t.Errorf("%q%q: got %q %v, want %q %v", tc.text, tc.tail, raw, ok, tc.want, tc.ok)
		}
	}
}
