// Command bench measures thinkgate against plain Caddy reverse_proxy on
// this machine, in one run:
//
//	go run ./bench                  # the long streamed answer
//	go run ./bench -phase request   # the cost of a large request
//	go run ./bench -phase all       # both
//
// It builds Caddy with thinkgate (./cmd/caddy), or takes -caddy BIN, and
// starts one Caddy process per path.
//
// The stream phase (the default) runs plain reverse_proxy, `thinkgate
// anthropic` with split_tags and `thinkgate openai` in front of an upstream
// served by this process that streams the same several-MB response in
// Anthropic and in OpenAI format. The paths' throughput runs take turns;
// it prints for each path the median throughput, CPU seconds of its Caddy
// per MB of upstream, time to first byte p50/p99 over concurrent streams,
// and resident memory per idle stream, each with its ratio to plain
// reverse_proxy.
//
// The request phase POSTs a generated Claude Code request of each
// -request-mb size through plain reverse_proxy and every provider, each in
// front of an upstream answering a short stream in its own wire format, and
// prints a Markdown table: the median time to the end of the answer (runs
// taken in turns), the time each provider adds per MB of request, Caddy's
// CPU per MB of request, and the peak resident memory one request adds to a
// freshly started Caddy (see request.go).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

var (
	textMB         = flag.Float64("mb", 4, "MB of model text per stream")
	rounds         = flag.Int("rounds", 5, "streams per throughput measurement")
	parallel       = flag.Int("parallel", 4, "streams at once for the capacity figure (each runs -rounds streams); 0 skips it")
	repeat         = flag.Int("repeat", 15, "throughput measurements per path, taken in turns; the median is reported")
	ttfbStreams    = flag.Int("ttfb-streams", 200, "concurrent streams for time to first byte")
	ttfbRepeat     = flag.Int("ttfb-repeat", 15, "time-to-first-byte rounds; the median of each figure is reported")
	idleStreams    = flag.Int("idle-streams", 10000, "concurrent idle streams for the memory figure")
	caddyBin       = flag.String("caddy", "", "Caddy binary with thinkgate (default: build ./cmd/caddy)")
	withOpenAI     = flag.Bool("openai", true, "measure the thinkgate openai path too")
	withTracing    = flag.Bool("tracing", false, "measure the thinkgate openai path under Caddy's tracing too, every request's span recorded and exported over OTLP/HTTP to a sink in this process")
	profileDir     = flag.String("cpuprofile", "", "write a CPU profile of each path's Caddy during its first throughput run into this directory")
	profileSeconds = flag.Int("cpuprofile-seconds", 2, "length of each CPU profile")
	phases         = flag.String("phase", "stream", "what to measure: stream (the long answer), request (the cost of a large request, see -request-mb), or all")
)

const (
	upstreamPort = 19100
	plainPort    = 19101
	anthroPort   = 19102
	openaiPort   = 19103
	tracingPort  = 19104
	otlpPort     = 19105
	adminPort    = 19119
)

func main() {
	flag.Parse()
	log.SetFlags(0)
	raiseFileLimit()
	stream, request := false, false
	switch *phases {
	case "stream":
		stream = true
	case "request":
		request = true
	case "all":
		stream, request = true, true
	default:
		log.Fatalf("-phase: %q is none of stream, request, all", *phases)
	}

	bin := *caddyBin
	if bin == "" {
		bin = buildCaddy()
	}
	fmt.Printf("thinkgate benchmark — %s, %d CPUs, %s\n", cpuModel(), numCPU(), goVersion())
	if stream {
		streamPhase(bin)
	}
	if request {
		requestPhase(bin)
	}
}

