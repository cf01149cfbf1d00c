package caddymodule

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// ParsedRequest is a Messages request's body, read once within a bound,
// and its parse. The first thinkgate matcher to look at a request makes
// it; later matchers and the thinkgate handler that converts the request
// take it instead of reading and parsing the body again.
//
// It rides in the request's variables (caddyhttp.GetVar) under
// ParsedRequestVar: a matcher cannot give the request a new context, but
// it can fill the variable table the context already carries.
type ParsedRequest struct {
	// Body is the client's body as received; on a read error, what was
	// read before it.
	Body []byte
	// Request is the parse; nil when ReadErr or ParseErr is set.
	Request *wire.Request
	// ReadErr is the error that ended the read: *http.MaxBytesError past
	// the bound, or the connection's.
	ReadErr error
	// ParseErr is the parse's error (wire.ScanRequest's, which are
	// ParseRequest's), an invalid_request_error.
	ParseErr error

	stats *requestStats // made on first use
}

// ParsedRequestVar is the request variable holding the *ParsedRequest of
// the request's body.
const ParsedRequestVar = "thinkgate.parsed_request"

// replayBody is the request body a ParsedRequest leaves in place: the same
// bytes again for whoever reads the body next (reverse_proxy, say), or the
// read error again. Its identity tells that the body is still the one parsed.
type replayBody struct {
	*bytes.Reader
	err    error
	parsed *ParsedRequest
}

func (b *replayBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	return b.Reader.Read(p)
}

func (*replayBody) Close() error { return nil }

// ParsedRequestOf returns the parse of r's body, if a thinkgate matcher or
// handler made one and the body is still that one, unread: a handler that
// replaced or read it in between (request_body, a previous thinkgate
// conversion) leaves nothing to take.
func ParsedRequestOf(r *http.Request) *ParsedRequest {
	p, _ := caddyhttp.GetVar(r.Context(), ParsedRequestVar).(*ParsedRequest)
	if p == nil {
		return nil
	}
	rb, ok := r.Body.(*replayBody)
	if !ok || rb.parsed != p || rb.Reader.Len() != len(p.Body) {
		return nil
	}
	return p
}

// Replay sets r's body to the client's body again, so that the next
// thinkgate matcher or handler takes it without reading (a retry of the
// same client request after a handler replaced the body, say). The parse
// is dropped and made again on first use: a handler's provider edits the
// parsed request as it converts it.
func (p *ParsedRequest) Replay(r *http.Request) {
	if p.ReadErr == nil {
		p.Request, p.ParseErr, p.stats = nil, nil, nil
	}
	p.install(r)
}

// install makes r's body a replay of the client's body.
func (p *ParsedRequest) install(r *http.Request) {
	body := p.Body
	r.Body = &replayBody{Reader: bytes.NewReader(body), err: p.ReadErr, parsed: p}
	if p.ReadErr != nil {
		r.GetBody = nil
		return
	}
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	r.ContentLength = int64(len(body))
	r.TransferEncoding = nil
}

// parseBody reads r's body within limit and timeout and parses it, once:
// the result is kept in r's variables and r's body becomes its replay.
func parseBody(r *http.Request, limit int64, timeout time.Duration) *ParsedRequest {
	if p := ParsedRequestOf(r); p != nil {
		_, _ = p.parse()
		return p
	}
	p := new(ParsedRequest)
	if r.Body != nil {
		// A nil ResponseWriter: past the limit the read fails without
		// telling the server; the handler answers the 413.
		p.Body, p.ReadErr = readWithin(r, limit, timeout)
	}
	_, _ = p.parse()
	caddyhttp.SetVar(r.Context(), ParsedRequestVar, p)
	p.install(r)
	return p
}

// parse returns the parse of the body, parsing it on first use.
func (p *ParsedRequest) parse() (*wire.Request, error) {
	if p.Request == nil && p.ParseErr == nil && p.ReadErr == nil {
		p.Request, p.ParseErr = wire.ScanRequest(p.Body)
	}
	if p.ReadErr != nil {
		return nil, p.ReadErr
	}
	return p.Request, p.ParseErr
}

