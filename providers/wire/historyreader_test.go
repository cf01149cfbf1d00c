package wire

import (
	"fmt"
	"strings"
	"testing"
)

// TestHistoryReaderBlocks: a content's blocks come back as the client's
// bytes, whatever the order of their members, with a tool_result's own
// content raw for a nested read and a string content as one text block.
func TestHistoryReaderBlocks(t *testing.T) {
	content := `[{"text":"a\"b","type":"text","cache_control":{"type":"ephemeral"}},` +
		`{"content":[{"type":"text","text":"out"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}],"type":"tool_result","tool_use_id":"t1","is_error":true},` +
		`{"type":"tool_use","id":"u","name":"n\u0041","input":{ "a" : [1] }},` +
		`{"type":"document","source":"https://x/a"},` +
		`{"type":"thinking","thinking":"th","signature":"sg"}]`
	body := []byte(`{"model":"m","messages":[{"role":"user","content":` + content + `}]}`)
	h, err := NewHistoryReader(body)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []HistoryBlock
	var subs []HistoryBlock
	var b, sub HistoryBlock
	err = h.EachMessage(func(_ int, m *HistoryMessage) error {
		if !m.Role.Is("user") || string(m.Content) != content {
			t.Errorf("message %q %s", m.Role.Raw, m.Content)
		}
		return h.EachBlock(m.Content, &b, func(_ int, b *HistoryBlock) error {
			blocks = append(blocks, *b)
			return h.EachBlock(b.ContentRaw, &sub, func(_ int, s *HistoryBlock) error {
				subs = append(subs, *s)
				return nil
			})
		})
	})
	if err != nil || len(blocks) != 5 || len(subs) != 2 {
		t.Fatalf("%d blocks, %d of a tool_result, %v", len(blocks), len(subs), err)
	}
	if b := blocks[0]; string(b.Type.Raw) != "text" || string(b.Text.Raw) != `a\"b` || !b.Text.Escaped || !b.Text.Canonical ||
		string(b.Raw) != `{"text":"a\"b","type":"text","cache_control":{"type":"ephemeral"}}` {
		t.Errorf("text block: %+v", b)
	}
	if r := blocks[1]; !r.Type.Is("tool_result") || string(r.ToolUseID.Raw) != "t1" || !r.IsError || !strings.HasPrefix(string(r.ContentRaw), `[{"type":"text","text":"out"}`) {
		t.Errorf("tool_result: %+v", r)
	}
	if string(subs[0].Text.Raw) != "out" || string(subs[1].Source.Data.Raw) != "AA" || !subs[1].Source.MediaType.Is("image/png") {
		t.Errorf("tool_result content: %+v", subs)
	}
	if u := blocks[2]; string(u.ID.Raw) != "u" || u.Name.TextString() != "nA" || u.Name.Canonical || string(u.Input) != `{ "a" : [1] }` {
		t.Errorf("tool_use: %+v", u)
	}
	if d := blocks[3].Source; !d.Present || !d.IsString || string(d.URL.Raw) != "https://x/a" {
		t.Errorf("string source: %+v", d)
	}
	if th := blocks[4]; string(th.Thinking.Raw) != "th" || string(th.Signature.Raw) != "sg" {
		t.Errorf("thinking: %+v", th)
	}

	n := 0
	if err := h.EachBlock([]byte(`"just text"`), &b, func(_ int, b *HistoryBlock) error {
		n++
		if !b.Type.Is("text") || string(b.Text.Raw) != "just text" || string(b.Raw) != `"just text"` {
			t.Errorf("string content: %+v", b)
		}
		return nil
	}); err != nil || n != 1 {
		t.Errorf("string content: %d blocks, %v", n, err)
	}
}

// decodedBodies are requests whose history encoding/json reads by rules of
// its own: names in another case or escaped, repeated members, nulls,
// sources merged, messages given again after a null.
var decodedBodies = []string{
	`{"model":"m","messages":[{"ROLE":"user","Content":[{"TYPE":"text","T\u0065xt":"hi"},{"type":"text","text":"a","text":null},{"type":"text","text":null}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":"x","content":null},{"role":"user","content":[null,{"type":"image","source":{"type":"base64","data":"AA=="},"source":{"media_type":"image/png"}},{"type":"image","source":{"type":"url","url":"u"},"source":null},{"type":"document","source":"s","source":{"url":"v"}}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":"a"}],"Messages":null,"Messages":[{"content":"b"},{"role":"assistant","content":"c"}]}`,
	`{"model":"m","messages":[{"role":"user","content":"\ud800 ÿ\u00e9"}],"SYSTEM":[{"type":"text","text":"s\/"}],"system":"\u2028"}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"r"},null],"is_error":true,"is_error":null,"Is_Error":false}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","media_type":"a/b","media_type":null,"url":"x","url":"y","extra":[null]}}]}]}`,
	`{"model":"m","messages":[{"r\u006fle":"\u0075ser","content":[{"\u0074ype":"text","text":"k"},{"type":"te\u0078t","text":"K","input":{"a":1},"input":null}]}],"messages":null,"messages":[{"role":"assistant"}]}`,
}