// streamPhase measures the paths on one long streamed answer.
func streamPhase(bin string) {
	text := modelText(int(*textMB * (1 << 20)))
	anthropicBody := anthropicStream(text)
	openaiBody := openaiStream(text)
	up := startUpstream(anthropicBody, openaiBody)
	defer up.Close()

	fmt.Printf("stream: %.1f MB of model text (frames of 8–64 bytes, a <thinking> span every few hundred bytes) = %.1f MB Anthropic SSE, %.1f MB OpenAI SSE\n\n",
		float64(len(text))/1e6, float64(len(anthropicBody))/1e6, float64(len(openaiBody))/1e6)

	paths := []struct {
		name     string
		port     int
		upstream int // bytes of upstream body per stream
	}{
		{"reverse_proxy (plain)", plainPort, len(anthropicBody)},
		{"thinkgate anthropic split_tags", anthroPort, len(anthropicBody)},
		{"thinkgate openai", openaiPort, len(openaiBody)},
	}
	if !*withOpenAI {
		paths = paths[:2]
	}
	if *withTracing {
		sink := startOTLPSink()
		defer sink.Close()
		paths = append(paths, struct {
			name     string
			port     int
			upstream int
		}{"thinkgate openai + tracing", tracingPort, len(openaiBody)})
	}
	type result struct {
		streamMBps, sseMBps, cpuPerMB, capacityMBps, p50, p99, idleKiB float64
	}
	results := make([]result, len(paths))
	// One Caddy per path, so that no path inherits another's heap, all
	// running at once: the throughput runs take turns, path after path,
	// so that the machine's ups and downs (a shared VM's neighbours) fall
	// on every path alike and the ratios hold still.
	caddies := make([]*exec.Cmd, len(paths))
	for i, p := range paths {
		caddies[i] = startCaddy(bin, pathIndex(p.port))
		warm(p.port)
	}
	runs := make([][][3]float64, len(paths))
	capacity := make([][]float64, len(paths))
	for r := range *repeat {
		for i, p := range paths {
			stopProfile := func() {}
			if r == 0 {
				stopProfile = startProfile(i)
			}
			a, b, c := throughput(caddies[i].Process.Pid, p.port, p.upstream, len(text), 1)
			stopProfile()
			runs[i] = append(runs[i], [3]float64{a, b, c})
			if *parallel > 0 {
				a, _, _ = throughput(caddies[i].Process.Pid, p.port, p.upstream, len(text), *parallel)
				capacity[i] = append(capacity[i], a)
			}
		}
	}
	ports := make([]int, len(paths))
	for i, p := range paths {
		ports[i] = p.port
	}
	// A p99 of 200 samples is their second largest: one hiccup of the
	// machine moves it. The median over several rounds is the figure.
	var p50r, p99r [][]float64
	for range *ttfbRepeat {
		a, b := ttfb(ports)
		p50r, p99r = append(p50r, a), append(p99r, b)
	}
	p50s, p99s := medians(p50r), medians(p99r)
	for i := range paths {
		rs := runs[i]
		sort.Slice(rs, func(i, j int) bool { return rs[i][0] < rs[j][0] })
		med := rs[len(rs)/2]
		results[i] = result{med[0], med[1], med[2], 0, p50s[i], p99s[i], 0}
		if cs := capacity[i]; len(cs) > 0 {
			sort.Float64s(cs)
			results[i].capacityMBps = cs[len(cs)/2]
		}
	}
	for i, p := range paths {
		results[i].idleKiB = idleMemory(caddies[i].Process.Pid, p.port)
		_ = caddies[i].Process.Kill()
		_, _ = caddies[i].Process.Wait()
		client.CloseIdleConnections()
	}
	base := results[0]
	fmt.Println("answer MB/s: MB of the model's text delivered per second, one stream at a time (the same answer on every path, whatever the wire format);")
	fmt.Println("SSE MB/s: bytes that one stream's client received per second (thinkgate merges deltas that reach it in one read, so it sends fewer);")
	if *parallel > 0 {
		fmt.Printf("capacity: answer MB/s of %d streams at once, the machine's total through the path.\n", *parallel)
	}
	fmt.Printf("%-32s %16s %10s %16s %16s %16s %16s %16s\n", "path", "answer MB/s", "SSE MB/s", "capacity MB/s", "CPU s / MB up", "TTFB p50", "TTFB p99", "KiB/idle stream")
	for i, p := range paths {
		r := results[i]
		capacity := fmt.Sprintf("%8.1f (%.2fx)", r.capacityMBps, r.capacityMBps/base.capacityMBps)
		if *parallel <= 0 {
			capacity = "-"
		}
		fmt.Printf("%-32s %8.1f (%.2fx) %10.1f %16s %9.4f (%.2fx) %6.2fms (%.2fx) %6.2fms (%.2fx) %8.1f (%.2fx)\n", p.name,
			r.streamMBps, r.streamMBps/base.streamMBps, r.sseMBps, capacity,
			r.cpuPerMB, r.cpuPerMB/base.cpuPerMB, r.p50, r.p50/base.p50, r.p99, r.p99/base.p99,
			r.idleKiB, r.idleKiB/base.idleKiB)
		if i > 0 {
			fmt.Printf("%-32s %73s %+14.3fms %+14.3fms\n", "", "added TTFB:", r.p50-base.p50, r.p99-base.p99)
		}
	}
}

