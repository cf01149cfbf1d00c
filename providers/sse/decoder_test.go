package sse

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// sseEvent is one dispatched event, copied out of the handler.
type sseEvent struct{ Event, Data string }

func (e sseEvent) String() string { return fmt.Sprintf("{%q %q}", e.Event, e.Data) }

// decodeChunks feeds chunks to a fresh decoder, then closes it. It stops at the
// first error, as a caller would.
func decodeChunks(maxLine int, chunks [][]byte, fn func(sseEvent) error) ([]sseEvent, error) {
	return decodeChunksMax(maxLine, 0, chunks, fn)
}

// decodeChunksMax is decodeChunks with an event bound too.
func decodeChunksMax(maxLine, maxEvent int, chunks [][]byte, fn func(sseEvent) error) ([]sseEvent, error) {
	d := &Decoder{MaxLine: maxLine, MaxEvent: maxEvent}
	var got []sseEvent
	h := func(event, data []byte) error {
		ev := sseEvent{string(event), string(data)}
		got = append(got, ev)
		if fn != nil {
			return fn(ev)
		}
		return nil
	}
	for _, c := range chunks {
		if err := d.Write(c, h); err != nil {
			return got, err
		}
	}
	return got, d.Close(h)
}

// randomChunks splits p at random points, empty chunks included.
func randomChunks(r *rand.Rand, p []byte) [][]byte {
	var out [][]byte
	for len(p) > 0 {
		n := r.IntN(min(len(p), 8) + 1) // 0..8: empty writes happen too
		out = append(out, p[:n])
		p = p[n:]
	}
	return out
}

// everyChunking returns the ways the table tests split an input: one write,
// every fixed chunk size, every two-way split and random splits.
func everyChunking(p []byte, seed uint64) map[string][][]byte {
	m := map[string][][]byte{"whole": {p}}
	for n := 1; n <= len(p); n++ {
		m[fmt.Sprintf("size%d", n)] = ssetest.Chunks(p, n)
	}
	for i := 0; i <= len(p); i++ {
		m[fmt.Sprintf("split%d", i)] = [][]byte{p[:i], p[i:]}
	}
	r := rand.New(rand.NewPCG(seed, 2))
	for i := range 50 {
		m[fmt.Sprintf("random%d", i)] = randomChunks(r, p)
	}
	return m
}

// refDecode is an independent reading of the WHATWG rules over a whole input:
// normalise line ends, split, interpret. A trailing unterminated line and a
// trailing event without its blank line are taken, as Decoder.Close does.
// A line longer than maxLine (bytes, without its end) is an error.
func refDecode(input []byte, maxLine int) ([]sseEvent, error) {
	return refDecodeMax(input, maxLine, 0)
}