// sameAsDecoded requires the reader to read body's history as
// ParseRequest decodes it into Request, for a body it accepts.
func sameAsDecoded(t testing.TB, body []byte) {
	t.Helper()
	req, err := ParseRequest(body)
	if err != nil {
		return
	}
	h, err := NewHistoryReader(body)
	if err != nil {
		t.Fatalf("NewHistoryReader: %v\n%s", err, body)
	}
	var got []string
	var b, sub HistoryBlock
	read := func(content []byte) {
		_ = h.EachBlock(content, &b, func(j int, b *HistoryBlock) error {
			got = append(got, rawBlockString(&b.RawBlock, b.Null))
			got = append(got, "(")
			_ = h.EachBlock(b.ContentRaw, &sub, func(_ int, s *HistoryBlock) error {
				got = append(got, rawBlockString(&s.RawBlock, s.Null))
				return nil
			})
			got = append(got, ")")
			return nil
		})
	}
	read(h.System())
	if err := h.EachMessage(func(_ int, m *HistoryMessage) error {
		got = append(got, "role "+m.Role.TextString())
		read(m.Content)
		return nil
	}); err != nil {
		t.Fatalf("EachMessage: %v\n%s", err, body)
	}
	var want []string
	decoded := func(c Content) {
		for _, blk := range c.Blocks {
			want = append(want, blockString(&blk), "(")
			if blk.Content != nil {
				for _, s := range blk.Content.Blocks {
					want = append(want, blockString(&s))
				}
			}
			want = append(want, ")")
		}
	}
	decoded(req.System)
	for _, m := range req.Messages {
		want = append(want, "role "+m.Role)
		decoded(m.Content)
	}
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Fatalf("read\n%s\ndecoded\n%s\nbody %s", g, w, body)
	}
}

// rawBlockString and blockString write what the reader read and what
// encoding/json decoded of a block alike.
func rawBlockString(b *RawBlock, null bool) string {
	src := "none"
	if s := &b.Source; s.Present {
		typ := s.Type.TextString()
		if s.IsString {
			typ = "string"
		}
		src = fmt.Sprintf("%q %q %q %q", typ, s.MediaType.TextString(), s.Data.TextString(), s.URL.TextString())
	}
	input := string(b.Input)
	return fmt.Sprintf("%q %q %q %q %q %q %q %q %v %s input %s", b.Type.TextString(), b.Text.TextString(), b.Thinking.TextString(), b.Signature.TextString(),
		b.Data.TextString(), b.ID.TextString(), b.Name.TextString(), b.ToolUseID.TextString(), b.IsError, src, input)
}

func blockString(b *Block) string {
	src := "none"
	if s := b.Source; s != nil {
		src = fmt.Sprintf("%q %q %q %q", s.Type, s.MediaType, s.Data, s.URL)
	}
	return fmt.Sprintf("%q %q %q %q %q %q %q %q %v %s input %s", b.Type, b.Text, b.Thinking, b.Signature,
		b.Data, b.ID, b.Name, b.ToolUseID, b.IsError, src, b.Input)
}

// TestHistoryReaderAsDecoded: on every body, what the reader reads is
// what encoding/json decodes.
func TestHistoryReaderAsDecoded(t *testing.T) {
	for _, body := range decodedBodies {
		sameAsDecoded(t, []byte(body))
	}
}

// FuzzHistoryReaderAsDecoded: for any body the request parse accepts, the
// reader reads its history as encoding/json decodes it.
func FuzzHistoryReaderAsDecoded(f *testing.F) {
	for _, body := range decodedBodies {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) { sameAsDecoded(t, body) })
}

// TestHistoryReaderRefusesMessagesTwice: two messages arrays with no null
// between are a body the request parse refuses; the reader does not merge
// them either.
func TestHistoryReaderRefusesMessagesTwice(t *testing.T) {
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"a"}],"Messages":[{"content":"b"}]}`)
	if _, err := ParseRequest(body); err == nil {
		t.Fatal("ParseRequest accepted messages given twice")
	}
	if _, err := NewHistoryReader(body); err != errHistoryShape {
		t.Fatalf("NewHistoryReader: %v, want errHistoryShape", err)
	}
}
