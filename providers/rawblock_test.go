package providers

import (
	"errors"
	"testing"
)

// TestReadRawContent: a Content's blocks come back as the client's bytes,
// whatever the order of their members, with a tool_result's own blocks
// in Content and a string Content as one text block.
func TestReadRawContent(t *testing.T) {
	data := []byte(`[{"text":"a\"b","type":"text","cache_control":{"type":"ephemeral"}},` +
		`{"content":[{"type":"text","text":"out"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}],"type":"tool_result","tool_use_id":"t1","is_error":true},` +
		`{"type":"tool_use","id":"u","name":"n\u0041","input":{ "a" : [1] }},` +
		`{"type":"document","source":"https://x/a"},` +
		`{"type":"thinking","thinking":"th","signature":"sg"}]`)
	var c RawContent
	end, err := c.Read(data, 0)
	if err != nil || end != len(data) {
		t.Fatalf("Read = %d, %v; want %d, nil", end, err, len(data))
	}
	if len(c.Blocks) != 5 {
		t.Fatalf("%d blocks, want 5", len(c.Blocks))
	}
	b := &c.Blocks[0]
	if string(b.Type.Raw) != "text" || string(b.Text.Raw) != `a\"b` || !b.Text.Escaped || !b.Text.Canonical {
		t.Errorf("text block: %+v", b)
	}
	r := &c.Blocks[1]
	subs := c.Content(r)
	if !r.Type.Is("tool_result") || string(r.ToolUseID.Raw) != "t1" || !r.IsError || len(subs) != 2 {
		t.Fatalf("tool_result: %+v, %d blocks of content", r, len(subs))
	}
	if string(subs[0].Text.Raw) != "out" || string(subs[1].Source.Data.Raw) != "AA" || !subs[1].Source.MediaType.Is("image/png") {
		t.Errorf("tool_result content: %+v", subs)
	}
	u := &c.Blocks[2]
	if string(u.ID.Raw) != "u" || u.Name.TextString() != "nA" || u.Name.Canonical || string(u.Input) != `{ "a" : [1] }` {
		t.Errorf("tool_use: %+v", u)
	}
	if d := &c.Blocks[3].Source; !d.Present || !d.IsString || string(d.URL.Raw) != "https://x/a" {
		t.Errorf("string source: %+v", d)
	}
	if th := &c.Blocks[4]; string(th.Thinking.Raw) != "th" || string(th.Signature.Raw) != "sg" {
		t.Errorf("thinking: %+v", th)
	}

	data = []byte(`"just text"`)
	if _, err := c.Read(data, 0); err != nil || len(c.Blocks) != 1 || !c.Blocks[0].Type.Is("text") || string(c.Blocks[0].Text.Raw) != "just text" {
		t.Errorf("string Content: %+v, %v", c.Blocks, err)
	}
}

// TestReadRawLeftToTyped: what encoding/json might read otherwise than the
// reader stops it with ErrLeftToTyped.
func TestReadRawLeftToTyped(t *testing.T) {
	for _, body := range []string{
		`[{"Type":"text","text":"a"}]`,              // a field's name in another case
		`[{"typ\u0065":"text","text":"a"}]`,         // an escape in a name
		`[{"type":"text","text":"a","text":"b"}]`,   // a repeated member
		`[{"type":"text","text":null}]`,             // a null
		`[{"type":"text","text":1}]`,                // not a string
		`[{"type":"tool_result","is_error":"yes"}]`, // not a boolean
		`[{"type":"tool_result","content":{}}]`,     // a Content neither string nor array
		`[{"type":"image","source":1}]`,             // a source neither string nor object
		`[{"type":"image","source":{"Data":"AA"}}]`, // a source member's name in another case
		`[{"type":"image","source":{"data":2}}]`,    // a source member not a string
		`{"type":"text"}`,                           // a Content neither string nor array
		`[1]`,                                       // a block not an object
	} {
		var c RawContent
		if _, err := c.Read([]byte(body), 0); !errors.Is(err, ErrLeftToTyped) {
			t.Errorf("%s: err %v, want ErrLeftToTyped", body, err)
		}
	}
	for _, body := range []string{
		`{"role":"user","role":"user","content":"a"}`,
		`{"role":1,"content":"a"}`,
		`{"role":"user","content":null}`,
		`{"Role":"user","content":"a"}`,
		`["a"]`,
	} {
		var m RawMessage
		if _, err := ReadRawMessage([]byte(body), 0, &m, func(at int) (int, error) { return skipRaw([]byte(body), at) }); !errors.Is(err, ErrLeftToTyped) {
			t.Errorf("%s: err %v, want ErrLeftToTyped", body, err)
		}
	}
}

// TestReadRawSourceAsDecoded: in a source, as in encoding/json, a null
// leaves a member as it was and a repeated member's last value counts.
func TestReadRawSourceAsDecoded(t *testing.T) {
	data := []byte(`[{"type":"image","source":{"type":"url","media_type":"a/b","media_type":null,"url":"x","url":"y","extra":[null]}}]`)
	var c RawContent
	if _, err := c.Read(data, 0); err != nil {
		t.Fatal(err)
	}
	s := &c.Blocks[0].Source
	if !s.Type.Is("url") || !s.MediaType.Is("a/b") || !s.URL.Is("y") || s.IsString {
		t.Errorf("source: %+v", s)
	}
}

// TestReadRawMessage: the role and the content are read in either order;
// a message without content has none.
func TestReadRawMessage(t *testing.T) {
	data := []byte(`{"content":"hi","extra":{"role":"x"},"role":"assist\u0061nt"}`)
	var m RawMessage
	var c RawContent
	end, err := ReadRawMessage(data, 0, &m, func(at int) (int, error) { return c.Read(data, at) })
	if err != nil || end != len(data) {
		t.Fatalf("ReadRawMessage = %d, %v", end, err)
	}
	if !m.HasRole || !m.HasContent || !m.Role.Is("assistant") || len(c.Blocks) != 1 || string(c.Blocks[0].Text.Raw) != "hi" {
		t.Errorf("message: %+v, blocks %+v", m, c.Blocks)
	}
	data = []byte(`{"role":"user"}`)
	if _, err := ReadRawMessage(data, 0, &m, nil); err != nil || m.HasContent || !m.Role.Is("user") {
		t.Errorf("message without content: %+v, %v", m, err)
	}
}
