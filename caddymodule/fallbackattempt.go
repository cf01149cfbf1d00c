package caddymodule

import (
	"context"
	"net/http"
)

// upstreamAttempt is what the thinkgate handler of a fallback step tells the
// fallback handler about its upstream: the status the upstream answered
// (thinkgate writes its own, mapped, status to the client) or that it gave
// no answer at all. thinkgate's Anthropic error looks the same in both cases
// (an upstream 502 and a refused connection are both a 502), so the
// fallback reads this instead of the response.
type upstreamAttempt struct {
	// status is the upstream's first final status; 0 when none came.
	status int
	// retryAfter is the upstream's Retry-After with that status.
	retryAfter string
	// failure is "connection_error" or "timeout" when the upstream gave
	// no (complete) answer.
	failure string
	// errType is the error the step's thinkgate answered with, when the
	// request's span records (for the span of the step that answers).
	errType string
}

type upstreamAttemptKey struct{}

// withUpstreamAttempt returns ctx carrying a for the thinkgate handler
// that will serve it.
func withUpstreamAttempt(ctx context.Context, a *upstreamAttempt) context.Context {
	return context.WithValue(ctx, upstreamAttemptKey{}, a)
}

// upstreamAttemptFrom returns the record of a request a fallback step
// serves, or nil.
func upstreamAttemptFrom(ctx context.Context) *upstreamAttempt {
	a, _ := ctx.Value(upstreamAttemptKey{}).(*upstreamAttempt)
	return a
}

// answered notes the upstream's status and headers; a nil record (no
// fallback around the handler) ignores it.
func (a *upstreamAttempt) answered(status int, header http.Header) {
	if a == nil || a.status != 0 || status < 200 {
		return
	}
	a.status, a.retryAfter = status, header.Get("Retry-After")
}

// failed notes that the upstream gave no answer, or broke off before its
// answer was complete, with reverse_proxy's error.
func (a *upstreamAttempt) failed(err error) {
	if a == nil {
		return
	}
	a.failure = failureKind(err)
}

// timedOut notes that the upstream's answer did not arrive whole within
// upstream_body_timeout.
func (a *upstreamAttempt) timedOut() {
	if a != nil {
		a.failure = failureTimeout
	}
}

// failureKind names the kind of an upstream request that got no answer.
func failureKind(err error) string {
	if err != nil && upstreamFailureClass(err) == "timed out" {
		return failureTimeout
	}
	return failureConnection
}

const (
	failureConnection = "connection_error"
	failureTimeout    = "timeout"
)
