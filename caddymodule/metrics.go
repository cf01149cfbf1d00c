package caddymodule

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The collectors are made once per process and registered in every config's
// registry (Caddy makes a fresh registry per config load).
var metrics = struct {
	once            sync.Once
	requests        *prometheus.CounterVec
	streamDuration  *prometheus.HistogramVec
	timeToFirstByte *prometheus.HistogramVec
	timeToContent   *prometheus.HistogramVec
	thinkingBlocks  *prometheus.CounterVec
	tokens          *prometheus.CounterVec
	upstreamErrors  *prometheus.CounterVec
	clientAborts    *prometheus.CounterVec
}{}

func initMetrics(registry *prometheus.Registry) error {
	const ns, sub = "caddy", "thinkgate"
	metrics.once.Do(func() {
		metrics.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "requests_total",
			Help: "Messages API requests handled, by provider, client model and response status.",
		}, []string{"provider", "model", "status"})
		metrics.streamDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: ns, Subsystem: sub, Name: "stream_duration_seconds",
			Help:    "Duration of streamed responses, from request to the end of the stream.",
			Buckets: []float64{0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600},
		}, []string{"provider"})
		metrics.timeToFirstByte = prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: ns, Subsystem: sub, Name: "time_to_first_byte_seconds",
			Help:    "Time from the request to the first response byte sent to the client (for a stream: message_start, sent when the upstream's headers arrive).",
			Buckets: []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
		}, []string{"provider"})
		metrics.timeToContent = prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: ns, Subsystem: sub, Name: "time_to_first_content_seconds",
			Help:    "Time from the request to the first content delta (text, thinking or tool input) of a streamed response.",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120},
		}, []string{"provider"})
		metrics.thinkingBlocks = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "thinking_blocks_total",
			Help: "Thinking blocks sent to clients.",
		}, []string{"provider"})
		metrics.tokens = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "tokens_total",
			Help: "Tokens reported by upstreams, by direction (input, output).",
		}, []string{"provider", "model", "direction"})
		metrics.upstreamErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "upstream_errors_total",
			Help: "Upstream failures: non-2xx statuses, broken or malformed streams (status \"stream\").",
		}, []string{"provider", "status"})
		metrics.clientAborts = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Subsystem: sub, Name: "client_aborts_total",
			Help: "Requests whose client went away before the response was complete.",
		}, []string{"provider"})
	})
	for _, c := range []prometheus.Collector{metrics.requests, metrics.streamDuration, metrics.timeToFirstByte, metrics.timeToContent,
		metrics.thinkingBlocks, metrics.tokens, metrics.upstreamErrors, metrics.clientAborts} {
		if err := registry.Register(c); err != nil && !errors.As(err, &prometheus.AlreadyRegisteredError{}) {
			return err
		}
	}
	return nil
}

// exchangeMetrics records what one exchange did.
type exchangeMetrics struct {
	provider, model string
	start           time.Time
	status          int
	firstByte       time.Time
	firstContent    time.Time // first content delta of a stream handed to the writer
	streamed        bool
	thinkingBlocks  int
	inputTokens     int64
	outputTokens    int64
	upstreamStatus  string // "" when the upstream did not fail
	clientAborted   bool
}

func (m *exchangeMetrics) record() {
	if metrics.requests == nil {
		return
	}
	model := modelLabel(m.model, m.status >= 200 && m.status < 300)
	metrics.requests.WithLabelValues(m.provider, model, strconv.Itoa(m.status)).Inc()
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
	if m.inputTokens > 0 {
		metrics.tokens.WithLabelValues(m.provider, model, "input").Add(float64(m.inputTokens))
	}
	if m.outputTokens > 0 {
		metrics.tokens.WithLabelValues(m.provider, model, "output").Add(float64(m.outputTokens))
	}
	if m.upstreamStatus != "" {
		metrics.upstreamErrors.WithLabelValues(m.provider, m.upstreamStatus).Inc()
	}
	if m.clientAborted {
		metrics.clientAborts.WithLabelValues(m.provider).Inc()
	}
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
