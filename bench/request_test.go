package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestClaudeCodeRequest holds the request-cost phase's generated request to
// the shape it claims: its size, the same bytes every time, and Claude
// Code's parts (a cached ~50 KB system prompt, 10+ tools with schemas, tool
// loops of signed thinking, text and tool_use answered by ~4 KB tool
// results of source code with quotes, backslashes, newlines, non-ASCII).
func TestClaudeCodeRequest(t *testing.T) {
	const size = 1_000_000
	body := claudeCodeRequest(size)
	if len(body) < size || len(body) > size+20_000 {
		t.Fatalf("request of %d bytes for size %d", len(body), size)
	}
	if !bytes.Equal(body, claudeCodeRequest(size)) {
		t.Fatal("two requests of one size differ")
	}
	if bytes.Contains(body, []byte(`\u003c`)) || !bytes.Contains(body, []byte("<system-reminder>")) {
		t.Error("'<' is escaped; Claude Code writes it raw")
	}
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
		System []struct {
			Text         string          `json:"text"`
			CacheControl json.RawMessage `json:"cache_control"`
		} `json:"system"`
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"input_schema"`
		} `json:"tools"`
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type      string          `json:"type"`
				Thinking  string          `json:"thinking"`
				Signature string          `json:"signature"`
				Text      string          `json:"text"`
				ID        string          `json:"id"`
				Input     json.RawMessage `json:"input"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	if !req.Stream || req.Model != "claude-sonnet-4-5-20250929" {
		t.Errorf("stream %v, model %q", req.Stream, req.Model)
	}
	if len(req.System) != 2 || len(req.System[1].Text) < 45_000 || len(req.System[1].Text) > 55_000 || string(req.System[1].CacheControl) != `{"type":"ephemeral"}` {
		t.Errorf("system prompt: %d blocks, the second %d bytes with cache_control %s", len(req.System), len(req.System[1].Text), req.System[1].CacheControl)
	}
	var names []string
	for _, tool := range req.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema["type"] != "object" || tool.InputSchema["properties"] == nil {
			t.Errorf("tool %s: schema %v", tool.Name, tool.InputSchema)
		}
	}
	if len(req.Tools) < 10 || !strings.Contains(strings.Join(names, ","), "Task,Bash,Glob,Grep,Read,Edit,Write") {
		t.Errorf("tools %v", names)
	}
	loops := 0
	for i, m := range req.Messages[1:] {
		if want := []string{"assistant", "user"}[i%2]; m.Role != want {
			t.Fatalf("message %d is %s's, want %s's", i+1, m.Role, want)
		}
		if m.Role == "assistant" {
			c := m.Content
			if len(c) != 3 || c[0].Type != "thinking" || c[0].Thinking == "" || len(c[0].Signature) < 400 ||
				c[1].Type != "text" || c[1].Text == "" || c[2].Type != "tool_use" || c[2].ID == "" || len(c[2].Input) < 10 {
				t.Fatalf("assistant turn %d: %+v", i+1, c)
			}
			continue
		}
		loops++
		r := m.Content[0]
		if len(m.Content) != 1 || r.Type != "tool_result" || r.ToolUseID != req.Messages[i].Content[2].ID {
			t.Fatalf("user turn %d: %+v", i+1, m.Content)
		}
		var text string
		if err := json.Unmarshal(r.Content, &text); err != nil {
			var blocks []struct{ Text string }
			if err := json.Unmarshal(r.Content, &blocks); err != nil || len(blocks) != 1 {
				t.Fatalf("tool result %d: %s", i+1, r.Content)
			}
			text = blocks[0].Text
		}
		if len(text) < 4000 || len(text) > 4200 || !strings.ContainsAny(text, "\"\\\n\t") || utf8.RuneCountInString(text) == len(text) {
			t.Fatalf("tool result %d is not ~4 KB of source with quotes, backslashes, newlines and non-ASCII: %.200q", i+1, text)
		}
	}
	if loops < 50 {
		t.Errorf("%d tool loops in 1 MB", loops)
	}
}
