package jsonbytes

import (
	"bytes"
	"strings"
	"testing"
)

// checkVerbatim holds AppendVerbatim to AppendCanonical on data at i.
func checkVerbatim(t *testing.T, data []byte, i int) {
	t.Helper()
	got, gotEnd, gotEsc, gotOK := AppendVerbatim([]byte("x"), data, i)
	want, wantEnd, wantEsc, wantOK := AppendCanonical([]byte("x"), data, i)
	if gotOK != wantOK {
		t.Fatalf("%q at %d: ok %v, AppendCanonical's %v", data, i, gotOK, wantOK)
	}
	if !wantOK {
		return // dst is partly appended: the caller decodes the string another way
	}
	if !bytes.Equal(got, want) || gotEnd != wantEnd || gotEsc != wantEsc {
		t.Fatalf("%q at %d: got %q %d %v, AppendCanonical's %q %d %v", data, i, got, gotEnd, gotEsc, want, wantEnd, wantEsc)
	}
}

func TestAppendVerbatim(t *testing.T) {
	code := strings.Repeat(`func main() {\n\tfmt.Println(\"héllo, \\\"wörld\\\"\")\t// 日本語\n}\n`, 3)
	for _, s := range []string{
		`""`, `"plain"`, `"` + code + `"`, `"a\/b"`, `"\u0041"`, `"\u001f\u001b\u0000\u007f"`, `"\u001F"`,
		`"\u000a"`, `"\u0008"`, `"\u2028\u2029"`, "\"\u2028\"", "\"a\u2029b\"", `"\ud83d\ude00"`, `"\ud800"`,
		"\"\xff\"", "\"é\xc3\"", `"\x"`, `"\u12"`, `"unterminated`, `"a` + "\n" + `b"`, `"\"`, `"` + code + `\/"`,
		`"—…→ “quotes”"`, `"\/a` + "\u2028" + `"`, `"\/a` + "\xff" + `"`, `"\u00e9b` + "\u2029" + `"`, `"a\/\u0041\n\u0009é\u003c` + "\u2028" + `"`, `"0123456789abcdef0123456789abcdef\"0123456789abcdef0123456789abcdef"`,
	} {
		checkVerbatim(t, []byte(s+","), 0)
		checkVerbatim(t, []byte(s), 0)
	}
	checkVerbatim(t, []byte(`x"a"`), 0)
	checkVerbatim(t, []byte(`x"a"`), 1)
	checkVerbatim(t, []byte(`x"a"`), 4)
}

func FuzzAppendVerbatim(f *testing.F) {
	for _, s := range []string{`"a\nb"`, `"\u00e9\/"`, "\"\u2028\"", `"\u001b[0m"`, "\"é\\\"\\t\""} {
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, data []byte, i int) {
		if i < 0 || i > len(data) {
			return
		}
		checkVerbatim(t, data, i)
	})
}
