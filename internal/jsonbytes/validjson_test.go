package jsonbytes

import (
	"encoding/json"
	"strings"
	"testing"
)

var validSeeds = []string{
	`{}`, `[]`, ` {"a" : [1, -0.5e+3, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9"]} `, `"s"`, `0`, `-`, `01`, `1.`, `1e`,
	`{"a":}`, `{"a" 1}`, `{,}`, `[1,]`, `[1 2]`, `{"a":1,}`, `"\x"`, `"\u12g4"`, "\"a\x01\"", `"abc`, `tru`, `nul`, `{"a":1}x`,
	`{"a":[}`, `[{]`, "\"\xff\xfe\"", `"` + strings.Repeat("a", 100) + `\"` + strings.Repeat("b", 40) + `"`,
	strings.Repeat("[", 9001) + strings.Repeat("]", 9001), "\"a\x7f\"", `{"a":1 }`, `[ ]`, `{ }`, "",
}

// TestValidJSONMatchesEncodingJSON: Valid accepts what json.Valid
// accepts and nothing else (but for nesting past its own limit).
func TestValidJSONMatchesEncodingJSON(t *testing.T) {
	for _, s := range validSeeds {
		checkValid(t, []byte(s))
	}
	if Valid([]byte(strings.Repeat("[", 9001) + strings.Repeat("]", 9001))) {
		t.Error("nesting past MaxDepth accepted")
	}
}

func checkValid(t *testing.T, data []byte) {
	got, want := Valid(data), json.Valid(data)
	if got && !want {
		t.Fatalf("Valid accepts %q, json.Valid does not", data)
	}
	if !got && want && !strings.Contains(string(data), strings.Repeat("[", MaxDepth)) {
		t.Fatalf("Valid rejects %q, json.Valid accepts it", data)
	}
}

// FuzzValidJSON: Valid and json.Valid agree.
func FuzzValidJSON(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkValid)
}
