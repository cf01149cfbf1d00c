package caddymodule

import (
	"bytes"
	"errors"
	"io"
	"math/bits"
	"net/http"
	"sync"
)

// Request bodies of 64 KiB to 64 MiB — the client's, and the upstream's a
// provider writes — come from pools by size class and go back when the
// request is done with them. A fresh megabyte costs the runtime more than
// writing it: it is cleared, faulted in, and it brings the next garbage
// collection nearer; a converting gateway made two per request.
//
// The classes are four to a doubling (cap 1, 1.25, 1.5 or 1.75 times a
// power of two), so a buffer is at most a quarter larger than asked for.
// What the pools hold is bounded by sync.Pool: a buffer not taken again
// within two garbage collections is dropped. Only the bytes a request
// wrote into a buffer are read from it (providers.Exchange.NewBody), so
// what an earlier request left there is never sent.
const (
	minPooledBody = 64 << 10
	maxPooledBody = 64 << 20
)

var bodyClasses [bodyClassCount]sync.Pool

// bodyClassCount covers minPooledBody (2^16) to maxPooledBody (2^26), four
// classes a doubling.
const bodyClassCount = 4*(26-16) + 1

// bodyClass is the smallest class whose buffers hold n bytes, and their
// capacity; ok is false for sizes outside the pooled range.
func bodyClass(n int) (class, size int, ok bool) {
	if n < minPooledBody || n > maxPooledBody {
		return 0, 0, false
	}
	e := bits.Len(uint(n-1)) - 1 // 2^e <= n-1 < 2^(e+1)
	q := (n - 1) >> (e - 2)      // 4..7: the quarter of that doubling n-1 is in
	return 4*(e-16) + q - 3, (q + 1) << (e - 2), true
}

// bodyLease hands out the pooled buffers of one request and takes them
// back once the request is done with them: when its owner (the handler
// that read or wrote them) has returned and every reader of them handed to
// the upstream's transport has been closed. net/http's transports close a
// request body when they have finished with it, which may be after the
// round trip returns (an upstream that answers before reading it all). A
// reader that is never closed keeps the buffers from the pool, and the
// garbage collector has them instead.
type bodyLease struct {
	mu       sync.Mutex
	refs     int // the owner's, and one per open reader
	released bool
	bufs     []*[]byte
}

func newBodyLease() *bodyLease { return &bodyLease{refs: 1} }

// alloc returns an empty buffer with room for n bytes, pooled when n is in
// the pooled range and l is not nil.
func (l *bodyLease) alloc(n int) []byte {
	class, size, ok := bodyClass(n)
	if !ok || l == nil {
		return make([]byte, 0, n)
	}
	p, _ := bodyClasses[class].Get().(*[]byte)
	if p == nil {
		b := make([]byte, 0, size)
		p = &b
	}
	l.mu.Lock()
	l.bufs = append(l.bufs, p)
	l.mu.Unlock()
	return (*p)[:0]
}

// reader returns a reader of b (a buffer of the lease's, or any bytes) that
// holds the lease until it is closed, or nil once the lease is released.
func (l *bodyLease) reader(b []byte) io.ReadCloser {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released {
		return nil
	}
	l.refs++
	r := &leasedBody{lease: l}
	r.rd.Reset(b)
	return r
}

// done drops the owner's hold.
func (l *bodyLease) done() { l.drop() }

func (l *bodyLease) drop() {
	l.mu.Lock()
	l.refs--
	if l.refs > 0 || l.released {
		l.mu.Unlock()
		return
	}
	l.released = true
	bufs := l.bufs
	l.bufs = nil
	l.mu.Unlock()
	for _, p := range bufs {
		if class, size, ok := bodyClass(cap(*p)); ok && size == cap(*p) {
			*p = (*p)[:0]
			bodyClasses[class].Put(p)
		}
	}
}

// leasedBody is a request body read from a lease's buffer. Close may come
// from another goroutine than Read (HTTP/2's transport aborts a body's
// write that way), so the two are serialised, and a Read after Close
// reads nothing: the buffer may by then be another request's.
type leasedBody struct {
	mu     sync.Mutex
	rd     bytes.Reader
	lease  *bodyLease
	closed bool
}

func (b *leasedBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	return b.rd.Read(p)
}

func (b *leasedBody) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	b.rd.Reset(nil)
	b.mu.Unlock()
	b.lease.drop()
	return nil
}

// getBody is a GetBody for the bytes b of lease l: a fresh reader of them
// while the lease holds.
func (l *bodyLease) getBody(b []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		if r := l.reader(b); r != nil {
			return r, nil
		}
		return nil, errLeaseReleased
	}
}

var errLeaseReleased = errors.New("request body asked for after the request ended")
