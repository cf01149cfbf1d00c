package caddymodule

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// readClientBody reads the client's body within limit bytes and timeout.
// The deadline is the connection's own (HTTP/1 and HTTP/2 support it),
// lifted once the body is in. After a failed read it stays, so that the
// server does not wait on the rest of a trickled body before closing the
// connection.
// The body's buffer comes from lease, if one is given.
func readClientBody(w http.ResponseWriter, r *http.Request, limit int64, timeout time.Duration, lease *bodyLease) ([]byte, error) {
	rc := http.NewResponseController(w)
	deadline := rc.SetReadDeadline(time.Now().Add(timeout)) == nil
	body, err := readAllSized(http.MaxBytesReader(w, r.Body, limit), min(r.ContentLength, limit), lease)
	if err == nil && deadline {
		_ = rc.SetReadDeadline(time.Time{})
	}
	return body, err
}

// bodyReadError is the client's answer to a failed read of its body: 413
// past the size limit, 408 past the time limit, else 400.
func bodyReadError(err error, timeout time.Duration) *wire.Error {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return &wire.Error{Status: http.StatusRequestEntityTooLarge, Type: "request_too_large",
			Message: fmt.Sprintf("request body exceeds the %d-byte limit", mbe.Limit)}
	case errors.Is(err, os.ErrDeadlineExceeded):
		var mt *matcherBodyTimeout
		if errors.As(err, &mt) {
			timeout = mt.timeout // the matcher's read gave up
		}
		return &wire.Error{Status: http.StatusRequestTimeout, Type: "timeout_error",
			Message: fmt.Sprintf("request body not received within %s (request_body_timeout)", timeout)}
	}
	return wire.InvalidRequest("reading request body: " + err.Error())
}

// bodyChunk is the size of the pieces a large body is read in.
const bodyChunk = 64 << 10

// bodyChunks holds the pieces between requests.
var bodyChunks = sync.Pool{New: func() any { return new([bodyChunk]byte) }}

// readAllSized reads rd to its end. A body declared smaller than a chunk
// is read straight into a buffer of its declared size (and one byte more,
// which sees the end without growing). A larger one is read into 64 KiB
// chunks from a pool until a quarter of its declared size has arrived;
// then the buffer for the whole is made, the chunks copied into it and
// given back, and the rest read straight into it. So a body is copied a
// quarter over, no buffer is grown and left behind, the pool holds at most
// a quarter of the largest body, and a client that declares a large body
// but sends little makes the gateway hold at most four times what it sent,
// never the declared size. A body of unknown length, or the part of one
// beyond its declared size, is read in chunks and joined once at the end
// (into a buffer that is not cleared first). The buffers for a large body
// come from lease when one is given (a pooled one is not cleared either).
func readAllSized(rd io.Reader, size int64, lease *bodyLease) ([]byte, error) {
	var pieces [][]byte
	switch {
	case size >= 0 && size < bodyChunk:
		b, err := readInto(rd, make([]byte, 0, size+1))
		if err != nil || len(b) < cap(b) {
			return b, err
		}
		pieces = append(pieces, b) // more than declared: the rest in chunks
	case size > 0:
		end := int(size) + 1
		chunks, n, err := readChunks(rd, end/4)
		if err != nil || n < end/4 {
			body := join(chunks, lease)
			putChunks(chunks)
			return body, eofIsEnd(err)
		}
		b := lease.alloc(end)
		for _, c := range chunks {
			b = append(b, c...)
		}
		putChunks(chunks)
		if b, err = readInto(rd, b); err != nil || len(b) < cap(b) {
			return b, err
		}
		pieces = append(pieces, b)
	}
	chunks, _, err := readChunks(rd, math.MaxInt)
	body := join(append(pieces, chunks...), lease)
	putChunks(chunks)
	return body, eofIsEnd(err)
}

// join joins pieces into one buffer from lease (bytes.Join when there is
// none: neither clears the buffer first).
func join(pieces [][]byte, lease *bodyLease) []byte {
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	if lease == nil || n < minPooledBody {
		return bytes.Join(pieces, nil)
	}
	b := lease.alloc(n)
	for _, p := range pieces {
		b = append(b, p...)
	}
	return b
}

// readInto reads rd into b's room until it is full, the end (nil error) or
// an error.
func readInto(rd io.Reader, b []byte) ([]byte, error) {
	for len(b) < cap(b) {
		n, err := rd.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			return b, eofIsEnd(err)
		}
	}
	return b, nil
}

// readChunks reads rd into chunks from the pool until at least limit bytes,
// the end (io.EOF) or an error, and returns the chunks' filled parts and
// how much they hold.
func readChunks(rd io.Reader, limit int) (chunks [][]byte, n int, err error) {
	for n < limit && err == nil {
		c := bodyChunks.Get().(*[bodyChunk]byte)
		k := 0
		for k < bodyChunk && err == nil {
			var r int
			r, err = rd.Read(c[k:])
			k += r
		}
		chunks = append(chunks, c[:k])
		n += k
	}
	return chunks, n, err
}

// putChunks gives chunks back to the pool.
func putChunks(chunks [][]byte) {
	for _, c := range chunks {
		bodyChunks.Put((*[bodyChunk]byte)(c[:bodyChunk]))
	}
}

func eofIsEnd(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}
