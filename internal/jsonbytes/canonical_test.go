package jsonbytes

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkCanonical compares AppendCanonical on the string body raw with
// decoding it with encoding/json and escaping the text with Encode's
// escaper.
func checkCanonical(t *testing.T, raw []byte) {
	t.Helper()
	data := append(append([]byte{'"'}, raw...), '"', ',')
	data = data[:len(data):len(data)]
	str := data[:len(data)-1] // the JSON string
	got, end, escaped, ok := AppendCanonical([]byte("x"), data, 0)
	if ok {
		// raw may hold a quote: the string ends there.
		str, raw = data[:end], data[1:end-1]
	}
	var text string
	if err := json.Unmarshal(str, &text); err != nil {
		if ok {
			t.Fatalf("%q: ok for a string encoding/json refuses (%v)", raw, err)
		}
		return
	}
	if !ok {
		if utf8.Valid(raw) && !strings.ContainsRune(text, utf8.RuneError) {
			t.Fatalf("%q: not ok for text %q encoding/json decodes faithfully", raw, text)
		}
		return
	}
	want := appendJSONStringNoHTML([]byte("x"), text)
	want = append(want[:1], want[2:len(want)-1]...) // without quotes
	if !bytes.Equal(got, want) {
		t.Fatalf("%q: got %q, want %q", raw, got, want)
	}
	if escaped != bytes.Contains(raw, []byte{'\\'}) {
		t.Fatalf("%q: escaped %v", raw, escaped)
	}
}

var canonicalCases = []string{
	``, `plain`, `tab\there`, `\"quoted\" \\ back`, `a\/b`, `\u0041\u00e9\u00E9`,
	`\u001b[0m`, `\u001B`, `\u0008\b\f\u000c`, `\u2028\u2029 ` + "\u2028", `\ud83d\ude00 😀`,
	`\ud83d`, `\ude00x`, `\ud83dx`, "h\xffllo", "caf\xc3", `\u003c\u003e\u0026<>&`,
	`\x`, `\u12`, "ctl\x01", `\u0000\u007f`, `\uFFFD` + "\uFFFD",
	strings.Repeat(`func main() {\n\tfmt.Println(\"héllo, \\\"wörld\\\"\")\t// 日本語\n}\n`, 20),
	strings.Repeat("long ascii run without escapes ", 10) + `\/` + strings.Repeat("é", 40) + "\u2029",
}

func TestAppendCanonical(t *testing.T) {
	for _, c := range canonicalCases {
		checkCanonical(t, []byte(c))
	}
	// Exact bytes for the escapes the escaper writes differently.
	for raw, want := range map[string]string{
		`a\/b`:         `a/b`,
		`\u0041\u00e9`: "Aé",
		`\u001B\u001b`: `\u001b\u001b`,
		`\u000a\u0022`: `\n\"`,
		"\u2028":       `\u2028`,
		`\ud83d\ude00`: "😀",
	} {
		got, _, _, ok := AppendCanonical(nil, []byte(`"`+raw+`"`), 0)
		if !ok || string(got) != want {
			t.Errorf("%s: got %q (ok %v), want %q", raw, got, ok, want)
		}
	}
	// A closing quote that is the last byte of the data.
	if got, end, _, ok := AppendCanonical(nil, []byte(`"abc"`), 0); !ok || end != 5 || string(got) != "abc" {
		t.Errorf("string at the end of data: %q %d %v", got, end, ok)
	}
	for _, bad := range []string{`"abc`, `"ab\`, `abc"`, `"\u00`} {
		if _, _, _, ok := AppendCanonical(nil, []byte(bad), 0); ok {
			t.Errorf("%s: ok", bad)
		}
	}
}

func FuzzAppendCanonical(f *testing.F) {
	for _, c := range canonicalCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkCanonical(t, raw) })
}

func TestAppendCompact(t *testing.T) {
	for _, v := range []string{
		`{}`, ` { "a" : [ 1 , 2 ] ,"b":"x y \" z\\", "c" : { } } `, "[\n\t1\r\n]", `"s \"  t"`, `{"é": " ü "}`,
	} {
		var want bytes.Buffer
		if err := json.Compact(&want, []byte(v)); err != nil {
			t.Fatal(err)
		}
		if got := AppendCompact(nil, []byte(v)); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: got %s, want %s", v, got, want.Bytes())
		}
	}
}

func FuzzAppendCompact(f *testing.F) {
	f.Add([]byte(` { "a" : [ 1 , 2 ] ,"b":"x y \" z\\" } `))
	f.Fuzz(func(t *testing.T, v []byte) {
		var want bytes.Buffer
		if json.Compact(&want, v) != nil {
			return
		}
		if got := AppendCompact(nil, v); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%q: got %q, want %q", v, got, want.Bytes())
		}
	})
}

// BenchmarkAppendCanonical: a tool's output of source code, an escape
// every few bytes.
func BenchmarkAppendCanonical(b *testing.B) {
	code, _ := json.Marshal(strings.Repeat("func main() {\n\tfmt.Println(\"héllo, \\\"wörld\\\"\")\t// 日本語\n}\n", 80))
	b.SetBytes(int64(len(code)))
	var dst []byte
	for b.Loop() {
		var ok bool
		if dst, _, _, ok = AppendCanonical(dst[:0], code, 0); !ok {
			b.Fatal("not ok")
		}
	}
}

func BenchmarkValidStringCode(b *testing.B) {
	code, _ := json.Marshal(strings.Repeat("func main() {\n\tfmt.Println(\"héllo, \\\"wörld\\\"\")\t// 日本語\n}\n", 80))
	b.SetBytes(int64(len(code)))
	for b.Loop() {
		ValidString(code, 0)
	}
}
