package caddymodule

import (
	"errors"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/thinkgate/thinkgate/providers/emit"
)

// TestTokenTimingMetrics: time per output token is (end - first content) /
// (output tokens - 1), output tokens per second is output tokens over the
// whole request, each per provider and model; an answer without a first
// content (not streamed) has no time per output token.
func TestTokenTimingMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	if err := initMetrics(reg); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	streamed := &exchangeMetrics{provider: "tpot-test", model: "tpot-model", start: start, status: 200,
		firstContent: start.Add(time.Second), end: start.Add(3 * time.Second), usage: emit.Usage{OutputTokens: 5}}
	streamed.record()
	whole := &exchangeMetrics{provider: "tpot-test", model: "tpot-model", start: start, status: 200,
		end: start.Add(2 * time.Second), usage: emit.Usage{OutputTokens: 10}}
	whole.record()

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]float64{} // name: count, sum
	for _, f := range families {
		for _, m := range f.Metric {
			labels := map[string]string{}
			for _, l := range m.Label {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["provider"] != "tpot-test" || labels["model"] != "tpot-model" || m.Histogram == nil {
				continue
			}
			got[f.GetName()] = [2]float64{float64(m.Histogram.GetSampleCount()), m.Histogram.GetSampleSum()}
		}
	}
	want := map[string][2]float64{
		"caddy_thinkgate_time_per_output_token_seconds": {1, 2.0 / 4},        // 2 s over 4 tokens after the first
		"caddy_thinkgate_output_tokens_per_second":      {2, 5.0/3 + 10.0/2}, // 5 tokens in 3 s, 10 in 2 s
	}
	for name, w := range want {
		if g := got[name]; g != w {
			t.Errorf("%s: count and sum %v, want %v", name, g, w)
		}
	}
}

// TestEveryMetricRegistered: every collector thinkgate makes is in the
// registry initMetrics fills (one made and not listed would never be
// scraped).
func TestEveryMetricRegistered(t *testing.T) {
	registry := prometheus.NewRegistry()
	if err := initMetrics(registry); err != nil {
		t.Fatal(err)
	}
	v := reflect.ValueOf(&metrics).Elem()
	n := 0
	for i := range v.NumField() {
		f := v.Field(i)
		// The fields are unexported: read them through their address.
		c, ok := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface().(prometheus.Collector)
		if !ok {
			continue
		}
		n++
		if err := registry.Register(c); !errors.As(err, &prometheus.AlreadyRegisteredError{}) {
			t.Errorf("metrics.%s is not registered (Register: %v)", v.Type().Field(i).Name, err)
		}
	}
	if n != len(metrics.all) {
		t.Errorf("%d collectors, %d listed", n, len(metrics.all))
	}
}
