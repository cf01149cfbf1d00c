// Package thinkparse splits a streamed LLM answer into text and thinking
// spans marked with XML-like tags.
//
// Three tag forms are recognised (tag name "thinking" by default, see
// Options.Tags):
//
//	<thinking>content</thinking>                                  // form 1
//	<thinking thought="…" thought_type="…" confidence="0.7"></thinking> // form 2
//	<thinking thought="…" thought_type="…" confidence="0.9" />         // form 3
//
// Input may arrive in chunks of any size; the events delivered to the Sink
// (after merging consecutive Text or Thinking calls) are the same for every
// chunking. Output is byte-exact: every input byte that is not part of a
// recognised tag comes out unchanged, in order, as Text or Thinking. Only a
// suffix that could still become a tag is held back between Writes, never
// more than Options.MaxTagLen bytes.
//
// The parser does not allocate in the steady state and scans plain text with
// bytes.IndexByte, so it can sit on the hot path of a streaming proxy.
//
// docs/thinking.md ("Tag forms and edge cases") lists every edge-case
// decision.
package thinkparse

import (
	"errors"
	"strconv"
)

// Sink receives output. Byte slices are valid only during the call (they may
// alias the input or the parser's buffer). A Sink must not call back into the
// Parser that is calling it.
type Sink interface {
	Text(p []byte)         // answer text (never called with len(p)==0)
	ThinkingStart(m *Meta) // a thinking span opens; m valid only during the call
	Thinking(p []byte)     // thinking text of the open span (never empty)
	ThinkingEnd()          // the open span closes
}

// Meta describes a thinking span. Attrs is false for the plain
// <thinking>…</thinking> form.
type Meta struct {
	Attrs       bool    // span came from an attribute form (format 2 or 3)
	ThoughtType []byte  // thought_type attribute, nil if absent
	Confidence  float64 // confidence attribute; 0.5 when absent or not a number (only meaningful when Attrs)
}

// Options configure a Parser. The zero value is valid.
type Options struct {
	Tags              []string // tag names, default []string{"thinking"}; case-sensitive, exact. e.g. {"thinking","think"}
	MaxTagLen         int      // longest opening tag (with attributes) buffered before giving up and releasing it as text; default 64<<10
	StartInThinking   bool     // the prompt template already opened the span: output starts inside thinking
	ParseInCodeFences bool     // default false: tags inside fenced code blocks in answer text are text
}

// DefaultMaxTagLen is the MaxTagLen used when Options.MaxTagLen is 0.
const DefaultMaxTagLen = 64 << 10

// Validate reports whether o can be used with New: every tag name must be
// non-empty and consist only of [A-Za-z0-9_:.-], and MaxTagLen must not be
// negative.
func (o Options) Validate() error {
	if o.MaxTagLen < 0 {
		return errors.New("thinkparse: MaxTagLen must be >= 0, got " + strconv.Itoa(o.MaxTagLen))
	}
	for i, t := range o.Tags {
		if t == "" {
			return errors.New("thinkparse: Tags[" + strconv.Itoa(i) + "] is empty")
		}
		for j := 0; j < len(t); j++ {
			if charClass[t[j]]&cName == 0 {
				return errors.New("thinkparse: Tags[" + strconv.Itoa(i) + "] " + strconv.Quote(t) +
					" has a character outside [A-Za-z0-9_:.-]")
			}
		}
	}
	return nil
}

type mode uint8

const (
	modeText     mode = iota // answer text
	modeThinking             // inside a span (ThinkingStart delivered)
	modeLead                 // StartInThinking, nothing decided yet
)

// Parser is a streaming tag parser. It is not safe for concurrent use.
type Parser struct {
	sink Sink

	// configuration (fixed after New)
	tags            []string
	maxName         int  // longest tag name
	maxTag          int  // effective MaxTagLen
	fences          bool // track code fences in text
	startInThinking bool
	tagFirst        [256]bool // first bytes of tag names

	// state
	mode    mode
	spanIdx int  // index of the open span's tag name, -1: any name closes it
	held    bool // a candidate tag is in progress, its bytes are in buf
	closed  bool
	ts      tagScan
	fence   fenceState
	buf     []byte // held candidate bytes
	dec     []byte // entity-decoding scratch
	meta    Meta
}

