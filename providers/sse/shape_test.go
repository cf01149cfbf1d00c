package sse

import (
	"fmt"
	"strings"
	"testing"
)

// shapedRun decodes chunks with WriteShaped under a handler that records a
// shape for events {"t":"…"} named "d", the way a translator records its
// content-only events. It returns what each path saw, in order.
func shapedRun(t *testing.T, chunks []string) []string {
	t.Helper()
	var d Decoder
	var shape Shape
	var got []string
	text := func(raw []byte, escaped bool) error {
		if escaped != strings.Contains(string(raw), "\\") {
			t.Errorf("raw %q: escaped %v", raw, escaped)
		}
		got = append(got, "fast "+string(raw))
		return nil
	}
	event := func(name, data []byte) error {
		got = append(got, fmt.Sprintf("event %s %s", name, data))
		if string(name) == "d" && strings.HasPrefix(string(data), `{"t":"`) && strings.HasSuffix(string(data), `"}`) {
			shape.Record("event: d\n", data, data[6:len(data)-2])
		}
		return nil
	}
	for _, c := range chunks {
		if err := d.WriteShaped([]byte(c), &shape, text, event); err != nil {
			t.Fatal(err)
		}
	}
	return got
}

func TestWriteShaped(t *testing.T) {
	stream := "event: d\ndata: {\"t\":\"one\"}\n\n" + // learnt
		"event: d\ndata: {\"t\":\"two \\\" three\"}\n\n" + // shaped
		"event: d\ndata: {\"t\":\"\"}\n\n" + // shaped, empty
		"event: d\ndata: {\"t\":\"x\",\"u\":1}\n\n" + // same head, other tail
		"event: d\ndata: {\"t\":\"four\"}\n\n" + // learnt again
		"event: e\ndata: {\"t\":\"five\"}\n\n" + // another event: forgets
		"event: d\ndata: {\"t\":\"six\"}\n\n" + // learnt
		"event: d\r\ndata: {\"t\":\"seven\"}\r\n\r\n" + // CRLF: general path
		"event: d\ndata: {\"t\":\"eight\"}\n\n" +
		"event: d\ndata: {\"t\":\"nine\x01\"}\n\n" + // control character: general path
		"event: d\ndata: {\"t\":\"ten\"}\n\n"
	want := []string{
		`event d {"t":"one"}`,
		`fast two \" three`,
		`fast `,
		`event d {"t":"x","u":1}`,
		`event d {"t":"four"}`,
		`event e {"t":"five"}`,
		`event d {"t":"six"}`,
		`event d {"t":"seven"}`,
		`event d {"t":"eight"}`,
		"event d {\"t\":\"nine\x01\"}",
		`fast ten`,
	}
	if got := shapedRun(t, []string{stream}); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("one write:\n got %q\nwant %q", got, want)
	}
	// Split anywhere, every event is seen once, with the same text, by
	// one path or the other.
	plain := func(s []string) []string {
		out := make([]string, len(s))
		for i, e := range s {
			if rest, ok := strings.CutPrefix(e, "fast "); ok {
				e = `event d {"t":"` + rest + `"}`
			}
			out[i] = e
		}
		return out
	}
	for n := 1; n < len(stream); n++ {
		var chunks []string
		for s := stream; len(s) > 0; s = s[min(n, len(s)):] {
			chunks = append(chunks, s[:min(n, len(s))])
		}
		if got := plain(shapedRun(t, chunks)); strings.Join(got, "\n") != strings.Join(plain(want), "\n") {
			t.Fatalf("writes of %d bytes:\n got %q\nwant %q", n, got, plain(want))
		}
	}
}

// TestWriteShapedForgetsWithinOneWrite: events that reach the decoder
// together (here CR line ends, so no blank line splits them) still each
// make it forget the shape.
func TestWriteShapedForgetsWithinOneWrite(t *testing.T) {
	got := shapedRun(t, []string{"event: d\ndata: {\"t\":\"a\"}\r\revent: e\ndata: {}\n\nevent: d\ndata: {\"t\":\"b\"}\n\n"})
	want := []string{`event d {"t":"a"}`, `event e {}`, `event d {"t":"b"}`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestShapeRecordRefusesOtherForms(t *testing.T) {
	for _, tc := range []struct{ data, value string }{
		{"{\"t\":\"a\"}\n{\"x\":1}", "a"}, // two data lines joined
		{"{\"t\":\"a\"}\r", "a"},
		{`{"n":12}`, "12"}, // not a string
	} {
		var s Shape
		d := []byte(tc.data)
		i := strings.Index(tc.data, tc.value)
		s.Record("", d, d[i:i+len(tc.value)])
		if len(s.head) != 0 {
			t.Errorf("recorded a shape for %q", tc.data)
		}
	}
	var s Shape
	d := []byte(`{"t":"a"}`)
	s.Record("event: x\n", d, d[6:7])
	if string(s.head) != "event: x\ndata: {\"t\":\"" || string(s.tail) != "\"}\n\n" {
		t.Errorf("head %q, tail %q", s.head, s.tail)
	}
}