// refDecodeMax is refDecode where an event whose joined data passes
// maxEvent bytes is an error too.
func refDecodeMax(input []byte, maxLine, maxEvent int) ([]sseEvent, error) {
	if maxLine == 0 {
		maxLine = 16 << 20
	}
	if maxEvent == 0 {
		maxEvent = 16 << 20
	}
	s := strings.ReplaceAll(string(input), "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	lines := strings.Split(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var out []sseEvent
	var event, data string
	hasData := false
	for _, line := range lines {
		if len(line) > maxLine {
			return out, ErrLineTooLong
		}
		if line == "" {
			if hasData {
				out = append(out, sseEvent{event, data})
			}
			event, data, hasData = "", "", false
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "data":
			if hasData {
				data += "\n"
			}
			data += value
			hasData = true
			if len(data) > maxEvent {
				return out, ErrEventTooLarge
			}
		case "event":
			event = value
		}
	}
	if hasData {
		out = append(out, sseEvent{event, data})
	}
	return out, nil
}

func ev(event, data string) sseEvent { return sseEvent{event, data} }

var sseCases = []struct {
	name  string
	input string
	want  []sseEvent
}{
	{"empty", "", nil},
	{"one event LF", "event: message_start\ndata: {\"a\":1}\n\n", []sseEvent{ev("message_start", `{"a":1}`)}},
	{"one event CRLF", "event: message_start\r\ndata: {\"a\":1}\r\n\r\n", []sseEvent{ev("message_start", `{"a":1}`)}},
	{"one event lone CR", "event: message_start\rdata: {\"a\":1}\r\r", []sseEvent{ev("message_start", `{"a":1}`)}},
	{"mixed line ends", "event: a\r\ndata: 1\r\rdata: 2\n\r\nevent: b\rdata: 3\n\n", []sseEvent{ev("a", "1"), ev("", "2"), ev("b", "3")}},
	{"CR CRLF is two line ends", "data: x\r\r\ndata: y\r\n\r\n", []sseEvent{ev("", "x"), ev("", "y")}},
	{"LF CR is two line ends", "data: x\n\rdata: y\n\n", []sseEvent{ev("", "x"), ev("", "y")}},
	{"two events", "event: a\ndata: 1\n\nevent: b\ndata: 2\n\n", []sseEvent{ev("a", "1"), ev("b", "2")}},
	{"event without a name", "data: {}\n\n", []sseEvent{ev("", "{}")}},
	{"name does not carry over", "event: a\ndata: 1\n\ndata: 2\n\n", []sseEvent{ev("a", "1"), ev("", "2")}},
	{"last event field wins", "event: a\nevent: b\ndata: 1\n\n", []sseEvent{ev("b", "1")}},
	{"event after data", "data: 1\nevent: late\n\n", []sseEvent{ev("late", "1")}},
	{"comment lines", ": ping\n\n:\ndata: 1\n: between\ndata: 2\n\n", []sseEvent{ev("", "1\n2")}},
	{"multi-line data", "data: a\ndata: b\ndata: c\n\n", []sseEvent{ev("", "a\nb\nc")}},
	{"data without space", "data:x\n\n", []sseEvent{ev("", "x")}},
	{"only one space removed", "data:  x \n\n", []sseEvent{ev("", " x ")}},
	{"tab is not removed", "data:\tx\n\n", []sseEvent{ev("", "\tx")}},
	{"colon in value", "data: a: b\n\n", []sseEvent{ev("", "a: b")}},
	{"empty data dispatches", "data:\n\n", []sseEvent{ev("", "")}},
	{"field name alone", "data\n\n", []sseEvent{ev("", "")}},
	{"empty data lines join", "data:\ndata:\n\n", []sseEvent{ev("", "\n")}},
	{"blank lines without data", "\n\n\r\n\r\revent: x\n\n\n", nil},
	{"event name dropped by a blank line", "event: x\n\ndata: 1\n\n", []sseEvent{ev("", "1")}},
	{"blank lines between events", "data: a\n\n\n\ndata: b\n\n", []sseEvent{ev("", "a"), ev("", "b")}},
	{"unknown fields ignored", "id: 7\nretry: 100\nfoo: bar\ndata: x\n\n", []sseEvent{ev("", "x")}},
	{"field name is exact", "Data: x\ndata : y\n data: z\nevent : e\n\n", nil},
	{"unicode and binary", "event: é\ndata: 日本\x00\xff\n\n", []sseEvent{ev("é", "日本\x00\xff")}},
	{"close dispatches trailing event", "event: a\ndata: 1\n\ndata: tail", []sseEvent{ev("a", "1"), ev("", "tail")}},
	{"close dispatches after a line end", "event: e\ndata: tail\n", []sseEvent{ev("e", "tail")}},
	{"close dispatches after CR", "data: tail\r", []sseEvent{ev("", "tail")}},
	{"close without data dispatches nothing", "data: 1\n\nevent: e\n", []sseEvent{ev("", "1")}},
	{"close with only a comment", ": bye", nil},
	{"anthropic stream", "event: message_start\ndata: {\"type\":\"message_start\"}\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"a\\nb\"}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
		[]sseEvent{ev("message_start", `{"type":"message_start"}`), ev("ping", `{"type": "ping"}`), ev("content_block_delta", `{"type":"content_block_delta","delta":{"text":"a\nb"}}`), ev("message_stop", `{"type":"message_stop"}`)}},
	{"openai stream", "data: {\"choices\":[]}\r\n\r\ndata: [DONE]\r\n\r\n", []sseEvent{ev("", `{"choices":[]}`), ev("", "[DONE]")}},
}

func TestDecoder(t *testing.T) {
	for i, tc := range sseCases {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := refDecode([]byte(tc.input), 0)
			if err != nil || !slices.Equal(ref, tc.want) {
				t.Fatalf("reference decoder disagrees with the table: %v %v", ref, err)
			}
			for how, chunks := range everyChunking([]byte(tc.input), uint64(i)) {
				got, err := decodeChunks(0, chunks, nil)
				if err != nil {
					t.Fatalf("%s: error %v", how, err)
				}
				if !slices.Equal(got, tc.want) {
					t.Fatalf("%s %q:\n got %v\nwant %v", how, chunks, got, tc.want)
				}
			}
		})
	}
}

