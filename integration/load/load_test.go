// Package load_test runs many concurrent streams through a real Caddy and
// checks that every byte of every stream's text and thinking arrives. It is
// skipped under -short and under the race detector (whose goroutine limit
// 1,000 streams would exceed); the project's test command runs it on its own.
package load_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

const streams = 1000

// streamText is stream n's model output: text, a thinking span, more text,
// with content unique to n so crossed wires would show.
func streamText(n int) (full, text, thinking string) {
	intro := fmt.Sprintf("Stream %d says hello — 你好 %d. ", n, n*7)
	think := fmt.Sprintf("Reasoning for %d: %s", n, strings.Repeat(fmt.Sprintf("step %d; ", n%13), 20))
	answer := fmt.Sprintf("Answer %d is %d. 🎯", n, n*n)
	return intro + "<thinking>" + think + "</thinking>" + answer, intro + answer, think
}

func TestLoad(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's goroutine limit is below what 1,000 streams need; run without -race")
	}
	// Every upstream stream sends its first bytes, then waits until all
	// streams are open at once before it goes on: the streams really are
	// concurrent, not merely started together.
	var arrived sync.WaitGroup
	arrived.Add(streams)
	allOpen := make(chan struct{})
	go func() { arrived.Wait(); close(allOpen) }()
	up := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Metadata struct {
				UserID string `json:"user_id"`
			} `json:"metadata"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		n, _ := strconv.Atoi(req.Metadata.UserID)
		full, _, _ := streamText(n)
		ev := []testgw.Event{
			{Name: "message_start", Data: `{"type":"message_start","message":{"id":"msg_` + strconv.Itoa(n) + `","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}`},
			{Name: "content_block_start", Data: `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
		}
		runes := []rune(full)
		for i := 0; i < len(runes); i += 6 {
			b, _ := json.Marshal(string(runes[i:min(i+6, len(runes))]))
			ev = append(ev, testgw.Event{Name: "content_block_delta", Data: `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":` + string(b) + `}}`})
		}
		ev = append(ev,
			testgw.Event{Name: "content_block_stop", Data: `{"type":"content_block_stop","index":0}`},
			testgw.Event{Name: "message_delta", Data: `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":50}}`},
			testgw.Event{Name: "message_stop", Data: `{"type":"message_stop"}`},
		)
		sse := testgw.SSE(ev...)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(sse[:200])
		_ = http.NewResponseController(w).Flush()
		arrived.Done()
		select {
		case <-allOpen:
		case <-time.After(90 * time.Second):
			return // cut: the client side reports the stream as failed
		}
		rc := http.NewResponseController(w)
		for rest := sse[200:]; len(rest) > 0; rest = rest[min(97, len(rest)):] {
			_, _ = w.Write(rest[:min(97, len(rest))])
			_ = rc.Flush()
		}
	})
	gw := testgw.Start(t, testgw.SlotLoad, fmt.Sprintf("thinkgate anthropic {\n\tsplit_tags\n}\nreverse_proxy %s {\n\ttransport http {\n\t\tkeepalive_idle_conns_per_host 1024\n\t}\n}", up.Addr()))

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: streams, MaxConnsPerHost: 0}, Timeout: 2 * time.Minute}
	var wg sync.WaitGroup
	errs := make(chan error, streams)
	start := make(chan struct{})
	for n := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs <- runStream(client, gw.URL, n)
		}()
	}
	began := time.Now()
	close(start)
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			failed++
			if failed <= 5 {
				t.Error(err)
			}
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d streams failed", failed, streams)
	}
	t.Logf("%d concurrent streams checked byte for byte in %v", streams, time.Since(began))
}

func runStream(client *http.Client, base string, n int) error {
	body := fmt.Sprintf(`{"model":"m","max_tokens":100,"stream":true,"metadata":{"user_id":"%d"},"messages":[{"role":"user","content":"go"}]}`, n)
	req, _ := http.NewRequest("POST", base+"/v1/messages", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("stream %d: %v", n, err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		return fmt.Errorf("stream %d: status %d", n, res.StatusCode)
	}
	var text, thinking strings.Builder
	var last string
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "data: ") {
			continue
		}
		var ev struct {
			Type  string `json:"type"`
			Delta struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				Thinking string `json:"thinking"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(line[6:]), &ev); err != nil {
			return fmt.Errorf("stream %d: %v", n, err)
		}
		last = ev.Type
		switch ev.Delta.Type {
		case "text_delta":
			text.WriteString(ev.Delta.Text)
		case "thinking_delta":
			thinking.WriteString(ev.Delta.Thinking)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("stream %d: %v", n, err)
	}
	_, wantText, wantThinking := streamText(n)
	if last != "message_stop" || text.String() != wantText || thinking.String() != wantThinking {
		return fmt.Errorf("stream %d: last event %q\ntext %q\nwant %q\nthinking %q\nwant %q", n, last, text.String(), wantText, thinking.String(), wantThinking)
	}
	return nil
}
