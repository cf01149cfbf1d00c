package jsonbytes

import (
	"encoding/json"
	"strings"
	"testing"
)

var jsonStringCases = []string{
	"",
	"plain ascii",
	`quote " and backslash \`,
	"line\nfeed\rreturn\ttab",
	"\b\f", // encoding/json writes \b and \f
	"\x00\x01\x1f\x7f",
	"<tag> & </tag>",
	"\u2028 and \u2029",
	"\u2027\u202a",
	"é 日本語 🎉",
	"\uFFFD is valid",
	"\xff bad start",
	"truncated \xe6\x97",
	"\xe6\x97\xa5\xe6", // a whole rune, then a cut one
	"surrogate half \xed\xa0\x80",
	"overlong \xc0\xaf",
	"\xf4\x90\x80\x80 beyond U+10FFFF",
	"\xe2\x80\xa8\xe2\x80",
	strings.Repeat("long text with <html> & \"quotes\"\n", 50),
}

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	forEachScanner(t, func(scanner string) {
		for _, s := range jsonStringCases {
			// Each case alone and inside longer text, so that the vector
			// scanner meets it at the start, the middle and the tail of a
			// 32-byte chunk.
			for _, pad := range []int{0, 5, 31, 32, 45} {
				checkJSONString(t, scanner, strings.Repeat("x", pad)+s+strings.Repeat("y", 45-pad))
			}
		}
	})
}

// TestAppendJSONStringEveryPosition puts each kind of character the
// escaper treats apart at every position of ASCII text of 32 to 80 bytes.
func TestAppendJSONStringEveryPosition(t *testing.T) {
	forEachScanner(t, func(scanner string) {
		for _, c := range []string{"\"", "\\", "\n", "\x01", "<", ">", "&", "é", "日", "🎯", "\u2028", "\xff", "\xe6\x97", "\xed\xa0\x80"} {
			for n := 32; n <= 80; n++ {
				for pos := 0; pos <= n; pos++ {
					base := strings.Repeat("a", n)
					checkJSONString(t, scanner, base[:pos]+c+base[pos:])
				}
			}
		}
	})
}

func checkJSONString(t *testing.T, scanner, s string) {
	t.Helper()
	want, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := AppendString(nil, s); string(got) != string(want) {
		t.Fatalf("%s: string %q:\n got %s\nwant %s", scanner, s, got, want)
	}
	if got := AppendString([]byte("x"), []byte(s)); string(got) != "x"+string(want) {
		t.Fatalf("%s: []byte %q:\n got %s\nwant x%s", scanner, s, got, want)
	}
}

func TestAppendJSONStringAllocs(t *testing.T) {
	dst := make([]byte, 0, 64<<10)
	for _, s := range jsonStringCases {
		b := []byte(s)
		if a := testing.AllocsPerRun(20, func() { dst = AppendString(dst[:0], s) }); a != 0 {
			t.Errorf("string %q: %v allocs", s, a)
		}
		if a := testing.AllocsPerRun(20, func() { dst = AppendString(dst[:0], b) }); a != 0 {
			t.Errorf("[]byte %q: %v allocs", s, a)
		}
	}
}

func TestAppendJSONInt(t *testing.T) {
	if got := string(AppendJSONInt([]byte("n="), -9223372036854775808)); got != "n=-9223372036854775808" {
		t.Errorf("got %s", got)
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonStringCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		forEachScanner(t, func(scanner string) {
			checkJSONString(t, scanner, s)
			checkJSONString(t, scanner, strings.Repeat("x", 33)+s)
		})
	})
}

// BenchmarkAppendJSONString: the escaper on short strings with every kind
// of character, on a delta and on 4 KiB of answer text as the end-to-end
// benchmark's model writes them (about one non-ASCII word in six), and on
// plain ASCII.
func BenchmarkAppendJSONString(b *testing.B) {
	words := strings.Fields("the model reasons about a question and writes an answer with code, numbers 42 and 3.14, café 你好 🎯")
	var long strings.Builder
	for i := 0; long.Len() < 4096; i++ {
		long.WriteString(words[(i*7)%len(words)] + " ")
	}
	for _, tc := range []struct{ name, s string }{
		{"mixed", "The model said: \"x < y && y > z\".\nNext line with ünïcödé and a tab\t."},
		{"delta", "writes an answer with code, café and 你好 then numbers 42 and 3.14 so 🎯 the model reasons"},
		{"long", long.String()},
		{"ascii", "the model reasons about a question and writes an answer with code"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := []byte(tc.s)
			dst := make([]byte, 0, 2*len(s))
			b.ReportAllocs()
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				dst = AppendString(dst[:0], s)
			}
		})
	}
}