// A CR ending one write and an LF starting the next are one line end, even
// with empty writes in between.
func TestDecoderCRLFAcrossWrites(t *testing.T) {
	chunks := [][]byte{[]byte("data: a\r"), nil, {}, []byte("\n"), []byte("\r"), []byte("\n"), []byte("data: b\r"), []byte("\ndata: c\r\n\r\n")}
	got, err := decodeChunks(0, chunks, nil)
	want := []sseEvent{ev("", "a"), ev("", "b\nc")}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("got %v, %v; want %v", got, err, want)
	}
}

// The decoder is reusable after Close, and Reset drops a half-read event.
func TestDecoderCloseAndResetClearState(t *testing.T) {
	var d Decoder
	var got []sseEvent
	h := func(e, data []byte) error { got = append(got, sseEvent{string(e), string(data)}); return nil }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(d.Write([]byte("event: a\ndata: 1\r"), h))
	must(d.Close(h))
	// Close cleared the pending CR: this LF is a blank line, not the rest of a CRLF.
	must(d.Write([]byte("\ndata: 2\n\n"), h))
	must(d.Write([]byte("event: half\ndata: half\ndata: way"), h))
	d.Reset()
	must(d.Write([]byte("data: 3\n\n"), h))
	must(d.Close(h))
	want := []sseEvent{ev("a", "1"), ev("", "2"), ev("", "3")}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestDecoderMaxLine(t *testing.T) {
	cases := []struct {
		name    string
		maxLine int
		input   string
		want    []sseEvent
		wantErr bool
	}{
		{"line of exactly MaxLine", 8, "data: ab\n\n", []sseEvent{ev("", "ab")}, false},
		{"line of MaxLine without its end", 8, "data: ab", []sseEvent{ev("", "ab")}, false},
		{"line end not counted", 8, "data: ab\r\n\r\n", []sseEvent{ev("", "ab")}, false},
		{"complete line over MaxLine", 8, "data: abc\n\n", nil, true},
		{"unterminated line over MaxLine", 8, "data: abc", nil, true},
		{"events before the long line survive", 8, "data: 1\n\ndata: 123456\n\ndata: 2\n\n", []sseEvent{ev("", "1")}, true},
		{"long comment", 4, ": a long comment\ndata: x\n\n", nil, true},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ref, refErr := refDecode([]byte(tc.input), tc.maxLine)
			if (refErr != nil) != tc.wantErr || !slices.Equal(ref, tc.want) {
				t.Fatalf("reference decoder disagrees with the table: %v %v", ref, refErr)
			}
			for how, chunks := range everyChunking([]byte(tc.input), uint64(i)) {
				got, err := decodeChunks(tc.maxLine, chunks, nil)
				if tc.wantErr && err != ErrLineTooLong {
					t.Fatalf("%s: error %v, want ErrLineTooLong", how, err)
				}
				if !tc.wantErr && err != nil {
					t.Fatalf("%s: error %v", how, err)
				}
				if !slices.Equal(got, tc.want) {
					t.Fatalf("%s: got %v, want %v", how, got, tc.want)
				}
			}
		})
	}
	var e *wire.Error
	if !errors.As(error(ErrLineTooLong), &e) || e.Status != 502 || e.Type != "api_error" || e.Message != "upstream event-stream line too long" {
		t.Errorf("ErrLineTooLong = %#v", ErrLineTooLong)
	}
}

// MaxLine 0 means 16 MiB.
func TestDecoderDefaultMaxLine(t *testing.T) {
	const max = 16 << 20
	ok := append([]byte("data: "), bytes.Repeat([]byte("x"), max-len("data: "))...)
	for _, tc := range []struct {
		line    []byte
		wantErr bool
	}{{ok, false}, {append(ok, 'x'), true}} {
		for _, chunks := range [][][]byte{{tc.line, []byte("\n\n")}, ssetest.Chunks(append(tc.line, "\n\n"...), 1<<20)} {
			got, err := decodeChunks(0, chunks, nil)
			if tc.wantErr {
				if err != ErrLineTooLong || len(got) != 0 {
					t.Fatalf("len %d: got %d events, %v; want ErrLineTooLong", len(tc.line), len(got), err)
				}
				continue
			}
			if err != nil || len(got) != 1 || len(got[0].Data) != max-len("data: ") {
				t.Fatalf("len %d: got %d events, %v", len(tc.line), len(got), err)
			}
		}
	}
}

