package providers

import (
	"errors"
	"reflect"
	"testing"
)

// heldPieces is a translator in miniature: pieces named by a string, one
// of them open, a call's fragment opening or closing it, and every event
// that goes out written down.
type heldPieces struct {
	open string // the call whose input streams, "" when none
	sent []string
	held HeldEvents[string]
}

func (p *heldPieces) waits(owner string) bool { return p.open != "" && p.open != owner }

// event delivers an event of owner: applied now unless another call
// streams. opens and closes say what it does to the open call.
func (p *heldPieces) event(t *testing.T, owner, name string, opens, closes bool) {
	t.Helper()
	apply := func() error {
		if opens {
			p.open = owner
		}
		p.sent = append(p.sent, name)
		if closes {
			p.open = ""
		}
		return nil
	}
	if p.waits(owner) {
		if !p.held.Hold(owner, len(name), apply) {
			t.Fatalf("%s: the queue is full", name)
		}
	} else if err := apply(); err != nil {
		t.Fatal(err)
	}
	if err := p.held.Release(p.waits, func() string { return p.open }); err != nil {
		t.Fatal(err)
	}
}

// TestHeldEventsReplayOrder: events of other pieces wait while a call
// streams, go in their order when it ends, and one that waited behind a
// call opened from the queue goes as soon as that call ends, before what
// arrives next.
func TestHeldEventsReplayOrder(t *testing.T) {
	var p heldPieces
	p.event(t, "c1", "c1 opens", true, false)
	p.event(t, "d", "d first", false, false)
	p.event(t, "c2", "c2 opens", true, false)
	p.event(t, "d", "d second", false, false)
	p.event(t, "c2", "c2 ends", false, true)
	if p.held.Len() != 4 || p.held.Bytes() != len("d firstc2 opensd secondc2 ends") {
		t.Fatalf("held %d events of %d bytes while c1 streams", p.held.Len(), p.held.Bytes())
	}
	p.event(t, "c1", "c1 ends", false, true)
	p.event(t, "d", "d third", false, false)
	want := []string{"c1 opens", "c1 ends", "d first", "c2 opens", "c2 ends", "d second", "d third"}
	if !reflect.DeepEqual(p.sent, want) {
		t.Fatalf("sent %q\nwant %q", p.sent, want)
	}
	if p.held.Len() != 0 || p.held.Bytes() != 0 || p.held.events != nil {
		t.Fatalf("%d events of %d bytes still held", p.held.Len(), p.held.Bytes())
	}
}

// TestHeldEventsBound: the queue takes events up to MaxHeld bytes and no
// byte more; an event refused is not held.
func TestHeldEventsBound(t *testing.T) {
	var q HeldEvents[int]
	nop := func() error { return nil }
	if !q.Hold(1, MaxHeld-1, nop) || !q.Hold(1, 1, nop) {
		t.Fatal("the queue refused events within MaxHeld")
	}
	if q.Hold(1, 1, nop) {
		t.Fatal("the queue took a byte past MaxHeld")
	}
	if q.Len() != 2 || q.Bytes() != MaxHeld {
		t.Fatalf("held %d events of %d bytes, want 2 of %d", q.Len(), q.Bytes(), MaxHeld)
	}
}

// TestHeldEventsReleaseError: an event that fails stops the release; the
// events after it stay held, in their order.
func TestHeldEventsReleaseError(t *testing.T) {
	var q HeldEvents[int]
	failed := errors.New("failed")
	var sent []int
	for i := range 3 {
		q.Hold(i, 1, func() error {
			sent = append(sent, i)
			if i == 1 {
				return failed
			}
			return nil
		})
	}
	never := func(int) bool { return false }
	open := func() int { return 0 }
	if err := q.Release(never, open); !errors.Is(err, failed) {
		t.Fatalf("Release: %v, want the event's error", err)
	}
	if q.Len() != 1 || q.Bytes() != 1 {
		t.Fatalf("%d events of %d bytes held after the error, want the last one", q.Len(), q.Bytes())
	}
	if err := q.Release(never, open); err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 2}; !reflect.DeepEqual(sent, want) {
		t.Fatalf("sent %v, want %v", sent, want)
	}
}