// modelText is a long answer with a thinking span every few hundred bytes.
func modelText(n int) string {
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the model reasons about a question and writes an answer with code, lists, numbers 42 and 3.14, " +
		"unicode like café, naïve, 你好 and emoji 🎯 so that every byte path of the parser and the JSON writer is exercised")
	var b strings.Builder
	for b.Len() < n {
		b.WriteString("<thinking>")
		for k := 100 + rng.IntN(200); k > 0; {
			w := words[rng.IntN(len(words))] + " "
			b.WriteString(w)
			k -= len(w)
		}
		b.WriteString("</thinking>")
		for k := 200 + rng.IntN(300); k > 0; {
			w := words[rng.IntN(len(words))] + " "
			b.WriteString(w)
			k -= len(w)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// frames splits text into pieces of 8–64 bytes on rune boundaries.
func frames(text string) []string {
	rng := rand.New(rand.NewPCG(3, 4))
	var out []string
	for len(text) > 0 {
		n := min(8+rng.IntN(57), len(text))
		for n < len(text) && text[n]&0xC0 == 0x80 {
			n++
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

// jsonString encodes s as the model APIs do: '<', '>' and '&' raw, where
// encoding/json would write \u003c and the like.
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func anthropicStream(text string) []byte {
	var b bytes.Buffer
	b.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_bench\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"bench\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n")
	b.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	for _, f := range frames(text) {
		j := jsonString(f)
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":%s}}\n\n", j)
	}
	b.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
	b.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":1000}}\n\n")
	b.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	return b.Bytes()
}

func openaiStream(text string) []byte {
	var b bytes.Buffer
	b.WriteString(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1,"model":"bench","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n")
	for _, f := range frames(text) {
		j := jsonString(f)
		fmt.Fprintf(&b, `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1,"model":"bench","choices":[{"index":0,"delta":{"content":%s},"finish_reason":null}]}`+"\n\n", j)
	}
	b.WriteString(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1,"model":"bench","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n")
	b.WriteString(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1,"model":"bench","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":1000,"total_tokens":1010}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// idleGate holds idle streams open until released.
var idleGate = struct {
	sync.Mutex
	ch chan struct{}
}{ch: make(chan struct{})}

func releaseIdle() {
	idleGate.Lock()
	close(idleGate.ch)
	idleGate.ch = make(chan struct{})
	idleGate.Unlock()
}

func startUpstream(anthropicBody, openaiBody []byte) *http.Server {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		body := anthropicBody
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			body = openaiBody
		}
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		if r.Header.Get("X-Bench-Idle") != "" {
			// The first frames, then silence until released. The gate is
			// taken before the frames go out: once the client has them it
			// may release the gate, and a gate taken after that would
			// never open.
			idleGate.Lock()
			ch := idleGate.ch
			idleGate.Unlock()
			cut := bytes.Index(body[300:], []byte("\n\n")) + 302
			_, _ = w.Write(body[:cut])
			_ = rc.Flush()
			select {
			case <-ch:
			case <-r.Context().Done():
			}
			return
		}
		for len(body) > 0 {
			n := min(16<<10, len(body))
			if _, err := w.Write(body[:n]); err != nil {
				return
			}
			_ = rc.Flush()
			body = body[n:]
		}
	})
	// h2c lets Caddy carry 10,000 idle streams over a few upstream
	// connections: one connection per stream would need more file
	// descriptors than this machine allows a process.
	srv := &http.Server{Addr: fmt.Sprintf("127.0.0.1:%d", upstreamPort), Handler: h, Protocols: new(http.Protocols),
		HTTP2: &http.HTTP2Config{MaxConcurrentStreams: 1000}}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	ln, err := net.Listen("tcp", srv.Addr)
	if err != nil {
		log.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	return srv
}

func buildCaddy() string {
	dir, err := os.MkdirTemp("", "thinkgate-bench")
	if err != nil {
		log.Fatal(err)
	}
	bin := filepath.Join(dir, "caddy")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/caddy")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatalf("building caddy: %v", err)
	}
	return bin
}

