package limitstore

import (
	"context"
	"sync"
	"time"
)

// Memory keeps the counters in the process: each gateway process enforces
// the limits on its own.
type Memory struct {
	mu      sync.Mutex
	clients map[string]*memoryCounts
}

type memoryCounts struct {
	minute, reqs, tokMin int64
	day, tokDay          int64
	streams              int64
}

// NewMemory returns an empty in-process store.
func NewMemory() *Memory { return &Memory{clients: map[string]*memoryCounts{}} }

// counts returns client's counters with the windows of now. mu held.
func (m *Memory) counts(client string, now time.Time) *memoryCounts {
	c := m.clients[client]
	if c == nil {
		c = new(memoryCounts)
		m.clients[client] = c
	}
	if mi := minuteOf(now); c.minute != mi {
		c.minute, c.reqs, c.tokMin = mi, 0, 0
	}
	if d := dayOf(now); c.day != d {
		c.day, c.tokDay = d, 0
	}
	return c
}

// Acquire implements Store.
func (m *Memory) Acquire(_ context.Context, client string, l Limits, now time.Time) (Decision, Lease, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.counts(client, now)
	d := decide(l, now, c.reqs, c.tokMin, c.tokDay, c.streams)
	if d.Refused != "" {
		return d, Lease{}, nil
	}
	c.reqs++
	c.streams++
	return d, Lease{Client: client, stream: true}, nil
}

// Release implements Store.
func (m *Memory) Release(_ context.Context, lease Lease, tokens int64, now time.Time) error {
	if !lease.stream {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.counts(lease.Client, now)
	c.streams--
	c.tokMin += tokens
	c.tokDay += tokens
	return nil
}

// Peek implements Store.
func (m *Memory) Peek(_ context.Context, client string, l Limits, now time.Time) (Decision, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.counts(client, now)
	var d Decision
	d.Streams = c.streams
	d.fill(l, now, c.reqs, c.tokMin, c.tokDay)
	return d, nil
}

var _ Store = (*Memory)(nil)
