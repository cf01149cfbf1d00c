package caddymodule

import (
	"errors"
	"io"
	"net/http"
	"testing"
)

// TestBodyClass: a class's buffers hold what was asked for and at most a
// quarter more; each class size is its own class; sizes outside 64 KiB to
// 64 MiB are not pooled.
func TestBodyClass(t *testing.T) {
	prev := -1
	for n := minPooledBody; n <= maxPooledBody; n += 1 + n/97 {
		class, size, ok := bodyClass(n)
		if !ok || size < n || size > n+n/4+1 || class < prev || class >= bodyClassCount {
			t.Fatalf("bodyClass(%d) = %d, %d, %v", n, class, size, ok)
		}
		if c, s, _ := bodyClass(size); c != class || s != size {
			t.Fatalf("bodyClass(%d) = %d, %d; its size %d is class %d, %d", n, class, size, size, c, s)
		}
		prev = class
	}
	for _, c := range []struct{ n, class, size int }{
		{64 << 10, 0, 64 << 10},
		{64<<10 + 1, 1, 80 << 10},
		{1 << 20, 16, 1 << 20},
		{1<<20 + 1, 17, 1280 << 10},
		{64 << 20, bodyClassCount - 1, 64 << 20},
	} {
		if class, size, ok := bodyClass(c.n); !ok || class != c.class || size != c.size {
			t.Errorf("bodyClass(%d) = %d, %d, %v; want %d, %d", c.n, class, size, ok, c.class, c.size)
		}
	}
	for _, n := range []int{0, minPooledBody - 1, maxPooledBody + 1} {
		if _, _, ok := bodyClass(n); ok {
			t.Errorf("bodyClass(%d) is pooled", n)
		}
	}
}

// TestBodyLease: a lease's buffers go back only when its owner is done and
// every reader is closed; a closed reader reads nothing more, and a
// released lease hands out no reader.
func TestBodyLease(t *testing.T) {
	l := newBodyLease()
	b := append(l.alloc(100<<10), "the body"...)
	r1 := l.reader(b)
	getBody := l.getBody(b)
	r2, err := getBody()
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(r1); string(got) != "the body" {
		t.Fatalf("read %q", got)
	}
	l.done()
	if l.released {
		t.Fatal("released with two readers open")
	}
	_ = r1.Close()
	_ = r1.Close() // a second close drops nothing more
	if l.released {
		t.Fatal("released with a reader open")
	}
	if n, err := r1.Read(make([]byte, 8)); n != 0 || !errors.Is(err, http.ErrBodyReadAfterClose) {
		t.Fatalf("read after close: %d, %v", n, err)
	}
	_ = r2.Close()
	if !l.released || len(l.bufs) != 0 {
		t.Fatal("not released when the owner and both readers were done")
	}
	if r, err := getBody(); r != nil || err == nil {
		t.Fatalf("GetBody after release: %v, %v", r, err)
	}
}

// TestBodyLeaseReuses: a released buffer is the next lease's of its class,
// handed out empty. (The race detector's pool drops a quarter of what it is
// given, so a few rounds are allowed.)
func TestBodyLeaseReuses(t *testing.T) {
	for range 20 {
		l := newBodyLease()
		b := append(l.alloc(1<<20), "first"...)
		l.done()
		next := newBodyLease()
		c := next.alloc(1<<20 - 5)
		if len(c) != 0 || cap(c) != 1<<20 {
			t.Fatalf("alloc: len %d cap %d", len(c), cap(c))
		}
		if &c[:1][0] == &b[0] {
			return
		}
		next.done()
	}
	t.Error("a released buffer was never taken again")
}

// TestBodyLeaseOutsideThePool: sizes outside the pooled range and a nil
// lease get plain buffers, which a release leaves alone.
func TestBodyLeaseOutsideThePool(t *testing.T) {
	var none *bodyLease
	if b := none.alloc(1 << 20); len(b) != 0 || cap(b) != 1<<20 {
		t.Errorf("nil lease: len %d cap %d", len(b), cap(b))
	}
	l := newBodyLease()
	if b := l.alloc(1000); cap(b) != 1000 || len(l.bufs) != 0 {
		t.Errorf("small: cap %d, %d pooled", cap(b), len(l.bufs))
	}
	l.done()
}
