package jsonbytes

import "testing"

// FuzzAppendCompactStringBody: escaping v's stretches one by one writes
// what escaping AppendCompact's text of v writes.
func FuzzAppendCompactStringBody(f *testing.F) {
	for _, s := range []string{`{}`, `{ "a" : [1, 2, "x y\/"] , "b":"\u00e9" }`, "[\"\u2028\", \"\xff\" ,\n\t\"<&>\"]", `"q \" \\ "`, `[ "" , "" ]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if !Valid(v) {
			return
		}
		want := AppendStringBodyNoHTML(nil, AppendCompact(nil, v))
		if got := AppendCompactStringBody(nil, v); string(got) != string(want) {
			t.Fatalf("%q: got %q, want %q", v, got, want)
		}
	})
}
