package wire

import (
	"encoding/json"
	"testing"
	"unsafe"
)

// within reports whether sub lies inside body's memory.
func within(body, sub []byte) bool {
	if len(sub) == 0 {
		return false
	}
	b, s := uintptr(unsafe.Pointer(&body[0])), uintptr(unsafe.Pointer(&sub[0]))
	return s >= b && s+uintptr(len(sub)) <= b+uintptr(len(body))
}

// TestParseRequestFields: the top-level fields are the raw values as sent
// (strings with their quotes, escaped names decoded, the last of a repeated
// name), and they and every block's and tool's Raw are sub-slices of the
// body rather than copies.
func TestParseRequestFields(t *testing.T) {
	body := []byte(`{"mod\u0065l":"a \"b\"","max_tokens":5,"max_tokens":7,"stream":false,"metadata":null,` +
		`"system":[{"type":"text","text":"s"}],"messages":[{"role":"user","content":[{"type":"text","text":"<q>"}]}],` +
		`"tools":[{"name":"t","input_schema":{"type":"object"}}],"extra":{"k":[1, 2]}}`)
	r, err := ParseRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"model": `"a \"b\""`, "max_tokens": `7`, "stream": `false`, "metadata": `null`,
		"system": `[{"type":"text","text":"s"}]`, "messages": `[{"role":"user","content":[{"type":"text","text":"<q>"}]}]`,
		"tools": `[{"name":"t","input_schema":{"type":"object"}}]`, "extra": `{"k":[1, 2]}`,
	}
	if len(r.Fields) != len(want) {
		t.Errorf("%d fields, want %d: %q", len(r.Fields), len(want), r.Fields)
	}
	for k, v := range want {
		if got := string(r.Fields[k]); got != v {
			t.Errorf("field %s = %s, want %s", k, got, v)
		}
		if !within(body, r.Fields[k]) {
			t.Errorf("field %s is a copy", k)
		}
	}
	if r.Model != `a "b"` || r.MaxTokens != 7 {
		t.Errorf("model %q max_tokens %d", r.Model, r.MaxTokens)
	}
	blk := r.Messages[0].Content.Blocks[0]
	if string(blk.Raw) != `{"type":"text","text":"<q>"}` || !within(body, blk.Raw) {
		t.Errorf("block raw %s (in the body: %v)", blk.Raw, within(body, blk.Raw))
	}
	if sys := r.System.Blocks[0]; !within(body, sys.Raw) {
		t.Errorf("system block raw is a copy")
	}
	if tool := r.Tools[0]; string(tool.Raw) != `{"name":"t","input_schema":{"type":"object"}}` || !within(body, tool.Raw) {
		t.Errorf("tool raw %s (in the body: %v)", tool.Raw, within(body, tool.Raw))
	}
	// The passthrough body is what it was before fields were sub-slices.
	if got, err := r.MarshalFields(); err != nil || string(got) != `{"extra":{"k":[1,2]},"max_tokens":7,"messages":[{"role":"user","content":[{"type":"text","text":"\u003cq\u003e"}]}],"metadata":null,"model":"a \"b\"","stream":false,"system":[{"type":"text","text":"s"}],"tools":[{"name":"t","input_schema":{"type":"object"}}]}` {
		t.Errorf("MarshalFields = %s, %v", got, err)
	}
}

// TestParseRequestFieldNames: names are decoded as encoding/json decodes
// them, also where jsonparser would not (invalid UTF-8, lone surrogates).
func TestParseRequestFieldNames(t *testing.T) {
	for _, body := range []string{
		`{"messages":[],"a\u00e9\n":1}`,
		"{\"messages\":[],\"a\xffb\":1}",
		`{"messages":[],"x\ud800":1,"y\udc00z":2}`,
	} {
		r, err := ParseRequest([]byte(body))
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		var want map[string]json.RawMessage
		_ = json.Unmarshal([]byte(body), &want)
		if len(r.Fields) != len(want) {
			t.Errorf("%q: fields %q, want %q", body, r.Fields, want)
		}
		for k, v := range want {
			if string(r.Fields[k]) != string(v) {
				t.Errorf("%q: field %q = %s, want %s", body, k, r.Fields[k], v)
			}
		}
	}
}
