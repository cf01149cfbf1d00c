package caddymodule

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/buger/jsonparser"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/thinkgate/thinkgate/providers/emit"
)

// The collectors are made once per process and registered in every config's
// registry (Caddy makes a fresh registry per config load).
var metrics = struct {
	once            sync.Once
	all             []prometheus.Collector // every collector below, to register
	requests        *prometheus.CounterVec
	streamDuration  *prometheus.HistogramVec
	timeToFirstByte *prometheus.HistogramVec
	timeToContent   *prometheus.HistogramVec
	thinkingBlocks  *prometheus.CounterVec
	tokens          *prometheus.CounterVec
	timePerToken    *prometheus.HistogramVec
	tokensPerSecond *prometheus.HistogramVec
	upstreamErrors  *prometheus.CounterVec
	clientAborts    *prometheus.CounterVec
	// thinkgate_clients
	clientStreams     *prometheus.GaugeVec
	clientRefusals    *prometheus.CounterVec
	clientStoreErrors *prometheus.CounterVec
	clientLimits      *prometheus.GaugeVec
	// upstream key pools
	upstreamKeys        *prometheus.CounterVec
	upstreamKeysCooling *prometheus.CounterVec
}{}

func initMetrics(registry *prometheus.Registry) error {
	metrics.once.Do(func() {
		const ns, sub = "caddy", "thinkgate"
		// Each collector is made and listed for registration at once, so
		// none is made and left unregistered.
		counter := func(name, help string, labels ...string) *prometheus.CounterVec {
			c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: name, Help: help}, labels)
			metrics.all = append(metrics.all, c)
			return c
		}
		gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
			g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: name, Help: help}, labels)
			metrics.all = append(metrics.all, g)
			return g
		}
		histogram := func(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
			h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Subsystem: sub, Name: name, Help: help, Buckets: buckets}, labels)
			metrics.all = append(metrics.all, h)
			return h
		}
		metrics.requests = counter("requests_total",
			"Messages API requests handled, by provider, client model, response status and named client (thinkgate_clients; empty without).",
			"provider", "model", "status", "client")
		metrics.streamDuration = histogram("stream_duration_seconds",
			"Duration of streamed responses, from request to the end of the stream.",
			[]float64{0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}, "provider")
		metrics.timeToFirstByte = histogram("time_to_first_byte_seconds",
			"Time from the request to the first response byte sent to the client (for a stream: message_start, sent when the upstream's headers arrive).",
			[]float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}, "provider")
		metrics.timeToContent = histogram("time_to_first_content_seconds",
			"Time from the request to the first content delta (text, thinking or tool input) of a streamed response.",
			[]float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120}, "provider")
		metrics.thinkingBlocks = counter("thinking_blocks_total",
			"Thinking blocks sent to clients.",
			"provider")
		metrics.tokens = counter("tokens_total",
			"Tokens reported by upstreams, by direction (input, output, cache_read, cache_creation) and named client (thinkgate_clients; empty without).",
			"provider", "model", "direction", "client")
		metrics.timePerToken = histogram("time_per_output_token_seconds",
			"Time per output token of a streamed response after its first content: (end - first content) / (output tokens - 1).",
			[]float64{0.001, 0.0025, 0.005, 0.01, 0.02, 0.035, 0.05, 0.075, 0.1, 0.25, 0.5, 1}, "provider", "model")
		metrics.tokensPerSecond = histogram("output_tokens_per_second",
			"Output tokens per second of a response, streamed or not, from request to end.",
			[]float64{1, 5, 10, 20, 35, 50, 75, 100, 150, 250, 500, 1000}, "provider", "model")
		metrics.upstreamErrors = counter("upstream_errors_total",
			"Upstream failures: non-2xx statuses, broken or malformed streams (status \"stream\").",
			"provider", "status")
		metrics.clientAborts = counter("client_aborts_total",
			"Requests whose client went away before the response was complete.",
			"provider")
		metrics.clientStreams = gauge("client_open_streams",
			"Messages calls in progress on this gateway, by named client (what max_streams counts).",
			"client")
		metrics.clientRefusals = counter("client_rate_limited_total",
			"Requests refused with 429 because a named client was over a limit, by client and limit.",
			"client", "limit")
		metrics.clientStoreErrors = counter("client_store_errors_total",
			"Calls to the limit store that failed or timed out, by operation (acquire, release, peek).",
			"op")
		metrics.clientLimits = gauge("client_limit",
			"The configured limits of the named clients, by client and limit (requests_per_minute, tokens_per_minute, tokens_per_day, max_streams).",
			"client", "limit")
		metrics.upstreamKeys = counter("upstream_key_attempts_total",
			"Upstream requests by pooled api_key, by provider, key position (1-based, never the key) and outcome: answered, rate_limited (429: the key cools down) or set_aside (401/403: unused until the next reload).",
			"provider", "key", "outcome")
		metrics.upstreamKeysCooling = counter("upstream_keys_exhausted_total",
			"Requests answered 429 by the gateway because every pooled api_key of the provider was cooling down or set aside.",
			"provider")
	})
	for _, c := range metrics.all {
		if err := registry.Register(c); err != nil && !errors.As(err, &prometheus.AlreadyRegisteredError{}) {
			return err
		}
	}
	return nil
}

