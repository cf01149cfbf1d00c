package emit

import (
	"encoding/json"
	"strings"
	"testing"
)

const (
	testCitation  = `{"type":"web_search_result_location","url":"https://example.com/a","title":"A","encrypted_index":"Eo8B","cited_text":"alpha"}`
	testCitation2 = `{"type":"char_location","document_index":0,"document_title":"B","start_char_index":0,"end_char_index":4,"cited_text":"beta"}`
)

// citedContent runs calls on a stream and a collector and returns, for
// each, one line per block: type, text and the cited texts.
func citedContent(t *testing.T, calls func(e *Emitter)) (streamed, collected []string) {
	t.Helper()
	e, col := NewEmitter(FormThinking, NewSigner(testKey)), NewCollector(FormThinking, NewSigner(testKey))
	for _, em := range []*Emitter{e, col} {
		startMessage(em)
		calls(em)
		em.Finish("end_turn", "", endUsage)
	}
	checkGrammar(t, e.Events(), true, FormThinking)
	msg, err := sdkAccumulate(e.Events())
	if err != nil {
		t.Fatalf("SDK: %v", err)
	}
	for _, b := range msg.Content {
		line := b.Type + " " + b.Text + b.Thinking
		for _, c := range b.Citations {
			line += " [" + c.CitedText + "]"
		}
		streamed = append(streamed, line)
	}
	var m struct {
		Content []struct {
			Type, Text, Thinking string
			Citations            []struct {
				CitedText string `json:"cited_text"`
			}
		}
	}
	if err := json.Unmarshal(col.MessageJSON(), &m); err != nil {
		t.Fatal(err)
	}
	for _, b := range m.Content {
		line := b.Type + " " + b.Text + b.Thinking
		for _, c := range b.Citations {
			line += " [" + c.CitedText + "]"
		}
		collected = append(collected, line)
	}
	return streamed, collected
}

// TestEmitterCitations: a citation goes on the text block open when it
// comes; with none open it waits for the next text block, past a thinking
// block; FlushCitations gives citations no text came for a block of their
// own. Streamed (as the SDK accumulates it) and collected alike.
func TestEmitterCitations(t *testing.T) {
	for _, tc := range []struct {
		name  string
		calls func(e *Emitter)
		want  []string
	}{
		{"on the open text block", func(e *Emitter) {
			e.Text([]byte("Before. "))
			mustCite(t, e, testCitation)
			e.Text([]byte("alpha."))
		}, []string{"text Before. alpha. [alpha]"}},
		{"waits for the text it precedes", func(e *Emitter) {
			mustCite(t, e, testCitation)
			mustCite(t, e, testCitation2)
			e.Text([]byte("alpha and beta."))
			e.FlushCitations()
		}, []string{"text alpha and beta. [alpha] [beta]"}},
		{"passes over a thinking block", func(e *Emitter) {
			mustCite(t, e, testCitation)
			e.ThinkingStart(nil)
			e.Thinking([]byte("weighing the source"))
			e.ThinkingEnd()
			e.Text([]byte("alpha."))
			e.FlushCitations()
		}, []string{"thinking weighing the source", "text alpha. [alpha]"}},
		{"flushed with no text", func(e *Emitter) {
			e.Text([]byte("Earlier."))
			e.CloseBlock()
			mustCite(t, e, testCitation)
			e.ToolUseStart("toolu_1", "f")
			e.ToolInput([]byte(`{}`))
			e.FlushCitations()
		}, []string{"text Earlier.", "tool_use ", "text  [alpha]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			streamed, collected := citedContent(t, tc.calls)
			if strings.Join(streamed, "\n") != strings.Join(tc.want, "\n") || strings.Join(collected, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("streamed:\n%s\ncollected:\n%s\nwant:\n%s", strings.Join(streamed, "\n"), strings.Join(collected, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
	e := NewEmitter(FormThinking, nil)
	startMessage(e)
	if err := e.Citation([]byte("{\"cited_text\":\"a\nb\"}")); err != errRawLineEnd || e.WaitingCitations() != 0 {
		t.Errorf("a citation with a raw line end: %v, %d bytes waiting", err, e.WaitingCitations())
	}
	if err := e.Citation([]byte(testCitation)); err != nil || e.WaitingCitations() != len(testCitation) {
		t.Errorf("waiting: %v, %d bytes", err, e.WaitingCitations())
	}
}

func mustCite(t *testing.T, e *Emitter, c string) {
	t.Helper()
	if err := e.Citation([]byte(c)); err != nil {
		t.Fatal(err)
	}
}