// New returns a Parser writing to sink. It panics if opts.Validate() fails;
// validate configuration up front.
func New(opts Options, sink Sink) *Parser {
	if err := opts.Validate(); err != nil {
		panic(err)
	}
	p := &Parser{
		startInThinking: opts.StartInThinking,
		fences:          !opts.ParseInCodeFences,
	}
	if len(opts.Tags) == 0 {
		p.tags = []string{"thinking"}
	} else {
		p.tags = append([]string(nil), opts.Tags...)
	}
	for _, t := range p.tags {
		p.maxName = max(p.maxName, len(t))
		p.tagFirst[t[0]] = true
	}
	p.maxTag = opts.MaxTagLen
	if p.maxTag == 0 {
		p.maxTag = DefaultMaxTagLen
	}
	// Every plain form must fit: "</" + name + ">".
	p.maxTag = max(p.maxTag, p.maxName+3)
	p.ts.name = make([]byte, 0, p.maxName)
	p.buf = make([]byte, 0, 256)
	p.dec = make([]byte, 0, 256)
	p.Reset(sink)
	return p
}

// Reset prepares p for a new stream written to sink, keeping its buffers.
func (p *Parser) Reset(sink Sink) {
	p.sink = sink
	p.mode = modeText
	if p.startInThinking {
		p.mode = modeLead
	}
	p.spanIdx = -1
	p.held = false
	p.closed = false
	p.fence = fenceState{}
	p.buf = p.buf[:0]
	p.meta = Meta{}
}

// InThinking reports whether a span is open right now, that is whether
// ThinkingStart has been delivered and ThinkingEnd has not. (With
// StartInThinking, the implicit span only counts as open once ThinkingStart
// has been delivered, which happens lazily.)
func (p *Parser) InThinking() bool { return p.mode == modeThinking }

// Write feeds the next chunk of the stream. Everything that can no longer be
// part of a tag is delivered to the sink before Write returns. Write after
// Close is ignored until Reset.
func (p *Parser) Write(b []byte) {
	if p.closed {
		return
	}
	for len(b) > 0 {
		if p.held {
			n, r := p.scan(b)
			p.buf = append(p.buf, b[:n]...)
			b = b[n:]
			switch r {
			case resMore:
				return
			case resDone:
				p.held = false
				p.onTag(p.buf)
			default: // resFail, resOverflow
				p.held = false
				p.release(p.buf)
			}
			p.buf = p.buf[:0]
			continue
		}
		switch p.mode {
		case modeText:
			b = p.writeText(b)
		case modeThinking:
			b = p.writeThinking(b)
		default:
			b = p.writeLead(b)
		}
	}
}

// Close ends the stream: held-back bytes are delivered (as Text in text
// state, as Thinking inside a span) and an open span is closed. Close is
// idempotent; Reset makes the parser usable again.
func (p *Parser) Close() {
	if p.closed {
		return
	}
	if p.held {
		p.held = false
		p.release(p.buf)
		p.buf = p.buf[:0]
	}
	if p.mode == modeThinking {
		p.mode = modeText
		p.sink.ThinkingEnd()
	}
	p.closed = true
}

// writeText scans answer text. It returns the unconsumed rest of b when the
// mode changed or a tag was consumed, nil when all of b was handled.
func (p *Parser) writeText(b []byte) []byte {
	start, fed, i := 0, 0, 0
	for {
		j := indexLT(b[i:])
		if j < 0 {
			break
		}
		k := i + j
		if k+1 < len(b) && b[k+1] != '/' && !p.tagFirst[b[k+1]] {
			i = k + 1 // cannot be a tag: plain text
			continue
		}
		if p.fences {
			p.fence.feed(b[fed:k])
			fed = k
			if p.fence.in {
				i = k + 1
				continue
			}
		}
		p.ts.begin(stStart, false, -1)
		n, r := p.scan(b[k:])
		switch r {
		case resDone:
			p.text(b[start:k])
			p.onTag(b[k : k+n])
			return b[k+n:]
		case resMore:
			p.text(b[start:k])
			p.hold(b[k:])
			return nil
		default:
			i = k + n // released bytes stay in the pending text run
		}
	}
	if p.fences {
		p.fence.feed(b[fed:])
	}
	p.text(b[start:])
	return nil
}