// exchangeMetrics records what one exchange did.
type exchangeMetrics struct {
	provider, model string
	client          string // the thinkgate_clients name, if any
	start           time.Time
	status          int
	firstByte       time.Time
	firstContent    time.Time // first content delta of a stream handed to the writer
	end             time.Time // the response is complete
	streamed        bool
	thinkingBlocks  int
	usage           emit.Usage
	upstreamStatus  string // "" when the upstream did not fail
	clientAborted   bool
}

func (m *exchangeMetrics) record() {
	if metrics.requests == nil {
		return
	}
	model := modelLabel(m.model, m.status >= 200 && m.status < 300)
	metrics.requests.WithLabelValues(m.provider, model, strconv.Itoa(m.status), m.client).Inc()
	if !m.firstByte.IsZero() {
		metrics.timeToFirstByte.WithLabelValues(m.provider).Observe(m.firstByte.Sub(m.start).Seconds())
	}
	if !m.firstContent.IsZero() {
		metrics.timeToContent.WithLabelValues(m.provider).Observe(m.firstContent.Sub(m.start).Seconds())
	}
	if m.streamed {
		metrics.streamDuration.WithLabelValues(m.provider).Observe(time.Since(m.start).Seconds())
	}
	if m.thinkingBlocks > 0 {
		metrics.thinkingBlocks.WithLabelValues(m.provider).Add(float64(m.thinkingBlocks))
	}
	for _, t := range [...]struct {
		direction string
		n         int64
	}{
		{"input", m.usage.InputTokens},
		{"output", m.usage.OutputTokens},
		{"cache_read", m.usage.CacheReadInputTokens},
		{"cache_creation", m.usage.CacheCreationInputTokens},
	} {
		if t.n > 0 {
			metrics.tokens.WithLabelValues(m.provider, model, t.direction, m.client).Add(float64(t.n))
		}
	}
	if out := m.usage.OutputTokens; out > 0 && !m.end.IsZero() && m.status < 300 {
		if d := m.end.Sub(m.start); d > 0 {
			metrics.tokensPerSecond.WithLabelValues(m.provider, model).Observe(float64(out) / d.Seconds())
		}
		if out > 1 && !m.firstContent.IsZero() {
			metrics.timePerToken.WithLabelValues(m.provider, model).Observe(m.end.Sub(m.firstContent).Seconds() / float64(out-1))
		}
	}
	if m.upstreamStatus != "" {
		metrics.upstreamErrors.WithLabelValues(m.provider, m.upstreamStatus).Inc()
	}
	if m.clientAborted {
		metrics.clientAborts.WithLabelValues(m.provider).Inc()
	}
}

// countThinkingBlocks counts the thinking blocks of a Message.
func countThinkingBlocks(msg []byte) int {
	n := 0
	_, _ = jsonparser.ArrayEach(msg, func(block []byte, _ jsonparser.ValueType, _ int, _ error) {
		if typ, _ := jsonparser.GetUnsafeString(block, "type"); typ == "thinking" {
			n++
		}
	}, "content")
	return n
}

// modelLabels bounds the model label: model names come from clients, and an
// unbounded label set would let any client grow the metrics without limit.
// A name takes one of the maxModelLabels slots only when the config names it
// (a model rule's literal pattern) or an upstream answered 2xx for it, so
// that junk names a client makes up cannot crowd out the real models; every
// other name counts as "other". Slots last for the life of the process, like
// the series they label.
var modelLabels = struct {
	sync.Mutex
	seen map[string]struct{}
}{seen: map[string]struct{}{}}

const maxModelLabels = 200

// maxModelLabelLength is the longest model name used as a label.
const maxModelLabelLength = 128

// modelLabel returns the label of a model name; admit says whether the name
// may take a free slot (the upstream answered it 2xx).
func modelLabel(name string, admit bool) string {
	if len(name) > maxModelLabelLength {
		return "other"
	}
	modelLabels.Lock()
	defer modelLabels.Unlock()
	if _, ok := modelLabels.seen[name]; ok {
		return name
	}
	if !admit || len(modelLabels.seen) >= maxModelLabels {
		return "other"
	}
	modelLabels.seen[name] = struct{}{}
	return name
}

// registerModelLabel gives a model name the config names a slot.
func registerModelLabel(name string) { modelLabel(name, true) }

// hasGlobMeta reports whether a model pattern is a glob rather than a name.
func hasGlobMeta(pattern string) bool { return strings.ContainsAny(pattern, `*?[\`) }

// setClientLimitMetrics publishes a client's configured limits, so that
// PromQL can compare its use with them (docs/operations.md).
func setClientLimitMetrics(cc ClientConfig) {
	for _, l := range [...]struct {
		name string
		v    int64
	}{{"requests_per_minute", cc.RequestsPerMinute}, {"tokens_per_minute", cc.TokensPerMinute},
		{"tokens_per_day", cc.TokensPerDay}, {"max_streams", cc.MaxStreams}} {
		if l.v > 0 {
			metrics.clientLimits.WithLabelValues(cc.Name, l.name).Set(float64(l.v))
		} else {
			metrics.clientLimits.DeleteLabelValues(cc.Name, l.name)
		}
	}
}
