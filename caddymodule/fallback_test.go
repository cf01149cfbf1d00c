package caddymodule

import (
	"errors"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{"7", 7 * time.Second, true},
		{" 7 ", 7 * time.Second, true},
		{"86400", 24 * time.Hour, true},
		{"99999999", 99999999 * time.Second, true},
		{"99999999999999999", math.MaxInt64, true}, // past time.Duration: longer than any bound
		{"-1", 0, false},
		{"soon", 0, false},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
	} {
		got, ok := parseRetryAfter(tc.in, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestRetryWait: only a Retry-After within the bound is waited out, and
// only on a step's first attempt; without a bound nothing is.
func TestRetryWait(t *testing.T) {
	f := &Fallback{RetryAfterMax: caddy.Duration(2 * time.Second)}
	for _, tc := range []struct {
		retryAfter string
		retried    bool
		want       time.Duration
		again      bool
	}{
		{"1", false, time.Second, true},
		{"2", false, 2 * time.Second, true},
		{"3", false, 0, false},
		{"99999999999999999", false, 0, false},
		{"1", true, 0, false},
		{"", false, 0, false},
		{"soon", false, 0, false},
	} {
		d, again := f.retryWait(failure{status: 429, retryAfter: tc.retryAfter}, tc.retried)
		if d != tc.want || again != tc.again {
			t.Errorf("Retry-After %q retried %v: %v, %v; want %v, %v", tc.retryAfter, tc.retried, d, again, tc.want, tc.again)
		}
	}
	if _, again := (&Fallback{}).retryWait(failure{status: 429, retryAfter: "0"}, false); again {
		t.Error("without retry_after_max a Retry-After was waited for")
	}
}

// TestFailureSet: the on list's statuses, classes and kinds; the upstream's
// status decides over the one written to the client.
func TestFailureSet(t *testing.T) {
	s, err := parseFailureSet([]string{"429", "5xx", "timeout"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		f       failure
		written int
		want    bool
	}{
		{failure{status: 429}, 429, true},
		{failure{status: 503}, 529, true},
		{failure{status: 404}, 404, false},
		{failure{status: 200}, 502, false}, // the upstream answered; thinkgate's own 502 is not a failure
		{failure{}, 599, true},             // no thinkgate in the step: the written status
		{failure{kind: failureTimeout}, 504, true},
		{failure{kind: failureConnection}, 502, false},
	} {
		if got := s.has(tc.f, tc.written); got != tc.want {
			t.Errorf("%+v written %d: %v, want %v", tc.f, tc.written, got, tc.want)
		}
	}
	for _, bad := range []string{"600", "399", "3xx", "6xx", "5XX", "connection", ""} {
		if _, err := parseFailureSet([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestIsProxyError: reverse_proxy's errors for an upstream that gave no
// answer fail a step over; another handler's error status does not.
func TestIsProxyError(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{caddyhttp.Error(http.StatusBadGateway, errors.New("dial tcp: connection refused")), true},
		{caddyhttp.Error(http.StatusServiceUnavailable, errors.New("no upstreams available")), true},
		{caddyhttp.Error(http.StatusGatewayTimeout, errors.New("timeout awaiting response headers")), true},
		{caddyhttp.Error(http.StatusForbidden, errors.New("forbidden")), false},
		{caddyhttp.Error(http.StatusInternalServerError, errors.New("a handler failed")), false},
		{errors.New("unwrapped"), true},
	} {
		if got := isProxyError(tc.err); got != tc.want {
			t.Errorf("isProxyError(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
