package providertest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/golden"
	"github.com/thinkgate/thinkgate/internal/ssetest"
)

// Interleave is the kit of a provider's interleave tests
// (docs/thinking.md, "Items that interleave"): upstream answers whose
// pieces' events come in other orders, translated and compared with
// golden files or with the answer sent one piece after another.
type Interleave struct {
	// Detail is what the event lines show (ssetest.Summary).
	Detail ssetest.Detail
	// Run translates upstream in writes of n bytes, returning the client's
	// events and the stream's error; it fails t on anything else.
	Run func(t testing.TB, upstream []byte, n int) ([]byte, error)
}

// Golden translates upstream in writes of every size of ssetest.WriteSizes.
// The stream's error must hold wantErr ("": no error), the events must not
// depend on the write size, and testdata/interleave/<name>.golden holds
// them with the Message the SDK accumulates from them.
func (k Interleave) Golden(t *testing.T, name string, upstream []byte, wantErr string) {
	t.Helper()
	var first []byte
	firstN := 0
	for _, n := range ssetest.WriteSizes {
		out, err := k.Run(t, upstream, n)
		if wantErr == "" && err != nil || wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)) {
			t.Fatalf("writes of %d: error %v, want %q", n, err, wantErr)
		}
		out = ssetest.Coalesce(out)
		if first == nil {
			first, firstN = out, n
			lines, msg := Summary(t, out, k.Detail)
			js, _ := json.MarshalIndent(msg, "", "  ")
			golden.Bytes(t, "interleave/"+name+".golden", []byte(strings.Join(lines, "\n")+"\n\n"+string(js)+"\n"))
		} else if string(out) != string(first) {
			t.Fatalf("writes of %d change the output:\n%s\n--- writes of %d:\n%s", n, out, firstN, first)
		}
	}
}

// Message returns, as JSON, the Message the SDK accumulates from the
// client's events for upstream, which must translate without error.
func (k Interleave) Message(t testing.TB, upstream []byte) string {
	t.Helper()
	out, err := k.Run(t, upstream, 1<<20)
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	_, msg := Summary(t, out, k.Detail)
	js, _ := json.Marshal(msg)
	return string(js)
}

// Events returns the client's events for upstream, one per line, for a
// failure message.
func (k Interleave) Events(t testing.TB, upstream []byte) string {
	t.Helper()
	out, _ := k.Run(t, upstream, 1<<20)
	lines, _ := Summary(t, out, k.Detail)
	return strings.Join(lines, "\n")
}

// Alternate interleaves a and b, one element of each in turn.
func Alternate[E any](a, b []E) []E {
	out := make([]E, 0, len(a)+len(b))
	for i := 0; i < len(a) || i < len(b); i++ {
		if i < len(a) {
			out = append(out, a[i])
		}
		if i < len(b) {
			out = append(out, b[i])
		}
	}
	return out
}

// Piece is the events of one piece of an answer (an item, a content
// block), for InterleavedOrder.
type Piece[E any] struct {
	Events []E
	// Body counts the first events that must all go before a later
	// piece's events may come: a piece's stop may come past them.
	Body int
	// Call is set for a tool call: once it began, later pieces' events
	// may come between its fragments.
	Call bool
}

// InterleavedOrder returns the events of pieces in an order choice picks,
// one byte an event (past its end, the first that may go): each piece's
// own events keep their order, and an event of a piece may go once every
// piece before it sent its body or is a call that began. With no choice
// it is the pieces one after another.
func InterleavedOrder[E any](pieces []Piece[E], choice []byte) []E {
	next := make([]int, len(pieces)) // events of each piece sent
	var order []E
	for k := 0; ; k++ {
		var eligible []int
		for j, p := range pieces {
			if next[j] == len(p.Events) {
				continue
			}
			ok := true
			for i := range j {
				if next[i] < pieces[i].Body && !(pieces[i].Call && next[i] > 0) {
					ok = false
					break
				}
			}
			if ok {
				eligible = append(eligible, j)
			}
		}
		if len(eligible) == 0 {
			return order
		}
		j := eligible[0]
		if k < len(choice) {
			j = eligible[int(choice[k])%len(eligible)]
		}
		order = append(order, pieces[j].Events[next[j]])
		next[j]++
	}
}
