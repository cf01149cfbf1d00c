package jsonbytes

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkCanonical holds ScanString, AppendCanonical and AppendDecoded on
// the string at data[i] to encoding/json: the same end, the text it
// decodes, escaped as the escaper escapes it.
func checkCanonical(t *testing.T, data []byte, i int) {
	t.Helper()
	end, escaped, canonical := ScanString(data, i)
	got, gotEnd, gotEscaped, replaced := AppendCanonical([]byte("x"), data, i)
	if gotEnd != end || gotEscaped != escaped {
		t.Fatalf("%q at %d: AppendCanonical ends at %d (escaped %v), ScanString at %d (%v)", data, i, gotEnd, gotEscaped, end, escaped)
	}
	wantEnd, text := -1, ""
	if i < len(data) && data[i] == '"' { // the decoder would skip spaces before it
		dec := json.NewDecoder(bytes.NewReader(data[i:]))
		if tok, err := dec.Token(); err == nil {
			if s, ok := tok.(string); ok {
				wantEnd, text = i+int(dec.InputOffset()), s
			}
		}
	}
	if end != wantEnd {
		t.Fatalf("%q at %d: end %d, encoding/json's %d", data, i, end, wantEnd)
	}
	if end < 0 {
		if string(got) != "x" {
			t.Fatalf("%q at %d: not a string, yet %q appended", data, i, got)
		}
		return
	}
	body := data[i+1 : end-1]
	want := AppendStringBodyNoHTML([]byte("x"), []byte(text))
	if !bytes.Equal(got, want) {
		t.Fatalf("%q: got %q, want %q", body, got, want)
	}
	if canonical != bytes.Equal(want[1:], body) {
		t.Fatalf("%q: canonical %v, but the escaper writes %q", body, canonical, want[1:])
	}
	if escaped != bytes.Contains(body, []byte{'\\'}) {
		t.Fatalf("%q: escaped %v", body, escaped)
	}
	// replaced: encoding/json wrote a U+FFFD that is not in the string.
	hasFFFD := strings.ContainsRune(text, utf8.RuneError)
	if replaced && !hasFFFD || !replaced && !utf8.Valid(body) || replaced && utf8.Valid(body) && !bytes.Contains(body, []byte(`\u`)) {
		t.Fatalf("%q: replaced %v for text %q", body, replaced, text)
	}
	if !replaced {
		// What the converters decode themselves is then encoding/json's text.
		if v, err := AppendUnescaped(nil, body); err != nil || string(v) != text {
			t.Fatalf("%q: not replaced, but AppendUnescaped gives %q, %v", body, v, err)
		}
	}
	if v, err := AppendDecoded(nil, body); err != nil || string(v) != text {
		t.Fatalf("AppendDecoded(%q) = %q, %v; want %q", body, v, err, text)
	}
}

// canonicalCases are string bodies.
var canonicalCases = []string{
	``, `plain`, `line\nnext\ttab\r\"quoted\" back\\slash \b \f`, `ctl \u0000 \u001b \u001f \u007f`,
	`sep \u2028 \u2029`, "<b> & é 日本 🙂", `a\/b`, `\u0041\u00e9\u00E9`, `\u001b[0m`, `\u001B`,
	`\u0008\b\f\u000c\u000a`, `\u2028\u2029 ` + "\u2028", "raw \u2028 separator", "a\u2029b",
	`\ud83d\ude00 😀`, `\ud83d`, `\ude00x`, `\ud83dx`, `\ud83d\u0041`, `\ud83d\ud83d\ude00`,
	"h\xffllo", "caf\xc3", "cut \xe2\x80", "bad \xff\xfe utf-8", "\xe2\\n", `\u003c\u003e\u0026<>&`,
	`\x`, `\u12`, "ctl\x01", `\uFFFD` + "\uFFFD", `\`, `\"`, `"`, `—…→ “quotes”`,
	`\/a` + "\u2028", `\/a` + "\xff", `\u00e9b` + "\u2029", `a\/\u0041\n\u0009é\u003c` + "\u2028",
	`0123456789abcdef0123456789abcdef\"0123456789abcdef0123456789abcdef`,
	strings.Repeat(`func main() {\n\tfmt.Println(\"héllo, \\\"wörld\\\"\")\t// 日本語\n}\n`, 20),
	strings.Repeat(`func main() {\n\tfmt.Println(\"héllo, \\\"wörld\\\"\")\t// 日本語\n}\n`, 3) + `\/`,
	strings.Repeat("long ascii run without escapes ", 10) + `\/` + strings.Repeat("é", 40) + "\u2029",
}

func TestCanonical(t *testing.T) {
	for _, c := range canonicalCases {
		checkCanonical(t, []byte(`"`+c+`",`), 0)
		checkCanonical(t, []byte(`"`+c+`"`), 0)
		checkCanonical(t, []byte(`"`+c), 0)
		checkCanonical(t, []byte(` "`+c+`"`), 1)
	}
	for _, s := range []string{``, `x`, `"`, `"abc`, `"a\q"`, `"a\u12"`, "\"a\nb\"", "\"a\x01b\"", `"a\`, "\"a\\\x01\"", `x"a"`} {
		checkCanonical(t, []byte(s), 0)
		if end, _, _ := ScanString([]byte(s), 0); end != -1 {
			t.Errorf("ScanString(%q) = %d, want -1", s, end)
		}
	}
	checkCanonical(t, []byte(`x"a"`), 4)
}

// TestCanonicalValues: exactly what the strings the escaper writes
// otherwise become, and which are used as they are.
func TestCanonicalValues(t *testing.T) {
	for raw, want := range map[string]string{
		`a\/b`:               `a/b`,
		`\u0041\u00e9`:       "Aé",
		`\u001B\u001b`:       `\u001b\u001b`,
		`\u000a\u0008\u0022`: `\n\b\"`,
		"raw \u2028":         `raw \u2028`,
		`\ud83d\ude00`:       "😀",
		`\ud83d!`:            "\uFFFD!",
		"bad \xff\xfe utf-8": "bad \uFFFD\uFFFD utf-8",
	} {
		got, end, _, _ := AppendCanonical(nil, []byte(`"`+raw+`"`), 0)
		if end != len(raw)+2 || string(got) != want {
			t.Errorf("%s: got %q (end %d), want %q", raw, got, end, want)
		}
	}
	// Not a string body (a caller's mistake): the rest as it is, no panic.
	if got, _ := AppendCanonicalBody(nil, []byte(`a\/b\u12`)); string(got) != `a/b\u12` {
		t.Errorf("a malformed body: %q", got)
	}
	for raw, canonical := range map[string]bool{
		`plain`: true, `tab\there \"q\" \u001b \u2028 é`: true, `a\/b`: false, `\u001B`: false,
		`\u000a`: false, "\u2028": false, "h\xffllo": false, `\u0041`: false, `\ud83d`: false,
	} {
		if _, _, got := ScanString([]byte(`"`+raw+`"`), 0); got != canonical {
			t.Errorf("ScanString(%s): canonical %v", raw, got)
		}
	}
}

// FuzzCanonical: for any bytes, ScanString and AppendCanonical agree with
// encoding/json on where a string ends, and write what decoding it with
// encoding/json and escaping the text again writes.
func FuzzCanonical(f *testing.F) {
	for _, c := range canonicalCases {
		f.Add([]byte(`"`+c+`"`), 0)
	}
	f.Fuzz(func(t *testing.T, data []byte, i int) {
		if i < 0 || i > len(data) {
			return
		}
		checkCanonical(t, data, i)
	})
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
