package jsonbytes

import (
	"strings"
	"testing"

	"github.com/buger/jsonparser"
)

// TestScannersRefuseControlCharacters: every scanner ends a string by
// StringEnd's rule, so a raw control character in a name or a string value,
// at any depth and however long the string, is malformed JSON, where
// jsonparser lets it through.
func TestScannersRefuseControlCharacters(t *testing.T) {
	long := strings.Repeat("x", 40)
	for _, in := range []string{
		"{\"a\":\"x\ny\"}",
		"{\"a\ttab\":1}",
		"{\"a\":\"" + long + "\x01\"}",
		"{\"a\":\"\\\n\"}",
		"{\"a\":[\"x\ry\"]}",
		"{\"a\":{\"b\":\"" + long + "\x1f\"}}",
	} {
		var keys []string
		err := ScanObject([]byte(in), func(k, _ []byte, _ jsonparser.ValueType, _ int) error {
			keys = append(keys, string(k))
			return nil
		})
		if err == nil || len(keys) != 0 {
			t.Errorf("ScanObject(%q): members %q, err %v; want none and an error", in, keys, err)
		}
		if _, err := ScanObjectAt([]byte(in), 0, func(_ []byte, at int) (int, error) {
			_, _, end, err := SkipValue([]byte(in), at)
			return end, err
		}); err == nil {
			t.Errorf("ScanObjectAt(%q): no error", in)
		}
		if err := jsonparser.ObjectEach([]byte(in), func(_, _ []byte, _ jsonparser.ValueType, _ int) error { return nil }); err != nil && !strings.Contains(in, "\\\n") {
			t.Errorf("jsonparser now refuses %q (%v): the decision documented on ScanObject is moot", in, err)
		}
	}
	if err := ScanArray([]byte("[\"a\",\"b\x00\"]"), func([]byte, jsonparser.ValueType) {}); err == nil {
		t.Error("ScanArray: a raw NUL in a string passed")
	}
	// DEL and bytes of 0x80 and more are not control characters.
	got, err := scanAll([]byte("{\"a\":\"\x7f\xc3\xa9" + long + "\"}"))
	if err != nil || len(got) != 1 || got[0].value != "\x7f\xc3\xa9"+long {
		t.Errorf("DEL and UTF-8: %v %v", got, err)
	}
}
