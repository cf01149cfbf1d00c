package caddymodule

import (
	"fmt"
	"io"
	"net/http"

	"go.uber.org/zap"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// passthroughWriter holds what the upstream answers on a path the handler
// passes through untranslated (batches, files, a GET /v1/models the
// handler does not answer …) to the edge rules of a translated answer
// (docs/security.md): a redirect becomes a 502 api_error with none of the
// upstream's Location or other headers, and the upstream's Set-Cookie
// never reaches the client. Everything else passes as the upstream sent it.
type passthroughWriter struct {
	*caddyhttp.ResponseWriterWrapper
	own        http.Header // the response header before the upstream's was copied in
	rateLimits bool        // forward_rate_limit_headers
	logger     *zap.Logger
	status     int
	redirected bool // the upstream's body is dropped
}

func newPassthroughWriter(w http.ResponseWriter, h *Handler, r *http.Request) *passthroughWriter {
	return &passthroughWriter{
		ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w},
		own:                   w.Header().Clone(),
		rateLimits:            h.ForwardRateLimitHeaders,
		logger:                h.logger.With(zap.String("method", r.Method), zap.String("path", r.URL.Path)),
	}
}

// WriteHeader applies the rules once the upstream's final status arrives.
func (pw *passthroughWriter) WriteHeader(status int) {
	if pw.status != 0 {
		return
	}
	if status < 200 {
		pw.ResponseWriterWrapper.WriteHeader(status) // 1xx: informational, forward
		return
	}
	pw.status = status
	hdr := pw.Header()
	if status >= 300 && status < 400 {
		// Passing it would send the client, and its key, to the target.
		pw.redirected = true
		filterUpstreamHeader(hdr, pw.own, pw.rateLimits)
		pw.logger.Error("upstream answered with a redirect", zap.Int("status", status))
		_ = writeError(pw.ResponseWriterWrapper, wire.APIError(http.StatusBadGateway,
			fmt.Sprintf("the upstream answered with a redirect (%d), which the gateway does not follow", status)))
		return
	}
	// The upstream's cookies are not the client's.
	hdr.Del("Set-Cookie")
	pw.ResponseWriterWrapper.WriteHeader(status)
}

// Write passes the upstream's body, or drops a redirect's.
func (pw *passthroughWriter) Write(p []byte) (int, error) {
	if pw.status == 0 {
		pw.WriteHeader(http.StatusOK)
	}
	if pw.redirected {
		return len(p), nil
	}
	return pw.ResponseWriterWrapper.Write(p)
}

// ReadFrom hides the wrapped writer's io.ReaderFrom, so that io.Copy
// callers go through Write.
func (pw *passthroughWriter) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(writerOnly{pw}, r)
}

// FlushError flushes the wrapped writer once the status is decided, and
// never a redirect's answer half-written.
func (pw *passthroughWriter) FlushError() error {
	if pw.status == 0 || pw.redirected {
		return nil
	}
	return http.NewResponseController(pw.ResponseWriterWrapper).Flush()
}

// Flush is FlushError for callers that use http.Flusher.
func (pw *passthroughWriter) Flush() { _ = pw.FlushError() }
