package claudecode_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// runTimeout bounds one run of the CLI or of the SDK script.
const runTimeout = 3 * time.Minute

// printed is what Claude Code printed in stream-json: the content blocks
// of its assistant messages, and the result's text.
type printed struct {
	thinking []string
	toolUses []string // tool names
	results  []string // tool_result contents
	result   string
	isError  bool
	lines    string
}

func parsePrinted(t *testing.T, out []byte) printed {
	t.Helper()
	p := printed{lines: string(out)}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var line struct {
			Type    string `json:"type"`
			Message struct {
				Content []struct {
					Type     string          `json:"type"`
					Thinking string          `json:"thinking"`
					Name     string          `json:"name"`
					Content  json.RawMessage `json:"content"`
				} `json:"content"`
			} `json:"message"`
			Result  string `json:"result"`
			IsError bool   `json:"is_error"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue // not every line is an event (a warning on stdout)
		}
		for _, c := range line.Message.Content {
			switch c.Type {
			case "thinking":
				p.thinking = append(p.thinking, c.Thinking)
			case "tool_use":
				p.toolUses = append(p.toolUses, c.Name)
			case "tool_result":
				p.results = append(p.results, string(c.Content))
			}
		}
		if line.Type == "result" {
			p.result, p.isError = line.Result, line.IsError
		}
	}
	return p
}

// claude runs one non-interactive Claude Code turn in dir with home as
// HOME, against the gateway, and returns what it printed.
func claude(t *testing.T, bin, home, dir, gateway string, args ...string) printed {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	args = append([]string{"--output-format", "stream-json", "--verbose",
		"--model", "claude-sonnet-4-5", "--allowedTools", "Read"}, args...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"ANTHROPIC_BASE_URL=" + gateway,
		"ANTHROPIC_API_KEY=client-key",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"NO_COLOR=1",
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	p := parsePrinted(t, out)
	if err != nil || p.isError {
		t.Fatalf("claude %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return p
}

// TestClaudeCode runs the real Claude Code CLI, each pinned version,
// through the gateway with each provider: a first turn in which the model
// thinks and calls the Read tool, then answers from the tool's result, and
// a second turn (--continue) whose request carries the first turn's
// thinking back. It checks what Claude Code printed and what the upstream
// received.
func TestClaudeCode(t *testing.T) {
	needNode(t)
	for _, version := range []string{claudeCodeVersion, claudeCodeNewest} {
		bin := claudeBinary(t, version)
		for _, p := range providers(t) {
			t.Run(version+"/"+p.name, func(t *testing.T) {
				dir := t.TempDir()
				note := filepath.Join(dir, "note.txt")
				if err := os.WriteFile(note, []byte(noteMarker+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				readInput := fmt.Sprintf(`{"file_path":%s}`, q(note))
				up := recording(t, p, readInput)
				gw := testgw.Start(t, testgw.SlotClaudeCode, p.site(up))
				home := t.TempDir()

				first := claude(t, bin, home, dir, gw.URL, "-p", "Read note.txt and tell me what it says.")
				if !contains(first.thinking, thinking1) || !contains(first.thinking, thinking2) {
					t.Errorf("turn 1: thinking shown %q, want %q and %q\n%s", first.thinking, thinking1, thinking2, first.lines)
				}
				if len(first.toolUses) != 1 || first.toolUses[0] != "Read" || len(first.results) != 1 || !strings.Contains(first.results[0], noteMarker) {
					t.Errorf("turn 1: tools %q, results %q; want one Read whose result holds the note\n%s", first.toolUses, first.results, first.lines)
				}
				if first.result != answer2 {
					t.Errorf("turn 1: result %q, want %q", first.result, answer2)
				}

				second := claude(t, bin, home, dir, gw.URL, "-p", "--continue", "What did the note say? "+turn2Mark)
				if second.result != answer3 {
					t.Errorf("turn 2: result %q, want %q\n%s", second.result, answer3, second.lines)
				}

				// The upstream: the tool call, the answer from its result
				// and the second turn, each at the provider's path; the
				// two after the first carry its thinking back.
				var steps []step
				for i, r := range up.Requests() {
					steps = append(steps, stepOf(r.Body))
					if i > 0 && !bytes.Contains(r.Body, []byte(p.thinkingBack)) {
						t.Errorf("upstream request %d lacks the first turn's thinking (%s):\n%.3000s", i+1, p.thinkingBack, r.Body)
					}
				}
				if fmt.Sprint(steps) != fmt.Sprint([]step{stepToolCall, stepAnswer, stepSecondTurn}) {
					t.Errorf("upstream requests by step: %v, want [0 1 2]", steps)
				}
			})
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
