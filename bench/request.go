package main

import (
	"bytes"
	"encoding/base64"
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
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/thinkgate/thinkgate/internal/eventstreamtest"
	"github.com/thinkgate/thinkgate/internal/requestshapes"
	"github.com/thinkgate/thinkgate/providers/responses/responsestest"
)

// The request-cost phase: what a large agent request costs on its way
// upstream. Claude Code sends its whole history on every turn, so its
// requests grow past a megabyte while the answer may be a few lines; this
// phase measures that case: a generated Claude Code request POSTed through
// plain reverse_proxy and through each provider, each in front of an
// upstream that answers a short stream in the provider's own wire format.

var (
	requestMB         = flag.String("request-mb", "1,10", "request-cost phase: sizes of the generated Claude Code request, MB, comma-separated")
	requestRepeat     = flag.Int("request-repeat", 9, "request-cost phase: timed requests per path and size, taken in turns; the median is reported")
	requestRSSRepeat  = flag.Int("request-rss-repeat", 3, "request-cost phase: fresh Caddy processes per path and size for the peak-memory figure; the median is reported")
	requestShapes     = flag.String("request-shapes", "all", "request-cost phase: the hostile request shapes (internal/requestshapes) to send through every path, comma-separated, all, or none")
	requestShapePaths = flag.String("request-shape-paths", "", "request-cost phase: send the shapes only through the paths whose name holds one of these words, comma-separated (e.g. openai,responses); empty: every path")
	requestShapeMB    = flag.Float64("request-shape-mb", 31*1.048576, "request-cost phase: the size of each hostile shape's request, MB")
)

// Each request-cost path has its own Caddy port and its own upstream port,
// so the upstream knows which path a body came through.
const (
	requestPortBase     = 19110
	requestAdminBase    = 19130
	requestUpstreamBase = 19140
)

// requestPath is one way through Caddy for the request-cost phase.
type requestPath struct {
	name string
	site string // the site's directives in front of the upstream
}

func requestPaths() []requestPath {
	paths := []requestPath{
		{"`reverse_proxy` (plain)", ""},
		{"`thinkgate anthropic` (passthrough)", "anthropic {\n"},
		{"`thinkgate azure`", "azure {\n\t\tapi_key bench-azure-key\n"},
		{"`thinkgate openai`", "openai {\n\t\tapi_key bench-openai-key\n\t\tmodel claude-* gpt-4.1\n"},
		{"`thinkgate responses`", "responses {\n\t\tapi_key bench-openai-key\n\t\tmodel claude-* gpt-5\n"},
		{"`thinkgate gemini`", "gemini {\n\t\tapi_key bench-gemini-key\n\t\tmodel claude-* gemini-2.5-pro\n"},
		{"`thinkgate amazonq`", "amazonq {\n\t\tapi_key bench-q-token\n\t\tmodel claude-* CLAUDE_SONNET_4_5_20250929_V1_0\n"},
	}
	for i, p := range paths {
		up := fmt.Sprintf("reverse_proxy 127.0.0.1:%d", requestUpstreamBase+i)
		if p.site != "" {
			up = "thinkgate " + p.site + "\t\tsigning_key bench-signing-key\n\t\tkeepalive off\n\t}\n\t" + up
		}
		paths[i].site = up
	}
	return paths
}