// writeThinking scans the content of an open span for its closing tag.
func (p *Parser) writeThinking(b []byte) []byte {
	start, i := 0, 0
	for {
		j := indexLT(b[i:])
		if j < 0 {
			break
		}
		k := i + j
		if k+1 < len(b) && b[k+1] != '/' {
			i = k + 1
			continue
		}
		p.ts.begin(stStart, true, p.spanIdx)
		n, r := p.scan(b[k:])
		switch r {
		case resDone:
			p.thinking(b[start:k])
			p.onTag(b[k : k+n])
			return b[k+n:]
		case resMore:
			p.thinking(b[start:k])
			p.hold(b[k:])
			return nil
		default:
			i = k + n
		}
	}
	p.thinking(b[start:])
	return nil
}

// writeLead handles the start of a StartInThinking stream: optional
// whitespace and an opening tag are consumed as the span's opener, anything
// else starts the implicit span.
func (p *Parser) writeLead(b []byte) []byte {
	p.ts.begin(stLead, false, -1)
	n, r := p.scan(b)
	switch r {
	case resDone:
		p.onTag(b[:n])
	case resMore:
		p.hold(b)
		return nil
	default:
		p.release(b[:n])
	}
	return b[n:]
}

func (p *Parser) hold(b []byte) {
	p.buf = append(p.buf[:0], b...)
	p.held = true
}

// release delivers the bytes of a candidate that turned out not to be a tag
// as content of the current state.
func (p *Parser) release(b []byte) {
	switch p.mode {
	case modeText:
		if p.fences {
			p.fence.feed(b)
		}
		p.text(b)
	case modeThinking:
		p.thinking(b)
	default:
		p.startImplicit()
		p.thinking(b)
	}
}

func (p *Parser) startImplicit() {
	p.mode = modeThinking
	p.spanIdx = -1
	p.meta = Meta{}
	p.sink.ThinkingStart(&p.meta)
}

func (p *Parser) text(b []byte) {
	if len(b) > 0 {
		p.sink.Text(b)
	}
}

func (p *Parser) thinking(b []byte) {
	if len(b) > 0 {
		p.sink.Thinking(b)
	}
}

// onTag acts on a complete tag (tag holds the candidate bytes, including
// leading whitespace in lead mode).
func (p *Parser) onTag(tag []byte) {
	s := &p.ts
	switch p.mode {
	case modeThinking:
		p.mode = modeText
		p.spanIdx = -1
		p.sink.ThinkingEnd()
	case modeText:
		if s.kind != kindClose {
			p.openSpan(tag)
		} // an orphan closing tag is dropped
	default: // modeLead
		if s.kind != kindClose {
			p.openSpan(tag[s.lt:]) // leading whitespace is dropped
			return
		}
		p.startImplicit()
		p.thinking(tag[:s.lt])
		p.mode = modeText
		p.sink.ThinkingEnd()
	}
}

// openSpan delivers the start of the span for an opening or self-closing tag.
func (p *Parser) openSpan(tag []byte) {
	s := &p.ts
	p.meta = Meta{}
	if s.kind == kindOpen && s.attrs == 0 {
		p.mode = modeThinking
		p.spanIdx = s.nameIdx
		p.sink.ThinkingStart(&p.meta)
		return
	}
	a := parseAttrs(tag)
	p.meta.Attrs = true
	p.meta.Confidence = 0.5
	if a.hasConf {
		p.dec = appendDecoded(p.dec[:0], a.conf)
		p.meta.Confidence = parseConfidence(p.dec)
	}
	if a.hasType {
		p.meta.ThoughtType = p.decode(a.ttype)
	}
	p.mode = modeThinking
	p.spanIdx = s.nameIdx
	p.sink.ThinkingStart(&p.meta)
	p.meta.ThoughtType = nil
	if len(a.thought) > 0 {
		p.thinking(p.decode(a.thought))
	}
	if s.kind == kindSelfClose {
		p.mode = modeText
		p.spanIdx = -1
		p.sink.ThinkingEnd()
	}
}

// decode returns v with entities decoded, aliasing v when it has none.
func (p *Parser) decode(v []byte) []byte {
	if indexAmp(v) < 0 {
		return v
	}
	p.dec = appendDecoded(p.dec[:0], v)
	return p.dec
}
