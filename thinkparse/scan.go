package thinkparse

import "bytes"

// character classes
const (
	cName  = 1 << iota // [A-Za-z0-9_:.-]
	cSpace             // ' ', '\t', '\n', '\r'
)

var charClass = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] |= cName
		t[c-'a'+'A'] |= cName
	}
	for c := '0'; c <= '9'; c++ {
		t[c] |= cName
	}
	for _, c := range "_:.-" {
		t[c] |= cName
	}
	for _, c := range " \t\n\r" {
		t[c] |= cSpace
	}
	return t
}()

func isName(c byte) bool  { return charClass[c]&cName != 0 }
func isSpace(c byte) bool { return charClass[c]&cSpace != 0 }

func indexLT(b []byte) int  { return bytes.IndexByte(b, '<') }
func indexAmp(b []byte) int { return bytes.IndexByte(b, '&') }

// scanner states
const (
	stStart      uint8 = iota // expects '<'
	stLead                    // leading whitespace of a StartInThinking stream, then '<'
	stLT                      // after '<'
	stOpenName                // in the name of an opening tag
	stOpenWS                  // after whitespace inside an opening tag
	stAfterValue              // right after an attribute value's closing quote
	stAttrName                // in an attribute name
	stAttrNameWS              // whitespace between attribute name and '='
	stEq                      // after '=' (and optional whitespace)
	stValue                   // inside a quoted attribute value
	stSlash                   // after '/' in an opening tag: expects '>'
	stClose0                  // after "</"
	stCloseName               // in the name of a closing tag
	stCloseWS                 // whitespace after the name of a closing tag
)

// scan results
const (
	resMore     uint8 = iota // all input consumed, tag still incomplete
	resDone                  // a complete tag was consumed
	resFail                  // not a tag: the byte at the returned offset does not fit
	resOverflow              // MaxTagLen bytes consumed without completing a tag
)

// tag kinds
const (
	kindOpen uint8 = iota
	kindSelfClose
	kindClose
)

// tagScan is the resumable state of the candidate tag being scanned. It only
// runs on bytes from a '<' on, so plain text never goes through it.
type tagScan struct {
	st        uint8
	kind      uint8
	quote     byte
	closeOnly bool   // only a closing tag is acceptable (inside a span)
	want      int    // closeOnly: tag index that must match, -1 for any
	n         int    // bytes consumed by the candidate so far
	lt        int    // offset of '<' in the candidate (>0 only after leading whitespace)
	attrs     int    // attributes seen
	nameIdx   int    // index of the matched tag name
	cand      int    // index of a tag name that name is a prefix of
	name      []byte // tag name so far; cap is the longest tag name
}

func (s *tagScan) begin(st uint8, closeOnly bool, want int) {
	s.st = st
	s.closeOnly = closeOnly
	s.want = want
	s.n = 0
	s.lt = 0
	s.attrs = 0
	s.name = s.name[:0]
}

// pushName appends c to the tag name and reports whether the name is still a
// prefix of an acceptable tag name. s.cand remembers one tag the name is a
// prefix of, so the common case checks a single byte.
func (p *Parser) pushName(c byte) bool {
	s := &p.ts
	n := len(s.name)
	if n >= p.maxName {
		return false
	}
	if n > 0 || s.want >= 0 {
		if n == 0 {
			s.cand = s.want
		}
		if t := p.tags[s.cand]; len(t) > n && t[n] == c {
			s.name = append(s.name, c)
			return true
		}
		if s.want >= 0 {
			return false
		}
	}
	s.name = append(s.name, c)
	for i, t := range p.tags {
		if len(t) > n && t[:n+1] == string(s.name) {
			s.cand = i
			return true
		}
	}
	s.name = s.name[:n]
	return false
}

// wholeName is the fast path for a tag name that is entirely in d: if d
// starts with an acceptable tag name followed by a byte that is not a name
// character, it sets s.name and s.cand and reports true. The caller then
// consumes len(s.name) bytes.
func (p *Parser) wholeName(d []byte) bool {
	s := &p.ts
	for i, t := range p.tags {
		if s.want >= 0 && i != s.want {
			continue
		}
		if len(d) > len(t) && !isName(d[len(t)]) && string(d[:len(t)]) == t &&
			s.n+len(t) < p.maxTag {
			s.name = append(s.name[:0], t...)
			s.cand = i
			return true
		}
	}
	return false
}

