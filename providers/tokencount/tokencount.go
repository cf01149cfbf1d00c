// Package tokencount estimates a request's input tokens for upstreams
// without a counting endpoint (openai, amazonq): the upstream body as the
// gateway would send it, read with o200k_base, the BPE of OpenAI's current
// models (github.com/tiktoken-go/tokenizer, vocabulary compiled in), plus
// the framing Chat Completions adds around each message and tool.
//
// The framing is the one OpenAI's token-counting guide states for its
// o200k models (docs/providers/openai.md, "count_tokens"): 3 tokens per
// message, 1 more for a name, 3 priming the reply; a tool list costs 12
// tokens, each function 7 and the text "name:description", its properties
// 3 and each property 3 and "name:type:description", an enum -3 and each
// item 3 and its text. For other model families the BPE is not theirs and
// the count is an estimate.
package tokencount

import (
	"bytes"
	"sync"
	"unicode/utf8"

	"github.com/buger/jsonparser"
	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
)

// Framing of a Chat Completions prompt for the o200k models.
const (
	PerMessage = 3 // <|im_start|>role<|im_sep|> … <|im_end|>
	PerName    = 1 // a message's name
	ReplyPrime = 3 // <|im_start|>assistant<|im_sep|>

	perFunction = 7
	toolsEnd    = 12
	propsStart  = 3
	perProperty = 3
	enumStart   = -3
	perEnumItem = 3
)

// Fixed estimates for parts whose tokens depend on what the text does not
// show.
const (
	// Image is what one image is counted as: OpenAI's cost of a 1024×1024
	// image at high detail (85 + 4·170). The image is not decoded.
	Image = 765
	// File is what one file part (a PDF) is counted as beside the tokens
	// of nothing else: its text and pages are not read.
	File = 1500
)

var (
	o200k     *codec.Codec
	o200kOnce sync.Once
)

// Bounds on the work of one count. The BPE's cost grows with the square
// of a piece's length on some inputs (a long run of " \n" takes minutes
// whole), so text is counted in segments of at most maxSegment bytes, cut
// where the split expression cuts anyway (before a space between two
// letters) when the segment has such a place, else anywhere (a token more
// or less). Past MaxExactBytes of text in one request the rest is counted
// at the bytes-per-token the request's exact part showed.
const (
	maxSegment    = 512
	MaxExactBytes = 1 << 20
)

// Text returns the o200k tokens of s.
func Text(s []byte) int {
	o200kOnce.Do(func() { o200k = codec.NewO200kBase() })
	n := 0
	for len(s) > 0 {
		seg := s[:segmentEnd(s)]
		s = s[len(seg):]
		k, err := o200k.Count(string(seg))
		if err != nil {
			// The split expression failed: about four bytes to a token.
			k = (len(seg) + 3) / 4
		}
		n += k
	}
	return n
}

// segmentEnd is where the first segment of s ends: all of s when it is
// short, else the last place before maxSegment where the split expression
// starts a piece (a space between two ASCII letters), else a UTF-8
// boundary near maxSegment.
func segmentEnd(s []byte) int {
	if len(s) <= maxSegment {
		return len(s)
	}
	for i := maxSegment - 1; i > 0; i-- {
		if s[i] == ' ' && asciiLetter(s[i-1]) && asciiLetter(s[i+1]) {
			return i
		}
	}
	i := maxSegment
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	if i == 0 {
		return maxSegment
	}
	return i
}

func asciiLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// Counter sums a request's tokens. Its buffer holds one string decoded at
// a time.
type Counter struct {
	N   int
	buf []byte
	// exactBytes and exactTokens are the text counted exactly so far;
	// past MaxExactBytes the rest is counted at their ratio.
	exactBytes, exactTokens int
}

// text adds the tokens of s.
func (c *Counter) text(s []byte) {
	if len(s) == 0 {
		return
	}
	if room := MaxExactBytes - c.exactBytes; room > 0 {
		head := s[:min(len(s), room)]
		n := Text(head)
		c.exactBytes += len(head)
		c.exactTokens += n
		c.N += n
		s = s[len(head):]
	}
	if len(s) > 0 {
		c.N += (len(s)*c.exactTokens + c.exactBytes - 1) / c.exactBytes
	}
}