// requestPhase measures, for each request size, the time from sending the
// request to the end of the answer on every path (median of runs taken in
// turns, path after path), Caddy's CPU per MB of request, and the peak
// resident memory one request adds to a freshly started Caddy.
func requestPhase(bin string) {
	var sizes []float64
	for _, f := range strings.Split(*requestMB, ",") {
		mb, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || mb <= 0 {
			log.Fatalf("-request-mb: %q is not a positive number of MB", f)
		}
		sizes = append(sizes, mb)
	}
	paths := requestPaths()
	for i := range paths {
		up := startRequestUpstream(i)
		defer up.Close()
	}

	fmt.Printf("\nrequest cost: a generated Claude Code request (system prompt %.0f KB with cache_control, %d tools with JSON Schemas, tool loops of signed thinking, text, tool_use and a ~4 KB tool_result), \"stream\": true;\n",
		float64(len(systemPrompt()))/1e3, len(claudeCodeTools()))
	fmt.Println("each upstream answers a short stream in its own wire format. Time: from sending the request to the end of the answer, median of runs taken in turns.")
	fmt.Println("Peak RSS: VmHWM of a freshly started Caddy after one request minus its VmHWM after a small warm-up request, median over fresh processes.")
	fmt.Println()
	fmt.Println("| request | path | upstream body | time to the end of the answer | added per MB of request | Caddy CPU per MB of request (added) | peak RSS added by one request (its body included) | over plain `reverse_proxy` |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|")
	for _, mb := range sizes {
		body := claudeCodeRequest(int(mb * 1e6))
		reqMB := float64(len(body)) / 1e6
		times, cpu := requestTimes(bin, paths, body)
		rss := requestPeakRSS(bin, paths, body)
		for i, p := range paths {
			added, addedRSS := "—", "—"
			cpuPerMB := fmt.Sprintf("%.1f ms", cpu[i]*1e3/reqMB)
			if i > 0 {
				added = fmt.Sprintf("%+.1f ms", (times[i]-times[0])/reqMB)
				cpuPerMB += fmt.Sprintf(" (%+.1f)", (cpu[i]-cpu[0])*1e3/reqMB)
				addedRSS = fmt.Sprintf("%+.1f MiB (%.1f× body)", (rss[i]-rss[0])/1024, (rss[i]-rss[0])*1024/float64(len(body)))
			}
			fmt.Printf("| %.2f MB | %s | %.2f MB | %.1f ms | %s | %s | %.1f MiB | %s |\n",
				reqMB, p.name, float64(upstreamBodies.get(i))/1e6, times[i], added, cpuPerMB, rss[i]/1024, addedRSS)
		}
	}
	shapesPhase(bin, paths)
	var counts []string
	for i, p := range paths {
		counts = append(counts, fmt.Sprintf("%s %d", p.name, answered[i]))
	}
	fmt.Printf("\nEvery request was answered 200 with a complete stream (message_stop, no error event): %s.\n", strings.Join(counts, ", "))
}

// requestTimes starts one Caddy per path and POSTs body through the paths
// in turns, requestRepeat times each after two untimed warm-up rounds. It
// returns each path's median time to the end of the answer, in ms, and its
// Caddy's mean CPU seconds per request.
func requestTimes(bin string, paths []requestPath, body []byte) (ms, cpu []float64) {
	caddies := make([]*exec.Cmd, len(paths))
	for i, p := range paths {
		caddies[i] = startCaddyConfig(bin, requestAdminBase+i, requestPortBase+i, p.site)
	}
	defer func() {
		for _, c := range caddies {
			_ = c.Process.Kill()
			_, _ = c.Process.Wait()
		}
		requestClient.CloseIdleConnections()
	}()
	for range 2 {
		for i := range paths {
			postRequest(i, body)
		}
	}
	// A Caddy's CPU is read over all its runs, not around each request:
	// its garbage collector goes on working after the answer, while the
	// other paths take their turns.
	runs := make([][]float64, len(paths))
	cpu0 := make([]float64, len(paths))
	for i, c := range caddies {
		cpu0[i] = cpuSeconds(c.Process.Pid)
	}
	for range *requestRepeat {
		for i := range paths {
			runs[i] = append(runs[i], postRequest(i, body))
		}
	}
	for i, c := range caddies {
		sort.Float64s(runs[i])
		ms = append(ms, runs[i][len(runs[i])/2])
		cpu = append(cpu, (cpuSeconds(c.Process.Pid)-cpu0[i])/float64(*requestRepeat))
	}
	return ms, cpu
}

// requestPeakRSS returns, per path, the median growth of a fresh Caddy's
// resident-memory high-water mark (VmHWM) from one request of body, KiB.
// Each sample is a new process: warmed with a small request, so that the
// runtime and the path's set-up are in the baseline, then sent body once.
func requestPeakRSS(bin string, paths []requestPath, body []byte) []float64 {
	small := claudeCodeRequest(0)
	samples := make([][]float64, len(paths))
	for range *requestRSSRepeat {
		for i, p := range paths {
			c := startCaddyConfig(bin, requestAdminBase+i, requestPortBase+i, p.site)
			postRequest(i, small)
			before := hwmKiB(c.Process.Pid)
			postRequest(i, body)
			after := hwmKiB(c.Process.Pid)
			_ = c.Process.Kill()
			_, _ = c.Process.Wait()
			requestClient.CloseIdleConnections()
			samples[i] = append(samples[i], float64(after-before))
		}
	}
	out := make([]float64, len(paths))
	for i, s := range samples {
		sort.Float64s(s)
		out[i] = s[len(s)/2]
	}
	return out
}

