package sse

import (
	"bytes"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// Decoder is a push-based Server-Sent Events decoder. reverse_proxy hands
// the gateway whatever bytes the upstream wrote, split anywhere, so the
// decoder keeps the unfinished tail between calls. It follows the WHATWG
// event-stream rules the gateway needs: LF, CRLF and lone CR line ends,
// comment lines, multi-line data joined by '\n', and one optional space after
// the colon. id and retry fields carry nothing the gateway uses and are
// ignored.
type Decoder struct {
	buf   []byte // bytes of the unfinished line
	event []byte // event field of the event being built
	data  []byte // data field(s) of the event being built
	// ref is the event's one data line while it still lies in the caller's
	// bytes: most events arrive whole in one write, and are then handed on
	// without being copied. Before Write returns it is copied into data.
	ref     []byte
	hasData bool
	skipLF  bool // the previous chunk ended in CR: a leading LF belongs to it
	// shape is WriteShaped's, forgotten at every event dispatched to fn.
	shape *Shape
	// MaxLine bounds one line; longer lines fail the stream. 0 means 16 MiB.
	MaxLine int
	// MaxEvent bounds the data of one event, all its data lines joined:
	// an upstream that never ends its event would otherwise grow it for
	// ever, one bounded line at a time. 0 means DefaultMaxEvent.
	MaxEvent int
}

// DefaultMaxEvent is Decoder.MaxEvent when unset: the largest line
// already passes, so any honest event does.
const DefaultMaxEvent = 16 << 20

// ErrLineTooLong reports an upstream line over Decoder.MaxLine.
var ErrLineTooLong = &wire.Error{Status: 502, Type: "api_error", Message: "upstream event-stream line too long"}

// ErrEventTooLarge reports an upstream event whose data passed Decoder.MaxEvent.
var ErrEventTooLarge = &wire.Error{Status: 502, Type: "api_error", Message: "upstream event-stream event too large"}

// Handler receives one dispatched event. Slices are valid only during the call.
type Handler func(event, data []byte) error

// Write decodes p, calling fn for every complete event. An error from fn
// stops decoding and is returned.
func (d *Decoder) Write(p []byte, fn Handler) error {
	if d.skipLF && len(p) > 0 {
		d.skipLF = false
		if p[0] == '\n' {
			p = p[1:]
		}
	}
	max := d.MaxLine
	if max == 0 {
		max = 16 << 20
	}
	// Two vectorised scans beat one bytes.IndexAny, which goes byte by byte.
	// lf, the next LF in p (-1: none), is kept across lines so that a stream
	// of CR-only line ends does not rescan the chunk for every line.
	// Most upstreams end lines with LF alone: one scan of the chunk for CR
	// spares a scan of every line.
	lf := bytes.IndexByte(p, '\n')
	hasCR := bytes.IndexByte(p, '\r') >= 0
	for len(p) > 0 {
		i := lf
		if lf < 0 {
			i = bytes.IndexByte(p, '\r')
		} else if hasCR {
			if cr := bytes.IndexByte(p[:lf], '\r'); cr >= 0 {
				i = cr
			}
		}
		if i < 0 {
			if len(d.buf)+len(p) > max {
				return ErrLineTooLong
			}
			d.buf = append(d.buf, p...)
			d.own()
			return nil
		}
		// A line that arrives whole is bounded too, so the outcome does not
		// depend on how the upstream's bytes were split.
		if len(d.buf)+i > max {
			return ErrLineTooLong
		}
		line, borrowed := p[:i], true
		if len(d.buf) > 0 {
			d.buf = append(d.buf, line...)
			line, borrowed = d.buf, false
		}
		if p[i] == '\r' {
			if i+1 < len(p) {
				if p[i+1] == '\n' {
					i++
				}
			} else {
				d.skipLF = true
			}
		}
		p = p[i+1:]
		if lf >= 0 {
			if lf -= i + 1; lf < 0 {
				lf = bytes.IndexByte(p, '\n')
			}
		}
		err := d.line(line, borrowed, fn)
		d.buf = d.buf[:0]
		if err != nil {
			return err
		}
	}
	d.own()
	return nil
}

// WriteShaped is Write with a fast path for a stream's delta events: every
// event that has the form shape holds (see Shape) goes to text with its raw,
// still escaped, string and whether it holds an escape (without one, the
// raw string is its value); all others go to fn, which may record a new
// shape.
// The decoder forgets the shape at every event fn sees.
func (d *Decoder) WriteShaped(p []byte, shape *Shape, text func(raw []byte, escaped bool) error, fn Handler) error {
	// A matched event is one line and one event: it takes the fast path
	// only well within both bounds, and the general path decides the rest.
	max := d.MaxLine
	if max == 0 {
		max = 16 << 20
	}
	if d.MaxEvent > 0 && d.MaxEvent < max {
		max = d.MaxEvent
	}
	for len(p) > 0 {
		if d.idle() {
			if raw, escaped, n := shape.match(p); n > 0 && n <= max {
				if err := text(raw, escaped); err != nil {
					return err
				}
				p = p[n:]
				continue
			}
		}
		// Up to the end of the event under way. Bytes that end in a blank
		// line leave the decoder idle, whatever came before.
		k := bytes.Index(p, eventEnd)
		if k < 0 {
			k = len(p) - 2
		}
		d.shape = shape
		err := d.Write(p[:k+2], fn)
		d.shape = nil
		if err != nil {
			return err
		}
		p = p[k+2:]
	}
	return nil
}

var eventEnd = []byte("\n\n")

// idle reports whether the decoder is between events, holding nothing.
func (d *Decoder) idle() bool {
	return len(d.buf) == 0 && !d.hasData && len(d.event) == 0 && !d.skipLF
}

// own copies a borrowed data line into the decoder's buffer.
func (d *Decoder) own() {
	if d.ref != nil {
		d.data = append(d.data[:0], d.ref...)
		d.ref = nil
	}
}

// Close dispatches an event whose blank line never came (a lenient reading of
// a stream cut right after its last data line) and resets the decoder.
func (d *Decoder) Close(fn Handler) error {
	var err error
	if len(d.buf) > 0 {
		err = d.line(d.buf, false, fn)
	}
	if err == nil && d.hasData {
		err = fn(d.event, d.data)
	}
	d.Reset()
	return err
}

// Reset clears all state, keeping buffers.
func (d *Decoder) Reset() {
	d.buf, d.event, d.data, d.ref = d.buf[:0], d.event[:0], d.data[:0], nil
	d.hasData, d.skipLF = false, false
}

// line takes one line; borrowed means it lies in the caller's bytes.
func (d *Decoder) line(line []byte, borrowed bool, fn Handler) error {
	if len(line) == 0 {
		if !d.hasData {
			d.event = d.event[:0]
			return nil
		}
		data := d.data
		if d.ref != nil {
			data = d.ref
		}
		if d.shape != nil {
			d.shape.Forget()
		}
		err := fn(d.event, data)
		d.event, d.data, d.ref, d.hasData = d.event[:0], d.data[:0], nil, false
		return err
	}
	if line[0] == ':' {
		return nil
	}
	name, value := line, []byte(nil)
	if c := bytes.IndexByte(line, ':'); c >= 0 {
		name, value = line[:c], line[c+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		size := len(value)
		if d.hasData {
			held := len(d.data)
			if d.ref != nil {
				held = len(d.ref)
			}
			size += 1 + held // the joining '\n'
		}
		max := d.MaxEvent
		if max == 0 {
			max = DefaultMaxEvent
		}
		if size > max {
			return ErrEventTooLarge
		}
		switch {
		case !d.hasData && borrowed:
			d.ref = value
		case !d.hasData:
			d.data = append(d.data[:0], value...)
		default:
			d.own()
			d.data = append(d.data, '\n')
			d.data = append(d.data, value...)
		}
		d.hasData = true
	case "event":
		d.event = append(d.event[:0], value...)
	}
	return nil
}
