package ssetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Event is one SSE event: its name and its data line.
type Event struct {
	Name string
	Data string
}

// Parse splits an Anthropic SSE body, as the gateway writes it (each event an
// event line and a data line, LF line ends, a blank line after), into events.
// Anything else is an error.
func Parse(sse []byte) ([]Event, error) {
	var events []Event
	rest := string(sse)
	for rest != "" {
		frame, after, ok := strings.Cut(rest, "\n\n")
		if !ok {
			return events, fmt.Errorf("SSE body ends inside an event: %q", rest)
		}
		rest = after
		name, data, ok := strings.Cut(frame, "\n")
		if !ok || !strings.HasPrefix(name, "event: ") || !strings.HasPrefix(data, "data: ") || strings.Contains(data, "\n") {
			return events, fmt.Errorf("bad SSE frame %q", frame)
		}
		events = append(events, Event{Name: name[len("event: "):], Data: data[len("data: "):]})
	}
	return events, nil
}

// Detail selects what Summary shows beyond each event's name and index.
type Detail uint8

const (
	// MessageJSON shows message_start's message.
	MessageJSON Detail = 1 << iota
	// StopSequence shows message_delta's stop_sequence after its stop_reason.
	StopSequence
	// Usage shows message_delta's usage.
	Usage
	// MaskSignatures writes every signature as SIG, for streams whose
	// signatures a test does not compute.
	MaskSignatures
)

// Summary turns events into one readable line each, consecutive deltas of
// the same block and type merged, e.g.
//
//	message_start
//	content_block_start 0 {"type":"thinking","thinking":""}
//	thinking_delta 0 "Step 1…"
//	signature_delta 0 "…"
//	content_block_stop 0
//	message_delta end_turn
//	message_stop
//
// Texts are JSON strings without HTML escaping, as tests write them. It
// fails when an event's data is not JSON or its type is not the event's name.
func Summary(events []Event, d Detail) ([]string, error) {
	var out []string
	var runKey string
	var run strings.Builder
	flush := func() {
		if runKey != "" {
			out = append(out, runKey+" "+Quote(run.String()))
			runKey = ""
			run.Reset()
		}
	}
	for _, ev := range events {
		var e eventData
		if err := json.Unmarshal([]byte(ev.Data), &e); err != nil {
			return out, fmt.Errorf("event %s: data is not JSON: %v: %s", ev.Name, err, ev.Data)
		}
		if e.Type != ev.Name {
			return out, fmt.Errorf("event %s carries type %q", ev.Name, e.Type)
		}
		if ev.Name == "content_block_delta" {
			text, ok := e.Delta.text()
			if e.Delta.Type == "signature_delta" && d&MaskSignatures != 0 {
				text = "SIG"
			} else if !ok {
				text = ev.Data
			}
			if key := fmt.Sprintf("%s %d", e.Delta.Type, e.Index); key != runKey {
				flush()
				runKey = key
			}
			run.WriteString(text)
			continue
		}
		flush()
		line := ev.Name
		switch ev.Name {
		case "message_start":
			if d&MessageJSON != 0 {
				line += " " + string(e.Message)
			}
		case "content_block_start":
			line += fmt.Sprintf(" %d %s", e.Index, e.ContentBlock)
		case "content_block_stop":
			line += fmt.Sprintf(" %d", e.Index)
		case "message_delta":
			line += " " + orNull(e.Delta.StopReason)
			if d&StopSequence != 0 {
				line += " " + orNull(e.Delta.StopSequence)
			}
			if d&Usage != 0 {
				line += " " + string(e.Usage)
			}
		case "error":
			line += " " + string(e.Error)
		}
		out = append(out, line)
	}
	flush()
	return out, nil
}

// eventData is the part of an event's data the helpers here read.
type eventData struct {
	Type         string          `json:"type"`
	Index        int             `json:"index"`
	Message      json.RawMessage `json:"message"`
	ContentBlock json.RawMessage `json:"content_block"`
	Delta        delta           `json:"delta"`
	Usage        json.RawMessage `json:"usage"`
	Error        json.RawMessage `json:"error"`
}

// delta is a content_block_delta's or message_delta's delta.
type delta struct {
	Type         string  `json:"type"`
	Text         string  `json:"text"`
	Thinking     string  `json:"thinking"`
	Signature    string  `json:"signature"`
	PartialJSON  string  `json:"partial_json"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
}

// text returns the content a block delta carries, and false for a delta
// type that carries none of the known fields.
func (d *delta) text() (string, bool) {
	switch d.Type {
	case "text_delta":
		return d.Text, true
	case "thinking_delta":
		return d.Thinking, true
	case "signature_delta":
		return d.Signature, true
	case "input_json_delta":
		return d.PartialJSON, true
	}
	return "", false
}

func orNull(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// Quote is s as a JSON string without HTML escaping.
func Quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