// requestClient keeps one connection per path, so a request's time is
// its own, not a connection's set-up.
var requestClient = &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4}}

// postRequest sends body through path i and reads the answer to its end,
// returning the time taken in ms. Any answer but a complete 200 stream
// stops the benchmark: a rejected request would measure an error path.
func postRequest(i int, body []byte) float64 {
	req, _ := http.NewRequest("POST", fmt.Sprintf("http://127.0.0.1:%d/v1/messages", requestPortBase+i), bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("X-Api-Key", "bench-client-key")
	start := time.Now()
	res, err := requestClient.Do(req)
	if err != nil {
		log.Fatalf("request-cost path %s: %v", requestPaths()[i].name, err)
	}
	got, err := io.ReadAll(res.Body)
	res.Body.Close()
	elapsed := float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		log.Fatalf("request-cost path %s: reading the answer: %v", requestPaths()[i].name, err)
	}
	if res.StatusCode != http.StatusOK || !bytes.Contains(got, []byte("event: message_stop")) || bytes.Contains(got, []byte("event: error")) {
		log.Fatalf("request-cost path %s: the %d-byte request got status %d, not a complete stream:\n%.2000s", requestPaths()[i].name, len(body), res.StatusCode, got)
	}
	answered[i]++
	return elapsed
}

// answered counts, per path, the requests answered with a complete stream.
var answered = map[int]int{}

func hwmKiB(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			n, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return n
		}
	}
	log.Fatal("no VmHWM in /proc/<pid>/status")
	return 0
}

// bodySizes holds the size of the last body each request-cost path sent
// upstream.
type bodySizes struct {
	sync.Mutex
	byPath map[int]int64
}

func (b *bodySizes) set(path int, n int64) {
	b.Lock()
	defer b.Unlock()
	b.byPath[path] = n
}

func (b *bodySizes) get(path int) int64 {
	b.Lock()
	defer b.Unlock()
	return b.byPath[path]
}

var upstreamBodies = bodySizes{byPath: map[int]int64{}}

