package converse

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/awsstream"
)

// Stream translates a ConverseStream answer: an AWS event stream whose
// messages (:event-type) are messageStart, contentBlockStart,
// contentBlockDelta, contentBlockStop, messageStop and metadata, or an
// exception (:message-type exception) that ends it.
type Stream struct {
	t   translator
	dec *awsstream.Decoder
}

// errNoEnd is the end of a stream that never said how the answer ended:
// the upstream connection ended early, so the answer may be cut short.
var errNoEnd = providers.APIError(http.StatusBadGateway,
	"upstream stream ended without messageStop: the response is incomplete")

// NewStream returns a stream translator writing to em (a streaming emitter
// or a collector). message_start waits for the first content.
func (t *Translator) NewStream(em *providers.Emitter) *Stream {
	s := &Stream{}
	s.t.init(t.x, em)
	s.dec = awsstream.NewDecoder(s.onFrame)
	return s
}

// Write decodes upstream bytes, split anywhere.
func (s *Stream) Write(p []byte) error {
	if s.t.done {
		return nil
	}
	return s.dec.Write(p)
}

// Close ends the stream at the upstream's EOF. metadata (the usage) comes
// after messageStop; an answer that ended after messageStop without it is
// whole, one that ended before messageStop is not.
func (s *Stream) Close() error {
	if s.t.done {
		return nil
	}
	if err := s.dec.Close(); err != nil {
		return s.fail(err)
	}
	if s.t.done {
		return nil
	}
	if !s.t.stopped {
		return s.fail(errNoEnd)
	}
	s.t.finish()
	return nil
}

// fail closes what is open and returns err, which ends the stream: an
// HTTP error when nothing was sent, else an error event.
func (s *Stream) fail(err error) error {
	s.t.endBlock()
	s.t.done = true
	s.t.x.Usage = s.t.usage
	return err
}

func (s *Stream) onFrame(m awsstream.Message) error {
	if s.t.done {
		return nil
	}
	if e := awsstream.Exception(m); e != nil {
		return s.fail(e)
	}
	return s.onMessage(m.Header(":event-type"), m.Payload)
}

// streamEvent is the payload of every ConverseStream event; each event
// type fills its own members.
type streamEvent struct {
	ContentBlockIndex int `json:"contentBlockIndex"`
	Start             *struct {
		ToolUse *struct {
			ToolUseID string `json:"toolUseId"`
			Name      string `json:"name"`
		} `json:"toolUse"`
	} `json:"start"`
	Delta                         *delta          `json:"delta"`
	StopReason                    string          `json:"stopReason"`
	AdditionalModelResponseFields *responseFields `json:"additionalModelResponseFields"`
	Usage                         *usage          `json:"usage"`
}

type delta struct {
	Text    *string `json:"text"`
	ToolUse *struct {
		Input string `json:"input"`
	} `json:"toolUse"`
	ReasoningContent *struct {
		Text            *string `json:"text"`
		Signature       *string `json:"signature"`
		RedactedContent *string `json:"redactedContent"`
	} `json:"reasoningContent"`
}

// onMessage handles one event of the stream.
func (s *Stream) onMessage(eventType string, payload []byte) error {
	var ev streamEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return s.fail(awsstream.Malformed(eventType + " event is not a JSON object: " + quote(payload)))
	}
	t := &s.t
	i := ev.ContentBlockIndex
	switch eventType {
	case "messageStart":
		// message_start waits for content: an exception that follows at
		// once is still an HTTP error for the client.
	case "contentBlockStart":
		if ev.Start != nil && ev.Start.ToolUse != nil {
			t.toolStart(i, ev.Start.ToolUse.ToolUseID, ev.Start.ToolUse.Name)
		}
	case "contentBlockDelta":
		d := ev.Delta
		switch {
		case d == nil:
		case d.Text != nil:
			t.text(i, []byte(*d.Text))
		case d.ToolUse != nil:
			if !t.toolInput(i, []byte(d.ToolUse.Input)) {
				return s.fail(awsstream.Malformed("tool input for a content block that is not a tool call"))
			}
		case d.ReasoningContent != nil:
			r := d.ReasoningContent
			if r.Text != nil {
				t.reasoningText(i, []byte(*r.Text))
			}
			if r.Signature != nil {
				if err := t.reasoningSignature(i, []byte(*r.Signature)); err != nil {
					return s.fail(err)
				}
			}
			if r.RedactedContent != nil {
				if err := t.redactedContent(i, []byte(*r.RedactedContent)); err != nil {
					return s.fail(err)
				}
			}
		}
	case "contentBlockStop":
		t.blockStop(i)
	case "messageStop":
		t.stop(ev.StopReason, ev.AdditionalModelResponseFields)
	case "metadata":
		if ev.Usage != nil {
			t.usage = ev.Usage.anthropic()
		}
		if t.stopped {
			t.finish()
		}
	}
	// Event types added later carry nothing the client would get.
	return nil
}

func quote(p []byte) string {
	return strings.ToValidUTF8(string(p[:min(len(p), 200)]), "\uFFFD")
}
