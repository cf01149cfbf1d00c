package limitstore

import (
	"context"
	"testing"
	"time"
)

// at is a moment of 2026-03-01 UTC.
func at(hms string) time.Time {
	t, err := time.Parse(time.DateTime, "2026-03-01 "+hms)
	if err != nil {
		panic(err)
	}
	return t
}

// TestMemoryWindows: the minute and the UTC day are fixed windows; the
// tokens of a request count in the window it ends in.
func TestMemoryWindows(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	l := Limits{RequestsPerMinute: 2, TokensPerMinute: 100, TokensPerDay: 150}
	d, lease, _ := m.Acquire(ctx, "a", l, at("10:00:05"))
	if d.Refused != "" || d.Requests.Remaining != 1 || d.Tokens.Remaining != 100 || !d.Requests.Reset.Equal(at("10:01:00")) {
		t.Fatalf("first: %+v", d)
	}
	_ = m.Release(ctx, lease, 120, at("10:00:30"))
	// 120 ≥ 100 this minute.
	if d, _, _ := m.Acquire(ctx, "a", l, at("10:00:40")); d.Refused != LimitTokensPerMinute || d.RetryAfter != 20*time.Second {
		t.Fatalf("over the minute's tokens: %+v", d)
	}
	// The next minute: the day's window (30 left) is the tighter one.
	d, lease, _ = m.Acquire(ctx, "a", l, at("10:01:00"))
	if d.Refused != "" || d.Tokens.Limit != 150 || d.Tokens.Remaining != 30 || !d.Tokens.Reset.Equal(at("00:00:00").Add(24*time.Hour)) {
		t.Fatalf("next minute: %+v", d)
	}
	_ = m.Release(ctx, lease, 30, at("10:01:01"))
	if d, _, _ := m.Acquire(ctx, "a", l, at("23:59:00")); d.Refused != LimitTokensPerDay || d.RetryAfter != time.Minute {
		t.Fatalf("over the day's tokens: %+v", d)
	}
	if d, _, _ := m.Acquire(ctx, "a", l, at("00:00:00").Add(24*time.Hour)); d.Refused != "" {
		t.Fatalf("the next UTC day: %+v", d)
	}
	// Another client has counters of its own.
	if d, _, _ := m.Acquire(ctx, "b", l, at("10:00:41")); d.Refused != "" {
		t.Fatalf("client b: %+v", d)
	}
}

// TestMemoryRequestsAndStreams: requests_per_minute counts allowed requests
// only; max_streams counts requests until they are released.
func TestMemoryRequestsAndStreams(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	l := Limits{RequestsPerMinute: 3, MaxStreams: 2}
	now := at("12:00:00")
	_, l1, _ := m.Acquire(ctx, "s", l, now)
	_, _, _ = m.Acquire(ctx, "s", l, now)
	if d, _, _ := m.Acquire(ctx, "s", l, now); d.Refused != LimitMaxStreams || d.RetryAfter != time.Second || d.Streams != 2 {
		t.Fatalf("third open: %+v", d)
	}
	_ = m.Release(ctx, l1, 0, now)
	if d, _, _ := m.Acquire(ctx, "s", l, now); d.Refused != "" || d.Requests.Remaining != 0 {
		t.Fatalf("after a release: %+v", d)
	}
	if d, _, _ := m.Acquire(ctx, "s", Limits{RequestsPerMinute: 3}, now); d.Refused != LimitRequestsPerMinute || d.RetryAfter != time.Minute {
		t.Fatalf("fourth request: %+v", d)
	}
}