// startCaddy starts a Caddy that serves path i of the benchmark.
func startCaddy(bin string, path int) *exec.Cmd {
	sites := []string{
		"reverse_proxy",
		"thinkgate anthropic {\n\t\tsplit_tags\n\t\tkeepalive off\n\t}\n\treverse_proxy",
		"thinkgate openai {\n\t\tkeepalive off\n\t}\n\treverse_proxy",
		"tracing\n\tthinkgate openai {\n\t\tkeepalive off\n\t}\n\treverse_proxy",
	}
	port := []int{plainPort, anthroPort, openaiPort, tracingPort}[path]
	site := fmt.Sprintf("%s 127.0.0.1:%d {\n\t\ttransport http {\n\t\t\tversions h2c\n\t\t}\n\t}", sites[path], upstreamPort)
	return startCaddyConfig(bin, adminPort+path, port, site)
}

// pathIndex is the startCaddy path of a port.
func pathIndex(port int) int {
	return map[int]int{plainPort: 0, anthroPort: 1, openaiPort: 2, tracingPort: 3}[port]
}

// startOTLPSink serves the OTLP/HTTP trace exports of the tracing path and
// drops them, and points the Caddys' exporter at it (only the tracing path
// has a tracer).
func startOTLPSink() *http.Server {
	srv := &http.Server{Addr: fmt.Sprintf("127.0.0.1:%d", otlpPort), Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK) // an empty body is an empty ExportTraceServiceResponse
	})}
	ln, err := net.Listen("tcp", srv.Addr)
	if err != nil {
		log.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	os.Setenv("OTEL_TRACES_EXPORTER", "otlp")
	os.Setenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf")
	os.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", fmt.Sprintf("http://127.0.0.1:%d/v1/traces", otlpPort))
	return srv
}

// startCaddyConfig starts a Caddy whose one site, on port, holds site's
// directives, and waits until it listens.
func startCaddyConfig(bin string, admin, port int, site string) *exec.Cmd {
	cfg := fmt.Sprintf(`{
	admin localhost:%d
	auto_https off
	log default {
		level ERROR
	}
}
http://:%d {
	%s
}
`, admin, port, site)
	f, err := os.CreateTemp("", "bench-*.caddyfile")
	if err != nil {
		log.Fatal(err)
	}
	_, _ = f.WriteString(cfg)
	f.Close()
	cmd := exec.Command(bin, "run", "--config", f.Name(), "--adapter", "caddyfile")
	cmd.Stderr = os.Stderr
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(numCPU()))
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			os.Remove(f.Name()) // loaded: the request phase starts dozens of these
			return cmd
		}
		time.Sleep(100 * time.Millisecond)
	}
	log.Fatal("caddy did not start")
	return nil
}

var client = &http.Client{Transport: &http.Transport{
	MaxIdleConnsPerHost: 20000,
	DisableCompression:  true,
}}

