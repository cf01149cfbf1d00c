package thinkparse

import "bytes"

// line states of the fence tracker
const (
	lsIndent uint8 = iota // at a line start: only spaces (cnt of them) so far
	lsMarker              // counting fence characters (cnt of mch) at a line start
	lsRest                // the rest of the line does not matter
)

// fenceState tracks Markdown code fences in the answer text (the bytes
// delivered as Text, in order). A line opens a fence when, after up to three
// spaces, it starts with at least three '`' or '~'; a later line that starts
// (after up to three spaces) with at least as many of the same character
// closes it. A fence takes effect as soon as its third (or closing) marker
// character has been seen, so a tag later on the same line is inside it.
//
// Only line starts are examined byte by byte; the rest of a line is skipped
// with bytes.IndexByte.
type fenceState struct {
	in      bool  // inside a fenced block
	ch      byte  // fence character while in
	n       int   // fence length while in
	ls      uint8 // line state
	opening bool  // lsMarker: this line opened the fence, markers extend n
	mch     byte  // lsMarker: marker character
	cnt     int   // lsIndent: spaces; lsMarker: markers
}

func (f *fenceState) feed(t []byte) {
	i := 0
	for i < len(t) {
		if f.ls == lsRest {
			j := bytes.IndexByte(t[i:], '\n')
			if j < 0 {
				return
			}
			i += j + 1
			f.ls, f.cnt = lsIndent, 0
			continue
		}
		c := t[i]
		i++
		if c == '\n' {
			f.ls, f.cnt = lsIndent, 0
			continue
		}
		switch f.ls {
		case lsIndent:
			switch {
			case c == ' ' && f.cnt < 3:
				f.cnt++
			case (c == '`' || c == '~') && (!f.in || c == f.ch):
				f.ls, f.mch, f.cnt, f.opening = lsMarker, c, 0, false
				f.marker()
			default:
				f.ls = lsRest
			}
		case lsMarker:
			if c == f.mch {
				f.marker()
			} else {
				f.ls = lsRest
			}
		}
	}
}

// marker counts one more fence character at a line start.
func (f *fenceState) marker() {
	f.cnt++
	switch {
	case f.opening:
		f.n = f.cnt
	case !f.in:
		if f.cnt == 3 {
			f.in, f.ch, f.n, f.opening = true, f.mch, 3, true
		}
	case f.cnt >= f.n:
		f.in = false // closing fence; ignore the rest of the line
		f.ls = lsRest
	}
}
