package caddymodule

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
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

// firstBodyBuffer is the buffer a body of declared size starts in.
const firstBodyBuffer = 64 << 10

// readAllSized reads rd to its end. io.ReadAll grows its buffer by a
// quarter at a time once it is large: a 10 MB body was copied about a dozen
// times, and the buffers left behind doubled the heap the garbage collector
// had to reach before it ran. Here a declared Content-Length (size, already
// bounded by max_request_body) sets where growth stops: the buffer starts
// at 64 KiB and doubles until a quarter of size+1 has arrived, then takes
// size+1 at once (the extra byte sees the end without growing). A body is
// thus copied less than once over in all, the largest buffer left behind is a
// quarter to a half of it, and a client that declares a large body but
// sends little holds at most four times what it sent, never the declared
// size. A body of unknown length (size < 0) is read as io.ReadAll reads
// it.
func readAllSized(rd io.Reader, size int64) ([]byte, error) {
	if size < 0 {
		return io.ReadAll(rd)
	}
	end := int(size) + 1
	b := make([]byte, 0, min(end, firstBodyBuffer))
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
			// Past the declared size (a reader that does not stop at
			// Content-Length) the buffer keeps doubling.
			next := 2 * cap(b)
			if cap(b) < end && 4*cap(b) >= end {
				next = end // a quarter has arrived: the rest in one step
			} else if cap(b) < end {
				next = min(next, end)
			}
			grown := make([]byte, len(b), next)
			copy(grown, b)
			b = grown
		}
	}
}
