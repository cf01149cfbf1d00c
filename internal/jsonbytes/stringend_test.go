package jsonbytes

import (
	"strings"
	"testing"
)

func TestStringEnd(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{`"`, 0},
		{`abc"}}`, 3},
		{`exactly 8"`, 9},
		{`a longer string of plain text"rest`, 29},
		{`esc \" quote"`, 12},
		{`esc \\" backslash`, 6},
		{`\\\\\"x"`, 7},
		{`café 你好 🎯"`, 17},
		{`no end`, -1},
		{`ends in backslash \`, -1},
		{`ends in escaped quote \"`, -1},
		{"control \x01 char\"", -1},
		{"raw newline \n\"", -1},
		{"escaped newline \\\n\"", -1},
		{"long text before the raw return, past one word \r\"", -1},
		{"\x7f\x80\xff are not control\"", 19},
	} {
		// Also after 40 bytes of text, so that the vector scanner takes
		// it, and with the portable loop.
		pad := strings.Repeat("text ", 8)
		padWant := tc.want
		if padWant >= 0 {
			padWant += len(pad)
		}
		forEachScanner(t, func(scanner string) {
			if got, _ := StringEnd([]byte(tc.in)); got != tc.want {
				t.Errorf("%s: StringEnd(%q) = %d, want %d", scanner, tc.in, got, tc.want)
			}
			if got, _ := StringEnd([]byte(pad + tc.in)); got != padWant {
				t.Errorf("%s: StringEnd(%q) = %d, want %d", scanner, pad+tc.in, got, padWant)
			}
		})
	}
}

// forEachScanner runs fn with the vector scanner, where the machine has
// one, and with the portable loops.
func forEachScanner(t testing.TB, fn func(scanner string)) {
	t.Helper()
	saved := useAVX2
	defer func() { useAVX2 = saved }()
	if saved {
		fn("avx2")
	}
	useAVX2 = false
	fn("portable")
}

// TestStringEndAfter: the head must match whole, and the end is counted
// from p's start; heads of 32 bytes and more take the vector scanner's
// one-pass compare.
func TestStringEndAfter(t *testing.T) {
	for _, head := range []string{`{"t":"`, `event: d` + "\n" + `data: {"choices":[{"delta":{"content":"`} {
		text := strings.Repeat("plain text, ", 4)
		forEachScanner(t, func(scanner string) {
			for _, tc := range []struct {
				p       string
				end     int
				escaped bool
			}{
				{head + text + `"}`, len(head) + len(text), false},
				{head + `a\"b"}` + text, len(head) + 4, true},
				{head + text, -1, false},
				{head + "a\x01\"", -1, false},
				{"x" + head[1:] + text + `"}`, -1, false},
				{head[:len(head)-1], -1, false},
			} {
				end, escaped := StringEndAfter([]byte(tc.p), []byte(head))
				if end != tc.end || escaped != tc.escaped {
					t.Errorf("%s: StringEndAfter(%q, %q) = %d, %v; want %d, %v", scanner, tc.p, head, end, escaped, tc.end, tc.escaped)
				}
			}
		})
	}
}
