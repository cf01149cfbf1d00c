package wire

import (
	"encoding/json"
	"testing"
)

var rawSeeds = []string{
	`{"model":"m","messages":[{"role":"user","content":"a <b> & c \u2028 \u2029 \" \\ \n"}]}`,
	"{ \"model\" : \"m\" ,\n\t\"messages\" : [ { \"role\" : \"assistant\" , \"content\" : [ { \"type\" : \"text\" , \"text\" : \"x < y\\u003e \u2028\u2029 \xff\" , \"citations\" : [ 1 , 2.5e3 , true , null ] } ] } ] ,\r\n \"z<k>\" : { \"a b\" : [ ] } }",
	`{"messages":[{"role":"user"},{"role":"user","content":null},{"role":"user","content":[]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"&"}]}]}]}`,
	"{\"messages\":[],\"k\\u00e9\xff\":1,\"k\\ud800\":[ 1 ],\"k\\\"\\/\":\"v\"}",
	`{"messages":[],"metadata":{"user_id":"{\"session_id\":\"abc\"}"},"thinking":{"type":"enabled","budget_tokens":1024},"tools":[{"name":"n","input_schema":{"type":"object","properties":{"q":{"type":"string","description":"<"}}}}]}`,
}

// checkRawWriters: ParseRequest's fields are what encoding/json decodes,
// and MarshalFields and appendMessages write exactly what encoding/json
// writes for the same values.
func checkRawWriters(t *testing.T, body []byte) {
	r, err := ParseRequest(body)
	if err != nil {
		return
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || len(fields) != len(r.Fields) {
		t.Fatalf("fields %q, encoding/json's %q (%v)", r.Fields, fields, err)
	}
	for k, v := range fields {
		if string(r.Fields[k]) != string(v) {
			t.Fatalf("field %q = %q, encoding/json's %q", k, r.Fields[k], v)
		}
	}
	want, err := json.Marshal(r.Fields)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.MarshalFields()
	if err != nil || string(got) != string(want) {
		t.Fatalf("MarshalFields:\n got  %q (%v)\n want %q", got, err, want)
	}
	want, err = json.Marshal(r.Messages)
	if err != nil {
		t.Fatal(err)
	}
	got, err = appendMessages(nil, r.Messages)
	if err != nil || string(got) != string(want) {
		t.Fatalf("appendMessages:\n got  %q (%v)\n want %q", got, err, want)
	}
	// As rewritten by a provider: a block without its raw form.
	if len(r.Messages) > 0 && len(r.Messages[0].Content.Blocks) > 0 {
		r.Messages[0].Content.Blocks[0].Raw = nil
		r.Messages[0].Content.IsString = false
		want, _ = json.Marshal(r.Messages)
		r.SetMessages(r.Messages)
		got, err = r.MarshalFields()
		r.Fields["messages"] = want
		if w, _ := json.Marshal(r.Fields); err != nil || string(got) != string(w) {
			t.Fatalf("SetMessages:\n got  %q (%v)\n want %q", got, err, w)
		}
	}
}

func TestRawWriters(t *testing.T) {
	for _, s := range rawSeeds {
		checkRawWriters(t, []byte(s))
	}
}

// FuzzRawWriters: for any request, the one-buffer writers agree byte for
// byte with encoding/json.
func FuzzRawWriters(f *testing.F) {
	for _, s := range rawSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkRawWriters)
}
