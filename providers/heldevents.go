package providers

// MaxHeld bounds the bytes of other pieces' events a translator holds
// while a tool call's input streams (docs/thinking.md, "Items that
// interleave"): a peer that never ends the call cannot make the gateway
// keep the rest of the answer without limit.
const MaxHeld = 4 << 20

// HeldEvents is the queue of events that wait while a tool call's input
// streams: Anthropic's grammar has one open block at a time and a
// tool_use block's input is never cut, so the events of other pieces of
// the answer (items, content blocks, calls — the owner K) are held and
// replayed in their order once no call holds them back. The Responses,
// Bedrock Converse and Amazon Q translators share it.
//
// The zero value is an empty queue. What an apply function uses must be
// a copy: the decoders reuse their buffers.
type HeldEvents[K comparable] struct {
	events []heldEvent[K]
	size   int
}

type heldEvent[K comparable] struct {
	owner K
	size  int
	apply func() error
}

// Len returns how many events are held.
func (q *HeldEvents[K]) Len() int { return len(q.events) }

// Bytes returns the size of the held events, as their Hold calls gave it.
func (q *HeldEvents[K]) Bytes() int { return q.size }

// Hold queues apply, an event of owner of size bytes. It returns false,
// holding nothing, when the held events would pass MaxHeld; the
// translator then ends the answer with its own error.
func (q *HeldEvents[K]) Hold(owner K, size int, apply func() error) bool {
	if q.size+size > MaxHeld {
		return false
	}
	q.size += size
	q.events = append(q.events, heldEvent[K]{owner, size, apply})
	return true
}

// Release applies, in their order, the held events whose owner waits
// does not hold back. open names the piece whose block is open: when an
// event changes it, a call opened or ended, so the scan starts again from
// the first event (what the call held back may go now, and the events of
// a call that opens go first, as they would have had they come then).
// Release stops at the first error. Callers release after each upstream
// event, never from an event being applied.
func (q *HeldEvents[K]) Release(waits func(owner K) bool, open func() K) error {
	for i := 0; i < len(q.events); {
		h := q.events[i]
		if waits(h.owner) {
			i++
			continue
		}
		q.events = append(q.events[:i], q.events[i+1:]...)
		q.size -= h.size
		before := open()
		if err := h.apply(); err != nil {
			return err
		}
		if open() != before {
			i = 0
		}
	}
	if len(q.events) == 0 {
		q.events = nil // the backing array goes with the burst that needed it
	}
	return nil
}
