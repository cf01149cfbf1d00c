// Package limitstore counts what each named client of the gateway uses
// (requests and tokens in fixed windows, requests in progress) and decides
// whether a new request stays within the client's limits. Memory keeps the
// counters in the process; Redis keeps them in a Redis or Valkey server, so
// that several gateways enforce one set of limits.
//
// Windows are fixed: a minute is a wall-clock minute, a day a UTC day.
// Tokens are counted when a request ends, so the request that crosses a
// token limit runs to its end; the next is refused until the window turns.
package limitstore

import (
	"context"
	"time"
)

// Limits are one client's limits; 0 means none.
type Limits struct {
	RequestsPerMinute int64
	TokensPerMinute   int64
	TokensPerDay      int64
	MaxStreams        int64
}

// Any reports whether at least one limit is set.
func (l Limits) Any() bool {
	return l.RequestsPerMinute > 0 || l.TokensPerMinute > 0 || l.TokensPerDay > 0 || l.MaxStreams > 0
}

// The limits a refusal names, as the configuration spells them.
const (
	LimitRequestsPerMinute = "requests_per_minute"
	LimitTokensPerMinute   = "tokens_per_minute"
	LimitTokensPerDay      = "tokens_per_day"
	LimitMaxStreams        = "max_streams"
)

// Window is a limit's state as the client sees it in the
// anthropic-ratelimit-* headers.
type Window struct {
	Limit, Remaining int64
	Reset            time.Time
}

// Decision is the answer to Acquire.
type Decision struct {
	// Refused names the limit the request is over ("" when allowed).
	Refused string
	// RetryAfter is when the refused limit lets a request through again.
	RetryAfter time.Duration
	// Requests and Tokens are the request and token windows after this
	// request; a zero Limit means the client has no such limit. Tokens is
	// the token window with the fewer tokens left.
	Requests, Tokens Window
	// Streams is the number of the client's requests in progress, this
	// one included when allowed.
	Streams int64
}

// Lease is an allowed request, handed back to Release when it ends.
type Lease struct {
	Client string
	ID     string // the request's place among the open ones (Redis)
	stream bool
}

// Store counts and decides. Its methods are safe for concurrent use.
type Store interface {
	// Acquire decides whether a request of client may start at now, and
	// if so counts it (a request, an open stream).
	Acquire(ctx context.Context, client string, l Limits, now time.Time) (Decision, Lease, error)
	// Release ends a request: its tokens count in the windows of now and
	// its stream closes.
	Release(ctx context.Context, lease Lease, tokens int64, now time.Time) error
	// Peek returns client's windows at now without counting anything, for
	// the headers of answers that are not Messages calls.
	Peek(ctx context.Context, client string, l Limits, now time.Time) (Decision, error)
}

// streamLease bounds how long a request counts as open in a shared store
// when the gateway that opened it never closes it (it crashed): its slot is
// free again after this long.
const streamLease = time.Hour

func minuteOf(now time.Time) int64 { return now.Unix() / 60 }

// dayOf is the UTC day: Unix time has exactly 86400 seconds a day.
func dayOf(now time.Time) int64 { return now.Unix() / 86400 }

func minuteEnd(now time.Time) time.Time { return time.Unix((minuteOf(now)+1)*60, 0).UTC() }
func dayEnd(now time.Time) time.Time    { return time.Unix((dayOf(now)+1)*86400, 0).UTC() }

// decide is the rule both stores apply to the counts before the request:
// reqs this minute, tokens this minute and today, open streams.
func decide(l Limits, now time.Time, reqs, tokMin, tokDay, streams int64) Decision {
	var d Decision
	switch {
	case l.RequestsPerMinute > 0 && reqs >= l.RequestsPerMinute:
		d.Refused, d.RetryAfter = LimitRequestsPerMinute, minuteEnd(now).Sub(now)
	case l.TokensPerMinute > 0 && tokMin >= l.TokensPerMinute:
		d.Refused, d.RetryAfter = LimitTokensPerMinute, minuteEnd(now).Sub(now)
	case l.TokensPerDay > 0 && tokDay >= l.TokensPerDay:
		d.Refused, d.RetryAfter = LimitTokensPerDay, dayEnd(now).Sub(now)
	case l.MaxStreams > 0 && streams >= l.MaxStreams:
		// Nothing tells when one of the open requests ends.
		d.Refused, d.RetryAfter = LimitMaxStreams, time.Second
	}
	if d.Refused == "" {
		reqs++
		streams++
	}
	d.Streams = streams
	d.fill(l, now, reqs, tokMin, tokDay)
	return d
}

// fill sets the windows the headers report.
func (d *Decision) fill(l Limits, now time.Time, reqs, tokMin, tokDay int64) {
	if l.RequestsPerMinute > 0 {
		d.Requests = Window{Limit: l.RequestsPerMinute, Remaining: max(0, l.RequestsPerMinute-reqs), Reset: minuteEnd(now)}
	}
	var minute, day Window
	if l.TokensPerMinute > 0 {
		minute = Window{Limit: l.TokensPerMinute, Remaining: max(0, l.TokensPerMinute-tokMin), Reset: minuteEnd(now)}
	}
	if l.TokensPerDay > 0 {
		day = Window{Limit: l.TokensPerDay, Remaining: max(0, l.TokensPerDay-tokDay), Reset: dayEnd(now)}
	}
	switch {
	case minute.Limit == 0:
		d.Tokens = day
	case day.Limit == 0 || minute.Remaining <= day.Remaining:
		d.Tokens = minute
	default:
		d.Tokens = day
	}
}
