package limitstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis keeps the counters in a Redis or Valkey server shared by several
// gateways. Each decision is one Lua script, run atomically by the server,
// so concurrent requests on any number of gateways never see the same
// count twice. A client's keys share one hash tag ({prefix:client}), so
// they live on one node of a cluster.
//
// Windows are named by the gateway's clock: the gateways' clocks must
// agree (NTP), as they must for anything time-based.
type Redis struct {
	client *redis.Client
	prefix string
}

// NewRedis returns a store on the server at addr; every command is bounded
// by timeout (dial, read, write).
func NewRedis(addr, password, prefix string, timeout time.Duration) *Redis {
	c := redis.NewClient(&redis.Options{
		Addr:         addr,
		Password:     password,
		DialTimeout:  timeout,
		ReadTimeout:  timeout,
		WriteTimeout: timeout,
		// The request's own deadline bounds the retries.
		ContextTimeoutEnabled: true,
	})
	return &Redis{client: c, prefix: prefix}
}

// Close closes the connections.
func (s *Redis) Close() error { return s.client.Close() }

// key is one of client's keys.
func (s *Redis) key(client, name string) string {
	return s.prefix + ":{" + client + "}:" + name
}

// acquireScript: KEYS requests this minute, tokens this minute, tokens
// today, open streams (a sorted set of lease ids scored by their expiry);
// ARGV the four limits, now (ms), the lease's expiry (ms), its id, the
// minute keys' and the day key's lifetime (s). Returns the refused limit's
// rank (0: allowed) and the counts before the request.
var acquireScript = redis.NewScript(`
local rpm, tpm, tpd, ms = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local r = tonumber(redis.call('GET', KEYS[1]) or '0')
local tm = tonumber(redis.call('GET', KEYS[2]) or '0')
local td = tonumber(redis.call('GET', KEYS[3]) or '0')
local s = 0
if ms > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', ARGV[5])
  s = redis.call('ZCARD', KEYS[4])
end
local refused = 0
if rpm > 0 and r >= rpm then refused = 1
elseif tpm > 0 and tm >= tpm then refused = 2
elseif tpd > 0 and td >= tpd then refused = 3
elseif ms > 0 and s >= ms then refused = 4 end
if refused == 0 then
  if rpm > 0 then
    redis.call('INCR', KEYS[1])
    redis.call('EXPIRE', KEYS[1], ARGV[8])
  end
  if ms > 0 then
    redis.call('ZADD', KEYS[4], ARGV[6], ARGV[7])
    redis.call('PEXPIREAT', KEYS[4], ARGV[6])
  end
end
return {refused, r, tm, td, s}
`)

// releaseScript: KEYS tokens this minute, tokens today, open streams; ARGV
// the tokens, the lease id ("" when none), the minute key's and the day
// key's lifetime (s).
var releaseScript = redis.NewScript(`
local n = tonumber(ARGV[1])
if n > 0 then
  redis.call('INCRBY', KEYS[1], n)
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  redis.call('INCRBY', KEYS[2], n)
  redis.call('EXPIRE', KEYS[2], ARGV[4])
end
if ARGV[2] ~= '' then redis.call('ZREM', KEYS[3], ARGV[2]) end
return 0
`)

// Window keys outlive their window a little, so that a gateway whose clock
// is slightly behind still finds them.
const keySlack = 2 * time.Minute

func (s *Redis) windowKeys(client string, now time.Time) (reqs, tokMin, tokDay string, minuteTTL, dayTTL int64) {
	mi, d := strconv.FormatInt(minuteOf(now), 10), strconv.FormatInt(dayOf(now), 10)
	return s.key(client, "requests:"+mi), s.key(client, "tokens:"+mi), s.key(client, "tokens_day:"+d),
		int64((minuteEnd(now).Sub(now) + keySlack) / time.Second), int64((dayEnd(now).Sub(now) + keySlack) / time.Second)
}

// Acquire implements Store.
func (s *Redis) Acquire(ctx context.Context, client string, l Limits, now time.Time) (Decision, Lease, error) {
	reqs, tokMin, tokDay, minuteTTL, dayTTL := s.windowKeys(client, now)
	id := ""
	if l.MaxStreams > 0 {
		var b [12]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	res, err := acquireScript.Run(ctx, s.client, []string{reqs, tokMin, tokDay, s.key(client, "streams")},
		l.RequestsPerMinute, l.TokensPerMinute, l.TokensPerDay, l.MaxStreams,
		now.UnixMilli(), now.Add(streamLease).UnixMilli(), id, minuteTTL, dayTTL).Int64Slice()
	if err != nil {
		return Decision{}, Lease{}, err
	}
	d := decide(l, now, res[1], res[2], res[3], res[4])
	if got := refusedNames[res[0]]; got != d.Refused {
		// The script and decide apply one rule; they disagree only if one
		// was changed alone.
		return Decision{}, Lease{}, fmt.Errorf("limitstore: the acquire script refused %q, the rule %q", got, d.Refused)
	}
	if d.Refused != "" {
		return d, Lease{}, nil
	}
	return d, Lease{Client: client, ID: id, stream: true}, nil
}

var refusedNames = []string{"", LimitRequestsPerMinute, LimitTokensPerMinute, LimitTokensPerDay, LimitMaxStreams}

// Release implements Store.
func (s *Redis) Release(ctx context.Context, lease Lease, tokens int64, now time.Time) error {
	if tokens <= 0 && lease.ID == "" {
		return nil
	}
	_, tokMin, tokDay, minuteTTL, dayTTL := s.windowKeys(lease.Client, now)
	return releaseScript.Run(ctx, s.client, []string{tokMin, tokDay, s.key(lease.Client, "streams")},
		tokens, lease.ID, minuteTTL, dayTTL).Err()
}

// Peek implements Store: one MGET of the three windows.
func (s *Redis) Peek(ctx context.Context, client string, l Limits, now time.Time) (Decision, error) {
	reqs, tokMin, tokDay, _, _ := s.windowKeys(client, now)
	vals, err := s.client.MGet(ctx, reqs, tokMin, tokDay).Result()
	if err != nil {
		return Decision{}, err
	}
	var n [3]int64
	for i, v := range vals {
		if str, ok := v.(string); ok {
			n[i], _ = strconv.ParseInt(str, 10, 64)
		}
	}
	var d Decision
	d.fill(l, now, n[0], n[1], n[2])
	return d, nil
}

var _ Store = (*Redis)(nil)
