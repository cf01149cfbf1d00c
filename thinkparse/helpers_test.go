package thinkparse

import (
	"strconv"
	"strings"
	"testing"
)

// ev is one recorded sink event. Consecutive Text and Thinking events are
// merged by the recorder.
type ev struct {
	Kind  byte // 'T' text, 'S' ThinkingStart, 'K' thinking, 'E' ThinkingEnd
	S     string
	Attrs bool
	HasTT bool
	TT    string
	Conf  float64
}

func (e ev) String() string {
	switch e.Kind {
	case 'T':
		return "T(" + strconv.Quote(e.S) + ")"
	case 'K':
		return "K(" + strconv.Quote(e.S) + ")"
	case 'E':
		return "E"
	}
	if !e.Attrs {
		return "S{}"
	}
	tt := "nil"
	if e.HasTT {
		tt = strconv.Quote(e.TT)
	}
	return "S{attrs tt=" + tt + " conf=" + strconv.FormatFloat(e.Conf, 'g', -1, 64) + "}"
}

// event constructors for tables
func T(s string) ev { return ev{Kind: 'T', S: s} }
func K(s string) ev { return ev{Kind: 'K', S: s} }
func E() ev         { return ev{Kind: 'E'} }
func S0() ev        { return ev{Kind: 'S'} }

// SA is an attribute-form start; tt == "-" means thought_type absent.
func SA(tt string, conf float64) ev {
	e := ev{Kind: 'S', Attrs: true, Conf: conf}
	if tt != "-" {
		e.HasTT, e.TT = true, tt
	}
	return e
}

// recorder is a Sink that records coalesced events and checks the Sink
// contract (no empty slices, proper nesting).
type recorder struct {
	evs  []ev
	open bool
	err  string
	raw  int // number of sink calls
}

func (r *recorder) fail(msg string) {
	if r.err == "" {
		r.err = msg
	}
}

func (r *recorder) add(kind byte, p []byte) {
	r.raw++
	if len(p) == 0 {
		r.fail("empty " + string(kind) + " call")
	}
	if n := len(r.evs); n > 0 && r.evs[n-1].Kind == kind {
		r.evs[n-1].S += string(p)
		return
	}
	r.evs = append(r.evs, ev{Kind: kind, S: string(p)})
}

func (r *recorder) Text(p []byte) {
	if r.open {
		r.fail("Text inside a span")
	}
	r.add('T', p)
}

func (r *recorder) Thinking(p []byte) {
	if !r.open {
		r.fail("Thinking outside a span")
	}
	r.add('K', p)
}

func (r *recorder) ThinkingStart(m *Meta) {
	r.raw++
	if r.open {
		r.fail("nested ThinkingStart")
	}
	r.open = true
	e := ev{Kind: 'S', Attrs: m.Attrs}
	if m.Attrs {
		e.Conf = m.Confidence
		if m.ThoughtType != nil {
			e.HasTT, e.TT = true, string(m.ThoughtType)
		}
	} else if m.ThoughtType != nil || m.Confidence != 0 {
		r.fail("plain span with metadata")
	}
	r.evs = append(r.evs, e)
}

func (r *recorder) ThinkingEnd() {
	r.raw++
	if !r.open {
		r.fail("ThinkingEnd without span")
	}
	r.open = false
	r.evs = append(r.evs, ev{Kind: 'E'})
}

// parseSplits feeds input in the chunks given by lens (cycled; each length
// at least 1) and closes the parser.
func parseSplits(t testing.TB, opts Options, input string, next func() int) []ev {
	t.Helper()
	r := &recorder{}
	p := New(opts, r)
	b := []byte(input)
	for len(b) > 0 {
		n := min(max(next(), 1), len(b))
		// copy so that the parser cannot rely on the caller keeping chunks
		chunk := append([]byte(nil), b[:n]...)
		p.Write(chunk)
		for i := range chunk {
			chunk[i] = 0xFF
		}
		b = b[n:]
	}
	p.Close()
	if r.err != "" {
		t.Fatalf("sink contract violated: %s (input %q)", r.err, input)
	}
	if r.open {
		t.Fatalf("span left open after Close (input %q)", input)
	}
	return r.evs
}

func parseChunks(t testing.TB, opts Options, input string, n int) []ev {
	return parseSplits(t, opts, input, func() int { return n })
}

func evsString(evs []ev) string {
	var sb strings.Builder
	for i, e := range evs {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(e.String())
	}
	return sb.String()
}

func evsEqual(a, b []ev) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