// parseFor is parse for a handler whose provider works from a scan (scans,
// ProviderInfo.ScansRequest, known since Provision) or from a full parse,
// unless a matcher has parsed the body already.
//
// A matcher scans (wire.ScanRequest): it reads the small fields, and
// its estimates read the history from the body a block at a time, so its
// memory is bounded by the body's whatever the history's shape. The
// history of a scanned request is decoded (Complete) only for a handler
// whose provider does not work from a scan.
func (p *ParsedRequest) parseFor(scans bool) (*wire.Request, error) {
	if p.Request == nil && p.ParseErr == nil && p.ReadErr == nil {
		if scans {
			p.Request, p.ParseErr = wire.ScanRequest(p.Body)
		} else {
			p.Request, p.ParseErr = wire.ParseRequest(p.Body)
		}
	}
	if p.ReadErr != nil {
		return nil, p.ReadErr
	}
	if p.Request != nil && p.Request.Scanned() && !scans {
		if err := p.Request.Complete(); err != nil {
			p.Request, p.ParseErr = nil, err
		}
	}
	return p.Request, p.ParseErr
}

// readBodyOnce is the handler's read of the client's body: a matcher's
// read when one was made (held to the handler's own max_request_body, so
// that the smaller bound applies), else its own, into a buffer of lease's.
// Its own is not put in the request's variables: the buffer goes back to
// the pool when the handler is done, so nothing after it may take it.
func (h *Handler) readBodyOnce(w http.ResponseWriter, r *http.Request, lease *bodyLease) ([]byte, *ParsedRequest, error) {
	if p := ParsedRequestOf(r); p != nil {
		if p.ReadErr != nil {
			endMatcherRead(w, p.ReadErr)
			return nil, nil, p.ReadErr
		}
		if int64(len(p.Body)) > h.MaxRequestBody {
			return nil, nil, &http.MaxBytesError{Limit: h.MaxRequestBody}
		}
		return p.Body, p, nil
	}
	body, err := h.readBody(w, r, lease)
	if err != nil {
		return nil, nil, err
	}
	if lb, ok := r.Body.(*leasedBody); ok {
		// A fallback's reader of its own copy, read to the end: closing it
		// lets the fallback's buffer go back when the fallback is done.
		_ = lb.Close()
	}
	return body, &ParsedRequest{Body: body}, nil
}

// readWithin is a matcher's read of r's body within limit bytes and
// timeout. A matcher has no ResponseWriter to set the connection's read
// deadline with, so the read runs on its own goroutine and is given up
// when the time passes: the error (a matcherBodyTimeout) tells the
// thinkgate handler to end the read still waiting on the connection
// (endMatcherRead) and answer 408. Until a handler does, or the client
// sends the rest, or the connection closes, the goroutine waits in Read.
func readWithin(r *http.Request, limit int64, timeout time.Duration) ([]byte, error) {
	// A nil ResponseWriter: past the limit the read fails without telling
	// the server; the handler answers the 413.
	body := http.MaxBytesReader(nil, r.Body, limit)
	size := min(r.ContentLength, limit)
	if timeout <= 0 {
		return readAllSized(body, size, nil)
	}
	type result struct {
		body []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		b, err := readAllSized(body, size, nil)
		done <- result{b, err}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case res := <-done:
		return res.body, res.err
	case <-timer.C:
		return nil, &matcherBodyTimeout{timeout: timeout}
	}
}

// matcherBodyTimeout is a matcher's read of the body given up after
// timeout (its request_body_timeout).
type matcherBodyTimeout struct{ timeout time.Duration }

func (e *matcherBodyTimeout) Error() string {
	return fmt.Sprintf("request body not received within %s", e.timeout)
}

// Is makes it a deadline error, as a handler's own timed-out read is.
func (e *matcherBodyTimeout) Is(target error) bool { return target == os.ErrDeadlineExceeded }

// endMatcherRead ends a matcher's read that gave up on the body: the
// connection's read deadline, passed at once, makes the read waiting on it
// fail, and stays, so that the server closes the connection rather than
// wait for the rest of the body.
func endMatcherRead(w http.ResponseWriter, err error) {
	var mt *matcherBodyTimeout
	if errors.As(err, &mt) {
		_ = http.NewResponseController(w).SetReadDeadline(time.Now())
	}
}
