package emit

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The raw paths frame upstream JSON as one data line: JSON whose line ends
// are whitespace between tokens is compacted, and anything else holding a
// line end is refused with errRawLineEnd, leaving the stream as it was.
func TestEmitterRawLineEnds(t *testing.T) {
	const injection = "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\n\nevent: content_block_start\ndata: {\\\"type\\\":\\\"content_block_start\\\"}\"}}"
	raw := map[string]func(e *Emitter, data []byte) error{
		"RawBlockStart":   (*Emitter).RawBlockStart,
		"RawDelta":        (*Emitter).RawDelta,
		"MessageDeltaRaw": (*Emitter).MessageDeltaRaw,
		"FailRaw":         (*Emitter).FailRaw,
		"RawEvent":        func(e *Emitter, data []byte) error { return e.RawEvent("newer_event", data) },
	}
	for name, call := range raw {
		t.Run(name, func(t *testing.T) {
			e := NewEmitter(FormThinking, nil)
			startMessage(e)
			if name == "RawDelta" {
				if err := e.RawBlockStart([]byte(`{"type":"web_search_tool_result"}`)); err != nil {
					t.Fatal(err)
				}
			}
			before := string(e.Events())
			if err := call(e, []byte(injection)); err != errRawLineEnd {
				t.Fatalf("injection: error %v, want errRawLineEnd", err)
			}
			if string(e.Events()) != before || e.Finished() {
				t.Fatalf("a refused event changed the stream: %q", e.Events()[len(before):])
			}
			for _, bad := range []string{"{\"a\":\"x\ry\"}", "{\"a\":1\n", "not json\n"} {
				if err := call(e, []byte(bad)); err != errRawLineEnd {
					t.Fatalf("%q: error %v, want errRawLineEnd", bad, err)
				}
			}
			if err := call(e, []byte("{\r\n  \"type\": \"x\",\n\t\"v\": [1,\r 2]\n}")); err != nil {
				t.Fatalf("JSON with whitespace line ends: %v", err)
			}
			added := string(e.Events()[len(before):])
			if !bytes.Contains([]byte(added), []byte(`{"type":"x","v":[1,2]}`)) {
				t.Fatalf("not compacted: %q", added)
			}
			checkFrames(t, e.Events())
		})
	}
	e := NewEmitter(FormThinking, nil)
	if err := e.MessageStartRaw([]byte("{\"type\":\"message_start\",\n\"message\":{\"id\":\"m\"}}")); err != nil || e.Started() == false {
		t.Fatalf("MessageStartRaw: %v", err)
	}
	if string(e.Events()) != "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\"}}\n\n" {
		t.Fatalf("MessageStartRaw wrote %q", e.Events())
	}
	e = NewEmitter(FormThinking, nil)
	if err := e.MessageStartRaw([]byte("{\"a\":\"\n\"}")); err != errRawLineEnd || e.Started() || len(e.Events()) > 0 {
		t.Fatalf("MessageStartRaw of an injection: %v, started %v, %q", err, e.Started(), e.Events())
	}
	startMessage(e)
	if err := e.RawEvent("x\nevent: y", []byte(`{}`)); err != errRawLineEnd {
		t.Fatalf("event name with a line end: %v", err)
	}
}

// checkFrames fails unless stream is a run of "event: …\ndata: …\n\n"
// frames with no CR anywhere and no LF inside a line.
func checkFrames(t *testing.T, stream []byte) {
	t.Helper()
	if bytes.IndexByte(stream, '\r') >= 0 {
		t.Fatalf("CR in the stream: %q", stream)
	}
	if len(stream) > 0 && !bytes.HasSuffix(stream, []byte("\n\n")) {
		t.Fatalf("stream does not end a frame: %q", stream)
	}
	for _, frame := range bytes.Split(bytes.TrimSuffix(stream, []byte("\n\n")), []byte("\n\n")) {
		lines := bytes.Split(frame, []byte("\n"))
		if len(lines) != 2 || !bytes.HasPrefix(lines[0], []byte("event: ")) || !bytes.HasPrefix(lines[1], []byte("data: ")) {
			t.Fatalf("frame %q is not one event line and one data line", frame)
		}
		if !json.Valid(lines[1][len("data: "):]) {
			t.Fatalf("frame %q: data is not JSON", frame)
		}
	}
}

// FuzzEmitterRawFraming: whatever bytes an upstream hands the raw paths,
// every event the emitter writes is exactly one event line and one data
// line of JSON; what cannot be framed so is refused.
func FuzzEmitterRawFraming(f *testing.F) {
	f.Add(uint8(0), []byte("{\"type\":\"text\",\n\"text\":\"\"}"))
	f.Add(uint8(1), []byte("{\"type\":\"x\",\"t\":\"a\n\nevent: error\ndata: {}\"}"))
	f.Add(uint8(4), []byte("{\r\"type\":\"newer\"\r}"))
	f.Fuzz(func(t *testing.T, op uint8, data []byte) {
		e := NewEmitter(FormThinking, nil)
		startMessage(e)
		if err := e.RawBlockStart([]byte(`{"type":"server_tool_use","id":"s","name":"web_search","input":{}}`)); err != nil {
			t.Fatal(err)
		}
		var err error
		switch op % 5 {
		case 0:
			err = e.RawBlockStart(data)
		case 1:
			err = e.RawDelta(data)
		case 2:
			err = e.MessageDeltaRaw(data)
		case 3:
			err = e.FailRaw(data)
		case 4:
			err = e.RawEvent("newer_event", data)
		}
		if err != nil && err != errRawLineEnd {
			t.Fatalf("error %v", err)
		}
		e.Finish("end_turn", "", Usage{})
		for _, frame := range bytes.Split(bytes.TrimSuffix(e.Events(), []byte("\n\n")), []byte("\n\n")) {
			lines := bytes.Split(frame, []byte("\n"))
			if len(lines) != 2 || !bytes.HasPrefix(lines[0], []byte("event: ")) || !bytes.HasPrefix(lines[1], []byte("data: ")) || bytes.IndexByte(frame, '\r') >= 0 {
				t.Fatalf("frame %q is not one event line and one data line", frame)
			}
		}
	})
}
