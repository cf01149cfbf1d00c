package jsonbytes

import (
	"encoding/json"
	"testing"
)

// reescapeCases are string bodies, each with whether it is canonical.
var reescapeCases = []struct {
	raw       string
	canonical bool
}{
	{``, true},
	{`plain text`, true},
	{`line\nnext\ttab\r\"quoted\" back\\slash \b \f`, true},
	{`ctl \u0000 \u001b \u001f`, true},
	{`sep \u2028 \u2029`, true},
	{"<b> & é 日本 🙂", true},
	{`a\/b`, false},         // the escaper writes '/' as it is
	{`\u0041`, false},       // a printable character escaped
	{`\u001B`, false},       // upper-case hex
	{`\u000a`, false},       // written \n
	{`\u0008`, false},       // written \b
	{`\u00e9`, false},       // é escaped
	{`\ud83d\ude42`, false}, // a surrogate pair
	{`\ud83d`, false},       // a lone surrogate: U+FFFD
	{"raw \u2028 separator", false},
	{"bad \xff utf-8", false},
	{"cut \xe2\x80", false},
}

func TestCanonicalString(t *testing.T) {
	for _, c := range reescapeCases {
		if got := CanonicalString([]byte(c.raw)); got != c.canonical {
			t.Errorf("CanonicalString(%q) = %v, want %v", c.raw, got, c.canonical)
		}
		checkReescaped(t, []byte(c.raw))
	}
}

// TestAppendReescapedValues: what non-canonical bodies become.
func TestAppendReescapedValues(t *testing.T) {
	for raw, want := range map[string]string{
		`a\/b`:               `a/b`,
		`\u0041\u00e9`:       "Aé",
		`\u001B`:             `\u001b`,
		`\u000a\u0008`:       `\n\b`,
		`\ud83d\ude42`:       "🙂",
		`\ud83d!`:            "\uFFFD!",
		"raw \u2028":         `raw \u2028`,
		"bad \xff\xfe utf-8": "bad \uFFFD\uFFFD utf-8",
	} {
		got, _, err := AppendReescaped([]byte("x"), []byte(raw), nil)
		if err != nil || string(got) != "x"+want {
			t.Errorf("AppendReescaped(%q) = %q, %v; want %q", raw, got, err, "x"+want)
		}
	}
	if _, _, err := AppendReescaped(nil, []byte(`bad \q`), nil); err != ErrBadEscape {
		t.Errorf("a bad escape: %v, want ErrBadEscape", err)
	}
}

// TestScanStringInvalid: what is not a JSON string has no end.
func TestScanStringInvalid(t *testing.T) {
	for _, s := range []string{``, `x`, `"`, `"abc`, `"a\q"`, `"a\u12"`, "\"a\nb", "\"a\x01b\"", `"a\`} {
		if end, _ := ScanString([]byte(s), 0); end != -1 {
			t.Errorf("ScanString(%q) = %d, want -1", s, end)
		}
	}
}

// checkReescaped compares AppendReescaped with encoding/json's decoding
// and the escaper, and CanonicalString with whether they leave raw as it is.
func checkReescaped(t *testing.T, raw []byte) {
	t.Helper()
	quoted := append(append([]byte{'"'}, raw...), '"')
	if !json.Valid(quoted) {
		return
	}
	var v string
	if err := json.Unmarshal(quoted, &v); err != nil {
		t.Fatalf("Unmarshal %q: %v", quoted, err)
	}
	want := AppendStringBodyNoHTML(nil, []byte(v))
	got, _, err := AppendReescaped(nil, raw, nil)
	if err != nil || string(got) != string(want) {
		t.Fatalf("AppendReescaped(%q) = %q, %v; want %q", raw, got, err, want)
	}
	if CanonicalString(raw) != (string(want) == string(raw)) {
		t.Fatalf("CanonicalString(%q) = %v, but the escaper writes %q", raw, CanonicalString(raw), want)
	}
	end, canonical := ScanString(quoted, 0)
	if end != len(quoted) || canonical != CanonicalString(raw) {
		t.Fatalf("ScanString(%q) = %d, %v; want %d, %v", quoted, end, canonical, len(quoted), CanonicalString(raw))
	}
	dec, err := AppendDecoded(nil, raw)
	if err != nil || string(dec) != v {
		t.Fatalf("AppendDecoded(%q) = %q, %v; want %q", raw, dec, err, v)
	}
}

// FuzzReescaped: for any string body JSON accepts, AppendReescaped writes
// what decoding with encoding/json and escaping again writes, and
// CanonicalString says exactly when that is the body itself.
func FuzzReescaped(f *testing.F) {
	for _, c := range reescapeCases {
		f.Add([]byte(c.raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkReescaped(t, raw) })
}
