package tokencount

import (
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer/codec"
)

// TestTextSegmentsExact: counting in segments cut between words gives the
// BPE's count of the whole text.
func TestTextSegmentsExact(t *testing.T) {
	whole := codec.NewO200kBase()
	for _, s := range []string{
		strings.Repeat("The parser reads one block at a time, and keeps nothing per block. ", 200),
		strings.Repeat("func (p *Parser) Next() (Token, error) { return p.scan() }\n\tif err != nil {\n\t\treturn err\n\t}\n", 100),
		strings.Repeat("Unicode text: naïve café, 答案 😀 and more words here. ", 150),
	} {
		want, err := whole.Count(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := Text([]byte(s)); got != want {
			t.Errorf("Text of %d bytes = %d, the BPE's count of the whole is %d", len(s), got, want)
		}
	}
}

// TestCounterPastMaxExact: text past MaxExactBytes is counted at the
// ratio of the exact part: twice the text, twice the tokens.
func TestCounterPastMaxExact(t *testing.T) {
	s := []byte(strings.Repeat("The parser reads one block at a time. ", MaxExactBytes/38+1)[:MaxExactBytes])
	var one, two Counter
	one.text(s)
	two.text(s)
	two.text(s)
	if two.exactBytes != MaxExactBytes || two.N != 2*one.N {
		t.Errorf("exact bytes %d, tokens %d, want %d and %d", two.exactBytes, two.N, MaxExactBytes, 2*one.N)
	}
}

// TestSegmentEnd: a long run without a place between words is cut at a
// UTF-8 boundary.
func TestSegmentEnd(t *testing.T) {
	s := []byte(strings.Repeat("é", maxSegment))
	if end := segmentEnd(s); end != maxSegment || end%2 != 0 {
		t.Errorf("segmentEnd = %d", end)
	}
	s = []byte("x" + strings.Repeat("é", maxSegment))
	if end := segmentEnd(s); end != maxSegment-1 {
		t.Errorf("segmentEnd = %d, want %d", end, maxSegment-1)
	}
	s = []byte(strings.Repeat("word ", maxSegment))
	if end := segmentEnd(s); s[end] != ' ' || end > maxSegment {
		t.Errorf("segmentEnd = %d", end)
	}
}