// startRequestUpstream serves request-cost path i's upstream: it reads the
// whole body and answers a short stream in the wire format the request's
// path asks for.
func startRequestUpstream(path int) *http.Server {
	answers := shortAnswers()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		upstreamBodies.set(path, n)
		var a shortAnswer
		switch {
		case strings.HasSuffix(r.URL.Path, "/chat/completions"):
			a = answers["openai"]
		case strings.HasSuffix(r.URL.Path, "/responses"):
			a = answers["responses"]
		case strings.Contains(r.URL.Path, ":streamGenerateContent"):
			a = answers["gemini"]
		case r.URL.Path == "/generateAssistantResponse":
			a = answers["amazonq"]
		case strings.HasSuffix(r.URL.Path, "/v1/messages"):
			a = answers["anthropic"]
		default:
			http.Error(w, "bench upstream: unknown path "+r.URL.Path, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", a.contentType)
		_, _ = w.Write(a.body)
	})
	srv := &http.Server{Addr: fmt.Sprintf("127.0.0.1:%d", requestUpstreamBase+path), Handler: h}
	ln, err := net.Listen("tcp", srv.Addr)
	if err != nil {
		log.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	return srv
}

type shortAnswer struct {
	contentType string
	body        []byte
}

// shortAnswers is a two-sentence answer in each upstream's wire format.
func shortAnswers() map[string]shortAnswer {
	pieces := []string{"I read the file. ", "The test failed on a \"quoted\" path; ", "it passes now — ", "done."}
	var anthropic bytes.Buffer
	anthropic.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_bench\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"bench\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":250000,\"output_tokens\":1}}}\n\n")
	anthropic.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	var openai, gemini, amazonq bytes.Buffer
	openai.WriteString(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n")
	for _, p := range pieces {
		j := jsonString(p)
		fmt.Fprintf(&anthropic, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":%s}}\n\n", j)
		fmt.Fprintf(&openai, `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"content":%s},"finish_reason":null}]}`+"\n\n", j)
		fmt.Fprintf(&gemini, `data: {"candidates": [{"content": {"parts": [{"text": %s}],"role": "model"},"index": 0}],"modelVersion": "gemini-2.5-pro","responseId": "bench"}`+"\r\n\r\n", j)
		amazonq.Write(eventStreamFrame("assistantResponseEvent", `{"content":`+string(j)+`}`))
	}
	anthropic.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
	anthropic.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":20}}\n\n")
	anthropic.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	openai.WriteString(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n")
	openai.WriteString(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[],"usage":{"prompt_tokens":250000,"completion_tokens":20,"total_tokens":250020}}` + "\n\n")
	openai.WriteString("data: [DONE]\n\n")
	gemini.WriteString(`data: {"candidates": [{"content": {"parts": [{"text": ""}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 250000,"candidatesTokenCount": 20,"totalTokenCount": 250020},"modelVersion": "gemini-2.5-pro","responseId": "bench"}` + "\r\n\r\n")
	amazonq.Write(eventStreamFrame("metadataEvent", `{"tokenUsage":{"uncachedInputTokens":250000,"outputTokens":20,"totalTokens":250020}}`))
	rs := responsestest.New("resp_bench", "gpt-5").Message("msg_bench", strings.Join(pieces, ""), len(pieces)).
		Completed(responsestest.Usage(250000, 0, 20, 0))
	return map[string]shortAnswer{
		"responses": {"text/event-stream", rs.Bytes()},
		"anthropic": {"text/event-stream", anthropic.Bytes()},
		"openai":    {"text/event-stream", openai.Bytes()},
		"gemini":    {"text/event-stream", gemini.Bytes()},
		"amazonq":   {"application/vnd.amazon.eventstream", amazonq.Bytes()},
	}
}

// eventStreamFrame is one AWS event-stream event, as Amazon Q sends them.
func eventStreamFrame(eventType, payload string) []byte {
	return eventstreamtest.AmazonQEvent(eventType, []byte(payload))
}

// --- the generated request ---

// The request's parts, in the order Claude Code writes its members.
type (
	ccRequest struct {
		Model     string         `json:"model"`
		Messages  []ccMessage    `json:"messages"`
		System    []ccBlock      `json:"system"`
		Tools     []ccTool       `json:"tools"`
		Metadata  map[string]any `json:"metadata"`
		MaxTokens int            `json:"max_tokens"`
		Thinking  map[string]any `json:"thinking"`
		Stream    bool           `json:"stream"`
	}
	ccMessage struct {
		Role    string    `json:"role"`
		Content []ccBlock `json:"content"`
	}
	ccBlock struct {
		Type         string            `json:"type"`
		Text         *string           `json:"text,omitempty"`
		Thinking     *string           `json:"thinking,omitempty"`
		Signature    string            `json:"signature,omitempty"`
		ID           string            `json:"id,omitempty"`
		Name         string            `json:"name,omitempty"`
		Input        map[string]any    `json:"input,omitempty"`
		ToolUseID    string            `json:"tool_use_id,omitempty"`
		Content      any               `json:"content,omitempty"`
		CacheControl map[string]string `json:"cache_control,omitempty"`
	}
	ccTool struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		InputSchema map[string]any `json:"input_schema"`
	}
)

// marshal encodes v as Claude Code (JavaScript's JSON.stringify) does:
// '<', '>' and '&' raw, non-ASCII text as UTF-8.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		log.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// claudeCodeRequest generates, deterministically, a request shaped like a
// long Claude Code session of about size bytes (at least the system
// prompt, the tools and one tool loop): a ~50 KB cached system prompt,
// Claude Code's tools with their JSON Schemas, and a history of tool
// loops, each an assistant turn of signed thinking, text and a tool_use,
// answered by a user turn holding the tool's ~4 KB output (source code:
// quotes, backslashes, newlines, tabs, non-ASCII).
func claudeCodeRequest(size int) []byte {
	rng := rand.New(rand.NewPCG(20, 18))
	system := systemPrompt()
	req := ccRequest{
		Model: "claude-sonnet-4-5-20250929",
		System: []ccBlock{
			{Type: "text", Text: ptr("You are Claude Code, Anthropic's official CLI for Claude.")},
			{Type: "text", Text: &system, CacheControl: map[string]string{"type": "ephemeral"}},
		},
		Tools:     claudeCodeTools(),
		Metadata:  map[string]any{"user_id": `user_3f1c0d9e8b7a6f5e4d3c2b1a09f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0_account__session_7d1f3a2e-5b8c-4e6f-9a0d-1c2b3e4f5a6b`},
		MaxTokens: 32000,
		Thinking:  map[string]any{"type": "enabled", "budget_tokens": 31999},
		Stream:    true,
	}
	req.Messages = []ccMessage{{Role: "user", Content: []ccBlock{
		{Type: "text", Text: ptr("<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# claudeMd\nRun `go test -race ./...` before committing.\n</system-reminder>")},
		{Type: "text", Text: ptr("The parser's test fails on Windows paths like C:\\Users\\José\\src — can you fix it?")},
	}}}
	n := len(marshal(req))
	for i := 0; i == 0 || n < size; i++ {
		assistant, user := toolLoop(rng, i)
		req.Messages = append(req.Messages, assistant, user)
		n += len(marshal(assistant)) + len(marshal(user)) + 2
	}
	// Claude Code marks the last turn for the prompt cache.
	last := &req.Messages[len(req.Messages)-1].Content[0]
	last.CacheControl = map[string]string{"type": "ephemeral"}
	return marshal(req)
}

func ptr(s string) *string { return &s }

var toolCalls = []struct {
	name  string
	input func(i int) map[string]any
}{
	{"Read", func(i int) map[string]any {
		return map[string]any{"file_path": fmt.Sprintf("/home/dev/thinkgate/pkg/parse_%d.go", i)}
	}},
	{"Bash", func(i int) map[string]any {
		return map[string]any{"command": fmt.Sprintf("go test ./pkg/ -run 'TestParse/case_%d' -v 2>&1 | head -80", i), "description": "Run the failing case"}
	}},
	{"Grep", func(i int) map[string]any {
		return map[string]any{"pattern": fmt.Sprintf(`func \(p \*Parser\) step%d\(`, i), "path": "pkg", "output_mode": "content", "-n": true}
	}},
	{"Edit", func(i int) map[string]any {
		return map[string]any{"file_path": fmt.Sprintf("/home/dev/thinkgate/pkg/parse_%d.go", i),
			"old_string": "\tif r == '\\\\' {\n\t\treturn sep\n\t}", "new_string": "\tif r == '\\\\' || r == '/' {\n\t\treturn sep // both separators on Windows\n\t}"}
	}},
}

// toolLoop is one assistant turn (signed thinking, text, a tool_use) and
// the user turn with the tool's result.
func toolLoop(rng *rand.Rand, i int) (assistant, user ccMessage) {
	thoughts := []string{
		"The failure is in the path splitter: it only knows '/' as a separator. ",
		"I should read the file before changing anything, then run the one failing case again. ",
		"The test table has a case with a backslash and a non-ASCII user name (José), which the splitter cuts inside the rune. ",
		"Edit the condition, keep the behaviour for Unix paths, and check the tests still pass. ",
	}
	var thinking strings.Builder
	for k := 3 + rng.IntN(6); k > 0; k-- {
		thinking.WriteString(thoughts[rng.IntN(len(thoughts))])
	}
	sig := make([]byte, 300+rng.IntN(200))
	for k := range sig {
		sig[k] = byte(rng.Uint32())
	}
	call := toolCalls[i%len(toolCalls)]
	id := fmt.Sprintf("toolu_01%022d", i)
	assistant = ccMessage{Role: "assistant", Content: []ccBlock{
		{Type: "thinking", Thinking: ptr(thinking.String()), Signature: base64.StdEncoding.EncodeToString(sig)},
		{Type: "text", Text: ptr(fmt.Sprintf("Let me look at step %d of the parser.", i))},
		{Type: "tool_use", ID: id, Name: call.name, Input: call.input(i)},
	}}
	result := ccBlock{Type: "tool_result", ToolUseID: id, Content: sourceCode(rng, 4000)}
	if i%3 == 2 {
		// Read and MCP tools answer with an array of text blocks.
		result.Content = []ccBlock{{Type: "text", Text: ptr(sourceCode(rng, 4000))}}
	}
	user = ccMessage{Role: "user", Content: []ccBlock{result}}
	return assistant, user
}

// sourceCode is about n bytes of numbered Go source, as the Read tool
// shows it.
func sourceCode(rng *rand.Rand, n int) string {
	lines := []string{
		"func (p *Parser) split(path string) []string {",
		"\tparts := strings.FieldsFunc(path, func(r rune) bool { return r == '/' || r == '\\\\' })",
		"\tif len(parts) == 0 {\n\t\treturn nil\n\t}",
		"\t// Größe der Einträge — 日本語のコメント ✓",
		"\tmsg := fmt.Sprintf(\"unexpected %q in \\\"%s\\\"\\n\", r, path)",
		"\tre := regexp.MustCompile(`^[A-Za-z]:\\\\(?:[^\\\\/:*?\"<>|\\r\\n]+\\\\)*$`)",
		"\treturn append(out, \"C:\\\\Users\\\\José\\\\src\")",
		"}",
		"",
		"// splitAll handles <thinking> tags & entities like &amp; in file names.",
		"\tfor i, r := range s {\n\t\tif r == '\\t' || r == '\\u00a0' {\n\t\t\tcontinue\n\t\t}\n\t}",
	}
	var b strings.Builder
	for k := 1; b.Len() < n; k++ {
		fmt.Fprintf(&b, "%6d\t%s\n", k, lines[rng.IntN(len(lines))])
	}
	return b.String()
}

// systemPrompt is a ~50 KB system prompt in the manner of Claude Code's:
// Markdown instructions, examples with quotes and tags, the environment.
func systemPrompt() string {
	paragraphs := []string{
		"You are an interactive CLI tool that helps users with software engineering tasks. Use the instructions below and the tools available to you to assist the user.\n\n",
		"# Tone and style\nYou should be concise, direct, and to the point. When you run a non-trivial bash command, you should explain what the command does and why you are running it.\n\n",
		"<example>\nuser: what is 2+2?\nassistant: 4\n</example>\n\n",
		"# Following conventions\nWhen making changes to files, first understand the file's code conventions. Mimic code style, use existing libraries and utilities, and follow existing patterns. NEVER assume that a given library is available — check the \"package.json\" or \"go.mod\" first.\n\n",
		"# Task Management\nYou have access to the TodoWrite tools to help you manage and plan tasks. Use these tools VERY frequently to ensure that you are tracking your tasks & giving the user visibility into your progress.\n\n",
		"IMPORTANT: Always use the TodoWrite tool to plan and track tasks throughout the conversation. Paths look like `C:\\Users\\name\\project` on Windows and `/home/name/project` elsewhere.\n\n",
		"# Code References\nWhen referencing specific functions or pieces of code include the pattern `file_path:line_number` to allow the user to easily navigate to the source code location.\n\n",
	}
	var b strings.Builder
	for i := 0; b.Len() < 48_000; i++ {
		b.WriteString(paragraphs[i%len(paragraphs)])
	}
	b.WriteString("<env>\nWorking directory: /home/dev/thinkgate\nIs directory a git repo: Yes\nPlatform: linux\nToday's date: 2025-11-20\n</env>\nYou are powered by the model named Sonnet 4.5. The exact model ID is claude-sonnet-4-5-20250929.\n\ngitStatus: This is the git status at the start of the conversation.\nCurrent branch: main\n\nStatus:\nM pkg/parse.go\n?? pkg/parse_windows_test.go\n")
	return b.String()
}

// claudeCodeTools are Claude Code's built-in tools with their input
// schemas; the descriptions are filler of about the real lengths.
func claudeCodeTools() []ccTool {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	num := func(desc string) map[string]any { return map[string]any{"type": "number", "description": desc} }
	boolean := func(desc string) map[string]any { return map[string]any{"type": "boolean", "description": desc} }
	schema := func(props map[string]any, required ...string) map[string]any {
		return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false,
			"$schema": "http://json-schema.org/draft-07/schema#"}
	}
	todo := map[string]any{"type": "object", "properties": map[string]any{
		"content":    map[string]any{"type": "string", "minLength": 1},
		"status":     map[string]any{"type": "string", "enum": []string{"pending", "in_progress", "completed"}},
		"activeForm": map[string]any{"type": "string", "minLength": 1},
	}, "required": []string{"content", "status", "activeForm"}, "additionalProperties": false}
	tools := []struct {
		name, desc string
		length     int
		schema     map[string]any
	}{
		{"Task", "Launch a new agent to handle complex, multi-step tasks autonomously.", 4000,
			schema(map[string]any{"description": str("A short (3-5 word) description of the task"), "prompt": str("The task for the agent to perform"), "subagent_type": str("The type of specialized agent to use for this task")}, "description", "prompt", "subagent_type")},
		{"Bash", "Executes a given bash command in a persistent shell session with optional timeout, ensuring proper handling and security measures.", 9000,
			schema(map[string]any{"command": str("The command to execute"), "timeout": num("Optional timeout in milliseconds (max 600000)"), "description": str("Clear, concise description of what this command does in 5-10 words"), "run_in_background": boolean("Set to true to run this command in the background")}, "command")},
		{"Glob", "Fast file pattern matching tool that works with any codebase size. Supports glob patterns like \"**/*.js\" or \"src/**/*.ts\".", 600,
			schema(map[string]any{"pattern": str("The glob pattern to match files against"), "path": str("The directory to search in")}, "pattern")},
		{"Grep", "A powerful search tool built on ripgrep. Supports full regex syntax (e.g., \"log.*Error\", \"function\\\\s+\\\\w+\").", 2500,
			schema(map[string]any{"pattern": str("The regular expression pattern to search for in file contents"), "path": str("File or directory to search in"),
				"output_mode": map[string]any{"type": "string", "enum": []string{"content", "files_with_matches", "count"}}, "-i": boolean("Case insensitive search"), "-n": boolean("Show line numbers in output"), "head_limit": num("Limit output to first N lines/entries")}, "pattern")},
		{"Read", "Reads a file from the local filesystem. You can access any file directly by using this tool.", 1800,
			schema(map[string]any{"file_path": str("The absolute path to the file to read"), "offset": num("The line number to start reading from"), "limit": num("The number of lines to read")}, "file_path")},
		{"Edit", "Performs exact string replacements in files.", 1500,
			schema(map[string]any{"file_path": str("The absolute path to the file to modify"), "old_string": str("The text to replace"), "new_string": str("The text to replace it with (must be different from old_string)"), "replace_all": map[string]any{"type": "boolean", "default": false, "description": "Replace all occurences of old_string (default false)"}}, "file_path", "old_string", "new_string")},
		{"Write", "Writes a file to the local filesystem.", 700,
			schema(map[string]any{"file_path": str("The absolute path to the file to write (must be absolute, not relative)"), "content": str("The content to write to the file")}, "file_path", "content")},
		{"NotebookEdit", "Completely replaces the contents of a specific cell in a Jupyter notebook (.ipynb file) with new source.", 700,
			schema(map[string]any{"notebook_path": str("The absolute path to the Jupyter notebook file to edit"), "new_source": str("The new source for the cell"), "cell_id": str("The ID of the cell to edit"),
				"edit_mode": map[string]any{"type": "string", "enum": []string{"replace", "insert", "delete"}}}, "notebook_path", "new_source")},
		{"WebFetch", "Fetches content from a specified URL and processes it using an AI model.", 1500,
			schema(map[string]any{"url": map[string]any{"type": "string", "format": "uri", "description": "The URL to fetch content from"}, "prompt": str("The prompt to run on the fetched content")}, "url", "prompt")},
		{"TodoWrite", "Use this tool to create and manage a structured task list for your current coding session.", 9000,
			schema(map[string]any{"todos": map[string]any{"type": "array", "items": todo, "description": "The updated todo list"}}, "todos")},
		{"WebSearch", "Allows Claude to search the web and use the results to inform responses.", 900,
			schema(map[string]any{"query": map[string]any{"type": "string", "minLength": 2, "description": "The search query to use"},
				"allowed_domains": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}, "blocked_domains": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}, "query")},
		{"BashOutput", "Retrieves output from a running or completed background bash shell.", 500,
			schema(map[string]any{"bash_id": str("The ID of the background shell to retrieve output from"), "filter": str("Optional regular expression to filter the output lines")}, "bash_id")},
		{"KillShell", "Kills a running background bash shell by its ID.", 300,
			schema(map[string]any{"shell_id": str("The ID of the background shell to kill")}, "shell_id")},
		{"SlashCommand", "Execute a slash command within the main conversation.", 1200,
			schema(map[string]any{"command": str(`The slash command to execute with its arguments, e.g., "/review-pr 123"`)}, "command")},
	}
	filler := []string{
		"\n\nUsage notes:\n  - ", "Always quote file paths that contain spaces with double quotes (e.g., cd \"path with spaces/file.txt\"). ",
		"Prefer the dedicated tool over running `find`, `grep` or `cat` in a shell. ", "You can call multiple tools in a single response. ",
		"<example>\nuser: \"run the build\"\nassistant: [runs the build]\n</example>\n", "IMPORTANT: never use this tool for tasks the user did not ask for. ",
	}
	out := make([]ccTool, len(tools))
	for i, t := range tools {
		var b strings.Builder
		b.WriteString(t.desc)
		for k := 0; b.Len() < t.length; k++ {
			b.WriteString(filler[(i+k)%len(filler)])
		}
		out[i] = ccTool{Name: t.name, Description: b.String(), InputSchema: t.schema}
	}
	return out
}

// shapesPhase sends each hostile request shape (internal/requestshapes)
// through every path once, each to a freshly started Caddy warmed with a
// small request, and reports the answer and the peak resident memory the
// request added (VmHWM), its body included, as a multiple of the body.
func shapesPhase(bin string, paths []requestPath) {
	var shapes []requestshapes.Shape
	for _, s := range requestshapes.Shapes {
		if *requestShapes == "all" || strings.Contains(","+*requestShapes+",", ","+s.Name+",") {
			shapes = append(shapes, s)
		}
	}
	if len(shapes) == 0 {
		return
	}
	size := int(*requestShapeMB * 1e6)
	fmt.Printf("\nhostile request shapes, %.1f MB each (internal/requestshapes), one request to a fresh Caddy warmed with a small request; peak RSS added (VmHWM), the body included:\n\n", float64(size)/1e6)
	fmt.Println("| shape | path | answer | peak RSS added | × body |")
	fmt.Println("|---|---|---|---:|---:|")
	small := claudeCodeRequest(0)
	for _, shape := range shapes {
		body := shape.Build(size)
		for i, p := range paths {
			if !shapePath(p.name) {
				continue
			}
			c := startCaddyConfig(bin, requestAdminBase+i, requestPortBase+i, p.site)
			postRequest(i, small)
			before := hwmKiB(c.Process.Pid)
			status, answer := postShape(i, body)
			after := hwmKiB(c.Process.Pid)
			_ = c.Process.Kill()
			_, _ = c.Process.Wait()
			requestClient.CloseIdleConnections()
			added := float64(after-before) * 1024
			fmt.Printf("| %s | %s | %d %s | %.1f MiB | %.2f |\n", shape.Name, p.name, status, answer, added/(1<<20), added/float64(len(body)))
		}
	}
}

// postShape sends body through path i and returns the answer's status
// and, for an error, its message; any answer but a complete 200 stream or
// an Anthropic-shaped error stops the benchmark.
func postShape(i int, body []byte) (int, string) {
	req, _ := http.NewRequest("POST", fmt.Sprintf("http://127.0.0.1:%d/v1/messages", requestPortBase+i), bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("X-Api-Key", "bench-client-key")
	res, err := requestClient.Do(req)
	if err != nil {
		log.Fatalf("shape through %s: %v", requestPaths()[i].name, err)
	}
	got, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		log.Fatalf("shape through %s: reading the answer: %v", requestPaths()[i].name, err)
	}
	if res.StatusCode == http.StatusOK && bytes.Contains(got, []byte("event: message_stop")) && !bytes.Contains(got, []byte("event: error")) {
		return res.StatusCode, "stream"
	}
	var e struct {
		Error struct{ Message string } `json:"error"`
	}
	if res.StatusCode >= 400 && json.Unmarshal(got, &e) == nil && e.Error.Message != "" {
		return res.StatusCode, "`" + e.Error.Message + "`"
	}
	log.Fatalf("shape through %s: status %d, not a stream nor an error:\n%.2000s", requestPaths()[i].name, res.StatusCode, got)
	return 0, ""
}

// shapePath reports a path -request-shape-paths selects.
func shapePath(name string) bool {
	if *requestShapePaths == "" {
		return true
	}
	for _, w := range strings.Split(*requestShapePaths, ",") {
		if w = strings.TrimSpace(w); w != "" && strings.Contains(name, w) {
			return true
		}
	}
	return false
}