// Raw adds the tokens of a JSON string's raw body (between its quotes,
// still escaped).
func (c *Counter) Raw(raw []byte) {
	if bytes.IndexByte(raw, '\\') < 0 {
		c.text(raw)
		return
	}
	var err error
	c.buf, err = jsonbytes.AppendUnescaped(c.buf[:0], raw)
	if err != nil {
		c.text(raw)
		return
	}
	c.text(c.buf)
}

// Value adds the tokens of a JSON value as the model reads it: a string's
// text, anything else's compact JSON.
func (c *Counter) Value(v []byte, typ jsonparser.ValueType) {
	if typ == jsonparser.String {
		c.Raw(v)
		return
	}
	c.buf = jsonbytes.AppendCompact(c.buf[:0], v)
	c.text(c.buf)
}

// Function adds one function definition: its name, description and the
// JSON schema of its parameters.
func (c *Counter) Function(name, description, params []byte) {
	c.N += perFunction
	c.buf = append(c.buf[:0], name...)
	c.buf = append(c.buf, ':')
	c.buf = appendUnescaped(c.buf, bytes.TrimSuffix(description, []byte(".")))
	c.text(c.buf)
	c.properties(params, 0)
}

// ToolsEnd adds the framing of a non-empty tool list.
func (c *Counter) ToolsEnd() { c.N += toolsEnd }

// maxSchemaDepth bounds the nesting of properties counted one by one;
// deeper ones count as their JSON text.
const maxSchemaDepth = 8

// properties adds an object schema's properties, nested objects' and
// arrays' items' properties included.
func (c *Counter) properties(schema []byte, depth int) {
	props, typ, _, err := jsonparser.Get(schema, "properties")
	if err != nil || typ != jsonparser.Object || bytes.Equal(bytes.TrimSpace(props), []byte("{}")) {
		return
	}
	c.N += propsStart
	_ = jsonbytes.ScanObject(props, func(key, p []byte, ptyp jsonparser.ValueType, _ int) error {
		c.N += perProperty
		if ptyp != jsonparser.Object {
			c.Value(p, ptyp)
			return nil
		}
		if enum, etyp, _, err := jsonparser.Get(p, "enum"); err == nil && etyp == jsonparser.Array {
			c.N += enumStart
			_ = jsonbytes.ScanArray(enum, func(item []byte, ityp jsonparser.ValueType) {
				c.N += perEnumItem
				c.Value(item, ityp)
			})
		}
		c.buf = appendUnescaped(c.buf[:0], key)
		c.buf = append(c.buf, ':')
		if t, ttyp, _, err := jsonparser.Get(p, "type"); err == nil {
			if ttyp == jsonparser.String {
				c.buf = append(c.buf, t...)
			} else {
				c.buf = jsonbytes.AppendCompact(c.buf, t)
			}
		}
		c.buf = append(c.buf, ':')
		if d, dtyp, _, err := jsonparser.Get(p, "description"); err == nil && dtyp == jsonparser.String {
			c.buf = appendUnescaped(c.buf, bytes.TrimSuffix(d, []byte(".")))
		}
		c.text(c.buf)
		switch {
		case depth >= maxSchemaDepth:
			if _, _, _, err := jsonparser.Get(p, "properties"); err == nil {
				c.Value(p, ptyp)
			}
		default:
			c.properties(p, depth+1)
			if items, ityp, _, err := jsonparser.Get(p, "items"); err == nil && ityp == jsonparser.Object {
				c.properties(items, depth+1)
			}
		}
		return nil
	})
}

// appendUnescaped appends a JSON string's decoded text, or its raw bytes
// when they do not decode.
func appendUnescaped(dst, raw []byte) []byte {
	out, err := jsonbytes.AppendUnescaped(dst, raw)
	if err != nil {
		return append(dst, raw...)
	}
	return out
}
