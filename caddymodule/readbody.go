package caddymodule

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/thinkgate/thinkgate/providers"
)

// readClientBody reads the client's body within limit bytes and timeout.
// The deadline is the connection's own (HTTP/1 and HTTP/2 support it),
// lifted once the body is in. After a failed read it stays, so that the
// server does not wait on the rest of a trickled body before closing the
// connection.
func readClientBody(w http.ResponseWriter, r *http.Request, limit int64, timeout time.Duration) ([]byte, error) {
	rc := http.NewResponseController(w)
	deadline := rc.SetReadDeadline(time.Now().Add(timeout)) == nil
	body, err := readAllSized(http.MaxBytesReader(w, r.Body, limit), min(r.ContentLength, limit))
	if err == nil && deadline {
		_ = rc.SetReadDeadline(time.Time{})
	}
	return body, err
}

// bodyReadError is the client's answer to a failed read of its body: 413
// past the size limit, 408 past the time limit, else 400.
func bodyReadError(err error, timeout time.Duration) *providers.Error {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return &providers.Error{Status: http.StatusRequestEntityTooLarge, Type: "request_too_large",
			Message: fmt.Sprintf("request body exceeds the %d-byte limit", mbe.Limit)}
	case errors.Is(err, os.ErrDeadlineExceeded):
		return &providers.Error{Status: http.StatusRequestTimeout, Type: "timeout_error",
			Message: fmt.Sprintf("request body not received within %s (request_body_timeout)", timeout)}
	}
	return providers.InvalidRequest("reading request body: " + err.Error())
}

// bodyChunk is the size of the pieces a large body is read in.
const bodyChunk = 64 << 10

// bodyChunks holds the pieces between requests.
var bodyChunks = sync.Pool{New: func() any { return new([bodyChunk]byte) }}

// readAllSized reads rd to its end. A body declared smaller than a chunk
// is read straight into a buffer of its declared size (and one byte more,
// which sees the end without growing). A larger one, or one of unknown
// length, is read into 64 KiB chunks from a pool and then joined into one
// buffer of exactly its length, which bytes.Join does not clear first. So
// the body is copied once, no buffer is grown and left behind, the memory
// a large body passes through is the pool's (reused, not cleared or
// faulted in afresh for every request), and what a client makes the
// gateway hold is what it sent, never what it declared.
func readAllSized(rd io.Reader, size int64) ([]byte, error) {
	var pieces [][]byte
	if size >= 0 && size < bodyChunk {
		b := make([]byte, 0, size+1)
		for {
			n, err := rd.Read(b[len(b):cap(b)])
			b = b[:len(b)+n]
			if err == io.EOF {
				return b, nil
			}
			if err != nil {
				return b, err
			}
			if len(b) == cap(b) {
				break // more than declared: the rest in chunks
			}
		}
		pieces = append(pieces, b)
	} else if size > 0 {
		pieces = make([][]byte, 0, size/bodyChunk+2)
	}
	var held []*[bodyChunk]byte
	defer func() {
		for _, c := range held {
			bodyChunks.Put(c)
		}
	}()
	for {
		c := bodyChunks.Get().(*[bodyChunk]byte)
		held = append(held, c)
		n := 0
		var err error
		for n < bodyChunk && err == nil {
			var k int
			k, err = rd.Read(c[n:])
			n += k
		}
		pieces = append(pieces, c[:n])
		if err != nil {
			body := bytes.Join(pieces, nil)
			if err == io.EOF {
				err = nil
			}
			return body, err
		}
	}
}
