package sse

import (
	"bytes"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
)

// Shape is the form of a stream's delta events, learnt from the last one:
// the bytes before and after its one string value. A long answer is
// thousands of events that differ only in that string (the chunk id, the
// model, the indexes stay the same), so an event that starts with the same
// head, holds a JSON string, and ends with the same tail is the same event
// with other text. Decoder.WriteShaped hands such an event's string to
// the translator without the SSE and JSON parsing it would otherwise cost.
//
// The equivalence holds because SSE and JSON are read left to right: the
// head leaves both parsers where the learnt event's head left them, the
// string ends at the first unescaped quote (where the tail begins) and the
// tail ends the event. A translator records a shape only for an event whose
// sole effect was that string's text, and the decoder forgets it at any
// other event, so a shaped event has that effect and nothing else.
type Shape struct {
	head, tail []byte
}

// maxShape bounds a recorded event: delta events are small.
const maxShape = 4096

// Record learns the shape of the event just dispatched: fields are the SSE
// lines before its data (e.g. "event: content_block_delta\n"), data its one
// data line, and value the string's contents, a subslice of data. Events
// that arrived in another form (several data lines, CR line ends, a data
// line with no space after the colon) are never matched, which is safe:
// they take the general path. A value that is not a subslice of data is
// refused (its offset would be meaningless), as is anything larger than a
// delta.
func (s *Shape) Record(fields string, data, value []byte) {
	s.Forget()
	// value lies within data: their capacities give its offset.
	a := cap(data) - cap(value)
	b := a + len(value)
	if a < 1 || b >= len(data) || len(data) > maxShape || data[a-1] != '"' || data[b] != '"' ||
		!bytes.Equal(data[a:b], value) || bytes.IndexByte(data, '\n') >= 0 || bytes.IndexByte(data, '\r') >= 0 {
		return
	}
	s.head = append(append(append(s.head, fields...), "data: "...), data[:a]...)
	s.tail = append(append(s.tail, data[b:]...), "\n\n"...)
}

// Forget drops the recorded shape.
func (s *Shape) Forget() { s.head, s.tail = s.head[:0], s.tail[:0] }

// match returns the raw string of the shaped event at the start of p,
// whether it holds an escape, and the event's length, or n == 0.
func (s *Shape) match(p []byte) (raw []byte, escaped bool, n int) {
	h := len(s.head)
	if h == 0 || len(p) < h+len(s.tail) {
		return nil, false, 0
	}
	end, escaped := jsonbytes.StringEndAfter(p, s.head)
	if end < 0 || !bytes.HasPrefix(p[end:], s.tail) {
		return nil, false, 0
	}
	return p[h:end], escaped, end + len(s.tail)
}
