package providers

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// Shape is the form of a stream's delta events, learnt from the last one:
// the bytes before and after its one string value. A long answer is
// thousands of events that differ only in that string (the chunk id, the
// model, the indexes stay the same), so an event that starts with the same
// head, holds a JSON string, and ends with the same tail is the same event
// with other text. SSEDecoder.WriteShaped hands such an event's string to
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
	var end int
	if useAVX2 && h >= 32 && len(p)-h >= 32 {
		// The head compare and the first scan of the string in one call:
		// an upstream read holds a hundred of these events.
		i := shapeScanAVX2(p, s.head)
		if i < 0 {
			return nil, false, 0
		}
		end, escaped = stringEndAt(p[h:], i-h)
	} else {
		if !bytes.Equal(p[:h], s.head) {
			return nil, false, 0
		}
		end, escaped = stringEnd(p[h:])
	}
	if end < 0 {
		return nil, false, 0
	}
	end += h
	if !bytes.HasPrefix(p[end:], s.tail) {
		return nil, false, 0
	}
	return p[h:end], escaped, end + len(s.tail)
}

// StringEnd returns the index of the quote that ends the JSON string whose
// contents start at p[0], or -1 if p holds no end or a control character
// (which JSON forbids in a string, and which could end an SSE line) comes
// first. It looks at 32 bytes at a time with AVX2, eight without.
func StringEnd(p []byte) int {
	end, _ := stringEnd(p)
	return end
}

// stringEnd is StringEnd that also reports whether the string holds an
// escape (without one, the string is its own value).
func stringEnd(p []byte) (end int, escaped bool) {
	return stringEndAt(p, nextStringSpecial(p, 0))
}

// stringEndAt is stringEnd given the index of p's first quote, backslash or
// control character (or len(p)).
func stringEndAt(p []byte, i int) (end int, escaped bool) {
	for ; ; i = nextStringSpecial(p, i) {
		if i >= len(p) {
			return -1, escaped
		}
		switch c := p[i]; {
		case c == '"':
			return i, escaped
		case c == '\\':
			if i+1 >= len(p) || p[i+1] < 0x20 {
				return -1, escaped
			}
			escaped = true
			i += 2
		default: // a control character
			return -1, escaped
		}
	}
}

// nextStringSpecial returns the index of the first quote, backslash or
// control character in p from i on, or len(p).
func nextStringSpecial(p []byte, i int) int {
	if useAVX2 && len(p)-i >= 32 {
		n, _ := indexSpecialAVX2(p[i:], '"', '"', '"')
		return i + n
	}
	return stringSpecialSWAR(p, i)
}

// stringSpecialSWAR returns the index of the first quote, backslash or
// control character in p from i on, or len(p), eight bytes at a time.
func stringSpecialSWAR(p []byte, i int) int {
	for i+8 <= len(p) {
		w := binary.LittleEndian.Uint64(p[i:])
		q, bs := w^'"'*lsbs, w^'\\'*lsbs
		if m := ((w-0x20*lsbs)&^w | (q-lsbs)&^q | (bs-lsbs)&^bs) & msbs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for ; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == '"' || c == '\\' {
			break
		}
	}
	return i
}
