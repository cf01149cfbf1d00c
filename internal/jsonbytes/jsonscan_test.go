package jsonbytes

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/buger/jsonparser"
)

type member struct {
	key, value string
	typ        jsonparser.ValueType
}

func scanAll(data []byte) ([]member, error) {
	var out []member
	err := ScanObject(data, func(k, v []byte, typ jsonparser.ValueType, _ int) error {
		out = append(out, member{string(k), string(v), typ})
		return nil
	})
	return out, err
}

func TestScanObject(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []member
		err  bool
	}{
		{`{}`, nil, false},
		{` { } `, nil, false},
		{`{"a":1,"b":"x\"y\\","c":{"d":[1,"]}",{"e":null}]},"f":[],"g":true,"h":false,"i":null,"j":-1.5e+3}`, []member{
			{"a", "1", jsonparser.Number}, {"b", `x\"y\\`, jsonparser.String},
			{"c", `{"d":[1,"]}",{"e":null}]}`, jsonparser.Object}, {"f", "[]", jsonparser.Array},
			{"g", "true", jsonparser.Boolean}, {"h", "false", jsonparser.Boolean}, {"i", "null", jsonparser.Null},
			{"j", "-1.5e+3", jsonparser.Number},
		}, false},
		{"{\n \"k\\\"ey\" :\t\"v\" }", []member{{`k\"ey`, "v", jsonparser.String}}, false},
		{`{"a":"\\\\"}`, []member{{"a", `\\\\`, jsonparser.String}}, false},
		{`[1]`, nil, true},
		{`{"a"}`, nil, true},
		{`{"a":1`, []member{{"a", "1", jsonparser.Number}}, true},
		{`{"a":"unterminated}`, nil, true},
		{`{"a":{"b":1}`, []member{{"a", `{"b":1}`, jsonparser.Object}}, true},
		{`{"a":tru}`, nil, true},
		{`{"a":1 "b":2}`, []member{{"a", "1", jsonparser.Number}}, true},
	} {
		got, err := scanAll([]byte(c.in))
		if (err != nil) != c.err || fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: got %v %v, want %v err=%v", c.in, got, err, c.want, c.err)
		}
	}
}

// FuzzScanObject: on valid JSON objects ScanObject agrees with jsonparser.
func FuzzScanObject(f *testing.F) {
	f.Add(`{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"a\"b"},"finish_reason":null}],"usage":null}`)
	f.Add(`{"a":[{"b":"]"}],"c":-0.5}`)
	f.Fuzz(func(t *testing.T, s string) {
		var v map[string]any
		if json.Unmarshal([]byte(s), &v) != nil || !strings.HasPrefix(strings.TrimSpace(s), "{") {
			_, _ = scanAll([]byte(s)) // must not panic
			return
		}
		got, err := scanAll([]byte(s))
		if err != nil {
			t.Fatalf("valid JSON rejected: %v", err)
		}
		var want []member
		_ = jsonparser.ObjectEach([]byte(s), func(k, v []byte, typ jsonparser.ValueType, _ int) error {
			want = append(want, member{string(k), string(v), typ})
			return nil
		})
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("got %v\nwant %v", got, want)
		}
	})
}

func BenchmarkScanObject(b *testing.B) {
	chunk := []byte(`{"id":"chatcmpl-9f8a7b6c5d4e3f2a1b0c","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4.1-2025-04-14","system_fingerprint":"fp_abc123","choices":[{"index":0,"delta":{"content":" the model reasons"},"logprobs":null,"finish_reason":null}],"usage":null}`)
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	n := 0
	fn := func(k, v []byte, typ jsonparser.ValueType, _ int) error { n++; return nil }
	b.Run("ScanObject", func(b *testing.B) {
		b.SetBytes(int64(len(chunk)))
		for b.Loop() {
			_ = ScanObject(chunk, fn)
		}
	})
	b.Run("jsonparser", func(b *testing.B) {
		b.SetBytes(int64(len(chunk)))
		for b.Loop() {
			_ = jsonparser.ObjectEach(chunk, fn)
		}
	})
}