// matchName returns the index of the tag name equal to the scanned name, or -1.
func (p *Parser) matchName() int {
	s := &p.ts
	if len(s.name) == 0 {
		return -1
	}
	if len(p.tags[s.cand]) == len(s.name) {
		return s.cand // s.name is a prefix of it
	}
	if s.want >= 0 {
		return -1
	}
	for i, t := range p.tags {
		if t == string(s.name) {
			return i
		}
	}
	return -1
}

// scan continues the candidate tag over d. It returns how many bytes of d it
// consumed and the outcome. On resFail the byte d[n] is the one that does not
// fit; it is not consumed.
func (p *Parser) scan(d []byte) (int, uint8) {
	s := &p.ts
	i := 0
	for i < len(d) {
		c := d[i]
		done := false
		switch s.st {
		case stStart:
			s.st = stLT // caller guarantees c == '<'
		case stLead:
			if c == '<' {
				s.lt = s.n
				s.st = stLT
			} else if !isSpace(c) {
				return i, resFail
			}
		case stLT:
			switch {
			case c == '/':
				s.st = stClose0
			case !s.closeOnly && p.wholeName(d[i:]):
				s.st = stOpenName
				i += len(s.name)
				s.n += len(s.name)
				continue
			case !s.closeOnly && isName(c) && p.pushName(c):
				s.st = stOpenName
			default:
				return i, resFail
			}
		case stOpenName:
			if isName(c) {
				if !p.pushName(c) {
					return i, resFail
				}
				break
			}
			idx := p.matchName()
			if idx < 0 {
				return i, resFail
			}
			s.nameIdx = idx
			switch {
			case c == '>':
				s.kind = kindOpen
				done = true
			case isSpace(c):
				s.st = stOpenWS
			case c == '/':
				s.st = stSlash
			default:
				return i, resFail
			}
		case stOpenWS:
			switch {
			case isSpace(c):
			case c == '>':
				s.kind = kindOpen
				done = true
			case c == '/':
				s.st = stSlash
			case isName(c):
				s.st = stAttrName
				s.attrs++
			default:
				return i, resFail
			}
		case stAfterValue:
			switch {
			case isSpace(c):
				s.st = stOpenWS
			case c == '>':
				s.kind = kindOpen
				done = true
			case c == '/':
				s.st = stSlash
			default:
				return i, resFail
			}
		case stAttrName:
			switch {
			case isName(c):
			case isSpace(c):
				s.st = stAttrNameWS
			case c == '=':
				s.st = stEq
			default:
				return i, resFail
			}
		case stAttrNameWS:
			switch {
			case isSpace(c):
			case c == '=':
				s.st = stEq
			default:
				return i, resFail
			}
		case stEq:
			switch {
			case isSpace(c):
			case c == '"' || c == '\'':
				s.quote = c
				s.st = stValue
			default:
				return i, resFail
			}
		case stValue:
			// Bulk-consume up to the closing quote, never past MaxTagLen.
			seg := d[i:]
			if rem := p.maxTag - s.n; len(seg) > rem {
				seg = seg[:rem]
			}
			j := bytes.IndexByte(seg, s.quote)
			if j < 0 {
				i += len(seg)
				s.n += len(seg)
				if s.n >= p.maxTag {
					return i, resOverflow
				}
				return i, resMore
			}
			i += j + 1
			s.n += j + 1
			s.st = stAfterValue
			if s.n >= p.maxTag {
				return i, resOverflow
			}
			continue
		case stSlash:
			if c != '>' {
				return i, resFail
			}
			s.kind = kindSelfClose
			done = true
		case stClose0:
			if p.wholeName(d[i:]) {
				s.st = stCloseName
				i += len(s.name)
				s.n += len(s.name)
				continue
			}
			if !isName(c) || !p.pushName(c) {
				return i, resFail
			}
			s.st = stCloseName
		case stCloseName:
			if isName(c) {
				if !p.pushName(c) {
					return i, resFail
				}
				break
			}
			idx := p.matchName()
			if idx < 0 {
				return i, resFail
			}
			s.nameIdx = idx
			switch {
			case c == '>':
				s.kind = kindClose
				done = true
			case isSpace(c):
				s.st = stCloseWS
			default:
				return i, resFail
			}
		case stCloseWS:
			switch {
			case isSpace(c):
			case c == '>':
				s.kind = kindClose
				done = true
			default:
				return i, resFail
			}
		}
		i++
		s.n++
		if done {
			return i, resDone
		}
		if s.n >= p.maxTag {
			return i, resOverflow
		}
	}
	return i, resMore
}