// An error from the handler stops decoding: no later event is dispatched,
// and the error is returned as is.
func TestDecoderHandlerErrorStops(t *testing.T) {
	errStop := errors.New("stop")
	stopAt := func(n int) func(sseEvent) error {
		count := 0
		return func(sseEvent) error {
			if count++; count == n {
				return errStop
			}
			return nil
		}
	}
	input := []byte("data: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4")
	for n := 1; n <= 4; n++ { // the 4th event is dispatched by Close
		for how, chunks := range everyChunking(input, uint64(n)) {
			got, err := decodeChunks(0, chunks, stopAt(n))
			if err != errStop {
				t.Fatalf("stop at %d, %s: error %v", n, how, err)
			}
			if len(got) != n {
				t.Fatalf("stop at %d, %s: %d events dispatched: %v", n, how, len(got), got)
			}
		}
	}
}

func TestDecoderAllocs(t *testing.T) {
	frame := []byte("event: content_block_delta\r\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hello\"}}\r\n\r\n")
	chunks := ssetest.Chunks(bytes.Repeat(frame, 4), 37)
	var d Decoder
	n := 0
	h := func(event, data []byte) error { n++; return nil }
	run := func() {
		for _, c := range chunks {
			if err := d.Write(c, h); err != nil {
				t.Fatal(err)
			}
		}
	}
	run()
	if a := testing.AllocsPerRun(100, run); a != 0 {
		t.Errorf("allocs per run = %v, want 0", a)
	}
	if n != 4*101+4 {
		t.Errorf("dispatched %d events", n)
	}
}

func BenchmarkDecoder(b *testing.B) {
	frame := []byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"The quick brown fox jumps over the lazy dog.\"}}\n\n")
	stream := bytes.Repeat(frame, 256)
	chunks := ssetest.Chunks(stream, 1500)
	var d Decoder
	h := func(event, data []byte) error { return nil }
	b.ReportAllocs()
	b.SetBytes(int64(len(stream)))
	for b.Loop() {
		for _, c := range chunks {
			_ = d.Write(c, h)
		}
	}
}

// FuzzDecoder: for any input, any chunking (from splits) and any MaxLine
// and MaxEvent (also from splits), the decoder never panics, dispatches exactly what a
// single write dispatches, and agrees with the reference reading.
func FuzzDecoder(f *testing.F) {
	for _, tc := range sseCases {
		f.Add([]byte(tc.input), []byte{3, 1, 4, 1, 5})
	}
	f.Add([]byte("data: a\r\n\r\n"), []byte{8, 1, 1})
	f.Add([]byte("data: a\r"), []byte{0, 7})
	f.Add([]byte("data: 123456\n\ndata: 1\n\n"), []byte{9, 2})
	f.Fuzz(func(t *testing.T, input, splits []byte) {
		maxLine, maxEvent := 0, 0
		if len(splits) > 0 && splits[0]%2 == 1 {
			maxLine = int(splits[0]>>1) + 1
		}
		if len(splits) > 1 && splits[1]%2 == 1 {
			maxEvent = int(splits[1]>>1) + 1
		}
		want, wantErr := refDecodeMax(input, maxLine, maxEvent)

		single, err := decodeChunksMax(maxLine, maxEvent, [][]byte{input}, nil)
		if err != wantErr || !slices.Equal(single, want) {
			t.Fatalf("single write: %v %v; reference: %v %v", single, err, want, wantErr)
		}

		var chunks [][]byte
		p := input
		for i := 0; len(p) > 0; i++ {
			n := len(p)
			if len(splits) > 0 {
				n = min(int(splits[i%len(splits)]), len(p)) // 0 is an empty write
			}
			chunks = append(chunks, p[:n])
			p = p[n:]
			if i > 4*len(input)+8 { // all-zero splits: finish in one write
				chunks = append(chunks, p)
				break
			}
		}
		got, err := decodeChunksMax(maxLine, maxEvent, chunks, nil)
		if err != wantErr || !slices.Equal(got, single) {
			t.Fatalf("chunks %q: %v %v; single write: %v %v", chunks, got, err, single, wantErr)
		}
	})
}
