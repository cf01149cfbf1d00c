package tracing_test

import (
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// receiver is an OTLP/HTTP trace endpoint: it decodes the protobuf export
// requests Caddy's exporter sends and keeps their spans.
type receiver struct {
	*httptest.Server
	mu    sync.Mutex
	spans []*tracepb.Span
}

var otlp *receiver

// TestMain starts the receiver and points Caddy's exporter at it before any
// config loads: Caddy's tracing reads the OTEL_* variables when it makes
// its tracer provider.
func TestMain(m *testing.M) {
	otlp = &receiver{}
	otlp.Server = httptest.NewServer(http.HandlerFunc(otlp.serve))
	for k, v := range map[string]string{
		"OTEL_TRACES_EXPORTER":                  "otlp",
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL":    "http/protobuf",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT":    otlp.URL + "/v1/traces",
		"OTEL_BSP_SCHEDULE_DELAY":               "20", // ms: export almost at once
		"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT":     "5000",
		"OTEL_EXPORTER_OTLP_TRACES_INSECURE":    "true",
		"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "gzip",
	} {
		os.Setenv(k, v)
	}
	code := m.Run()
	otlp.Close()
	os.Exit(code)
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "not an OTLP/HTTP protobuf trace export", http.StatusBadRequest)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(b, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			rc.spans = append(rc.spans, ss.Spans...)
		}
	}
	rc.mu.Unlock()
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// exportWait bounds the wait for a span to be exported (the batch
// processor's delay is 20 ms; a loaded machine may take much longer).
const exportWait = 30 * time.Second

// span waits for the server span of traceID.
func (rc *receiver) span(t *testing.T, traceID string) *tracepb.Span {
	t.Helper()
	deadline := time.Now().Add(exportWait)
	for {
		rc.mu.Lock()
		for _, s := range rc.spans {
			if hex.EncodeToString(s.TraceId) == traceID && s.Kind == tracepb.Span_SPAN_KIND_SERVER {
				rc.mu.Unlock()
				return s
			}
		}
		rc.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("no span of trace %s exported within %v", traceID, exportWait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// attrs lists a span's (or event's) gen_ai.*, thinkgate.* and error.type
// attributes as "key=value", sorted; ignore names keys left out.
func attrs(kvs []*commonpb.KeyValue, ignore ...string) []string {
	var out []string
	for _, kv := range kvs {
		k := kv.Key
		if !strings.HasPrefix(k, "gen_ai.") && !strings.HasPrefix(k, "thinkgate.") && k != "error.type" {
			continue
		}
		skip := false
		for _, i := range ignore {
			skip = skip || i == k
		}
		if !skip {
			out = append(out, k+"="+value(kv.Value))
		}
	}
	sort.Strings(out)
	return out
}

func value(v *commonpb.AnyValue) string {
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *commonpb.AnyValue_ArrayValue:
		var parts []string
		for _, e := range x.ArrayValue.Values {
			parts = append(parts, value(e))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return fmt.Sprintf("%v", v)
}

// attr returns one attribute's value, "" when absent.
func attr(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key == key {
			return value(kv.Value)
		}
	}
	return ""
}

// event returns the span's event of that name, or nil.
func event(s *tracepb.Span, name string) *tracepb.Span_Event {
	for _, e := range s.Events {
		if e.Name == name {
			return e
		}
	}
	return nil
}