func request(port int, idle bool) *http.Request {
	body := `{"model":"bench","max_tokens":4096,"stream":true,"messages":[{"role":"user","content":"go"}]}`
	req, _ := http.NewRequest("POST", fmt.Sprintf("http://127.0.0.1:%d/v1/messages", port), strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if idle {
		req.Header.Set("X-Bench-Idle", "1")
	}
	return req
}

func warm(port int) {
	for i := 0; i < 2; i++ {
		res, err := client.Do(request(port, false))
		if err != nil {
			log.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
}

// startProfile records a CPU profile of Caddy (through its admin pprof
// endpoint) until the returned function is called.
func startProfile(path int) func() {
	if *profileDir == "" {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, err := http.Get(fmt.Sprintf("http://localhost:%d/debug/pprof/profile?seconds=%d", adminPort+path, *profileSeconds))
		if err != nil {
			log.Printf("profile: %v", err)
			return
		}
		defer res.Body.Close()
		_ = os.MkdirAll(*profileDir, 0o755)
		f, err := os.Create(filepath.Join(*profileDir, fmt.Sprintf("path%d.prof", path)))
		if err != nil {
			log.Printf("profile: %v", err)
			return
		}
		defer f.Close()
		_, _ = io.Copy(f, res.Body)
	}()
	return func() { <-done }
}

// throughput runs streams clients at once, each streaming the whole
// response rounds times, one after another, and returns the rate at which
// the answer was delivered (MB of model text per second of wall time: the
// same answer on every path, whatever its wire format), the SSE bytes the
// clients received per second, and Caddy's CPU seconds per MB of upstream.
func throughput(pid, port, upstreamBytes, textBytes, streams int) (streamMBps, sseMBps, cpuPerMB float64) {
	cpu0 := cpuSeconds(pid)
	start := time.Now()
	var received atomic.Int64
	var wg sync.WaitGroup
	for range streams {
		wg.Go(func() {
			for i := 0; i < *rounds; i++ {
				res, err := client.Do(request(port, false))
				if err != nil {
					log.Fatal(err)
				}
				n, err := io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if err != nil {
					log.Fatal(err)
				}
				received.Add(n)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	cpu := cpuSeconds(pid) - cpu0
	upMB := float64(upstreamBytes) * float64(*rounds*streams) / 1e6
	textMB := float64(textBytes) * float64(*rounds*streams) / 1e6
	return textMB / elapsed, float64(received.Load()) / 1e6 / elapsed, cpu / upMB
}

// ttfb opens ttfbStreams streams on each path, one after another and the
// paths in turns, keeping each open (idle after its first frames) while the
// next is measured, so the last ones are measured with that many streams in
// flight on their path; it returns each path's p50 and p99 of the time from
// sending a request to the first byte of its body, in ms. Taking turns puts
// the machine's hiccups on every path alike.
func ttfb(ports []int) (p50, p99 []float64) {
	times := make([][]float64, len(ports))
	var bodies []io.ReadCloser
	for i := 0; i < *ttfbStreams; i++ {
		for k, port := range ports {
			start := time.Now()
			res, err := client.Do(request(port, true))
			if err != nil {
				log.Fatal(err)
			}
			if _, err := bufio.NewReader(res.Body).ReadByte(); err != nil {
				log.Fatal(err)
			}
			times[k] = append(times[k], float64(time.Since(start).Microseconds())/1000)
			bodies = append(bodies, res.Body)
		}
	}
	releaseIdle()
	for _, b := range bodies {
		_, _ = io.Copy(io.Discard, b)
		b.Close()
	}
	for _, t := range times {
		sort.Float64s(t)
		p50 = append(p50, t[len(t)/2])
		p99 = append(p99, t[len(t)*99/100])
	}
	return p50, p99
}

// medians returns, per path, the median of the rounds' figures.
func medians(rounds [][]float64) []float64 {
	out := make([]float64, len(rounds[0]))
	for k := range out {
		var v []float64
		for _, r := range rounds {
			v = append(v, r[k])
		}
		sort.Float64s(v)
		out[k] = v[len(v)/2]
	}
	return out
}

// idleMemory opens idleStreams streams that go silent after their first
// frames and returns the growth of Caddy's resident memory per stream, KiB.
func idleMemory(pid, port int) float64 {
	client.CloseIdleConnections()
	time.Sleep(300 * time.Millisecond)
	before := rssKiB(pid)
	var wg sync.WaitGroup
	bodies := make([]io.ReadCloser, *idleStreams)
	sem := make(chan struct{}, 256)
	for i := range bodies {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			res, err := client.Do(request(port, true))
			if err != nil {
				log.Fatalf("idle stream %d: %v", i, err)
			}
			if _, err := bufio.NewReader(res.Body).ReadByte(); err != nil {
				log.Fatal(err)
			}
			bodies[i] = res.Body
		}()
	}
	wg.Wait()
	time.Sleep(500 * time.Millisecond)
	after := rssKiB(pid)
	releaseIdle()
	for _, b := range bodies {
		_, _ = io.Copy(io.Discard, b)
		b.Close()
	}
	client.CloseIdleConnections()
	return float64(after-before) / float64(*idleStreams)
}

func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		log.Fatal(err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100 // USER_HZ
}

func rssKiB(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			n, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return n
		}
	}
	return 0
}

func raiseFileLimit() {
	lim := syscall.Rlimit{Cur: 65536, Max: 65536}
	var cur syscall.Rlimit
	_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &cur)
	if cur.Max >= lim.Max {
		lim.Max = cur.Max
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		log.Printf("raising the open-file limit: %v (idle-stream figure may fail)", err)
	}
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "model name") {
			return strings.TrimSpace(line[strings.IndexByte(line, ':')+1:])
		}
	}
	return "unknown CPU"
}

func numCPU() int {
	n := 0
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "processor") {
			n++
		}
	}
	return n
}

func goVersion() string {
	out, _ := exec.Command("go", "env", "GOVERSION").Output()
	return strings.TrimSpace(string(out))
}
