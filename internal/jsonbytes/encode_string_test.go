package jsonbytes

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// encoderString is s as a json.Encoder with HTML escaping off writes it.
func encoderString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

var encodeStringSeeds = []string{
	"", "plain", "a <b> & \"q\" \\ \n\r\t\b\f\x00\x1f\x7f", "\u2028\u2029 é 日本語 😀",
	"bad \xff\xfe utf-8 \xe2\x80", strings.Repeat("long run of text before a quote ", 4) + "\"" + strings.Repeat("é", 40) + "\xc3",
}

// TestAppendJSONStringNoHTML: strings are written as json.Encoder writes
// them with HTML escaping off.
func TestAppendJSONStringNoHTML(t *testing.T) {
	for _, s := range encodeStringSeeds {
		if got, want := string(AppendStringNoHTML(nil, s)), encoderString(s); got != want {
			t.Errorf("%q:\n got  %s\n want %s", s, got, want)
		}
	}
}

// FuzzAppendJSONStringNoHTML: any string is written as json.Encoder writes it.
func FuzzAppendJSONStringNoHTML(f *testing.F) {
	for _, s := range encodeStringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(AppendStringNoHTML(nil, s)), encoderString(s); got != want {
			t.Fatalf("%q:\n got  %s\n want %s", s, got, want)
		}
	})
}
