package converse

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strings"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/awsstream"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// StreamTranslator translates a ConverseStream answer: an AWS event
// stream whose messages (:event-type) are messageStart, contentBlockStart,
// contentBlockDelta, contentBlockStop, messageStop and metadata, or an
// exception (:message-type exception) that ends it.
type StreamTranslator struct {
	t   answerTranslator
	dec *awsstream.Decoder
	// general turns the delta fast path off: the differential fuzz target
	// compares both ways.
	general bool
	scratch []byte
}

// errNoEnd is the end of a stream that never said how the answer ended:
// the upstream connection ended early, so the answer may be cut short.
var errNoEnd = wire.APIError(http.StatusBadGateway,
	"upstream stream ended without messageStop: the response is incomplete")

// NewStream returns a stream translator writing to em (a streaming emitter
// or a collector). message_start waits for the first content.
func (t *Translator) NewStream(em *emit.Emitter) providers.StreamTranslator {
	s := &StreamTranslator{}
	s.t.init(t.x, em)
	s.dec = awsstream.NewDecoder(s.onFrame)
	s.dec.MaxFrame = t.x.Settings.MaxEventSize
	return s
}

// Write decodes upstream bytes, split anywhere.
func (s *StreamTranslator) Write(p []byte) error {
	if s.t.done {
		return nil
	}
	return s.dec.Write(p)
}

// Close ends the stream at the upstream's EOF. metadata (the usage) comes
// after messageStop; an answer that ended after messageStop without it is
// whole, one that ended before messageStop is not.
func (s *StreamTranslator) Close() error {
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
func (s *StreamTranslator) fail(err error) error {
	_ = s.t.end() // what is held goes out before the error: it arrived
	s.t.done = true
	s.t.x.Usage = s.t.usage
	return err
}

func (s *StreamTranslator) onFrame(m awsstream.Message) error {
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
func (s *StreamTranslator) onMessage(eventType string, payload []byte) error {
	if eventType == "contentBlockDelta" && !s.general {
		if done, err := s.fastDelta(payload); done {
			return err
		}
	}
	var ev streamEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return s.fail(awsstream.Malformed(eventType + " event is not a JSON object: " + quote(payload)))
	}
	t := &s.t
	i := ev.ContentBlockIndex
	var err error
	switch eventType {
	case "messageStart":
		// message_start waits for content: an exception that follows at
		// once is still an HTTP error for the client.
	case "contentBlockStart":
		if ev.Start != nil && ev.Start.ToolUse != nil {
			err = t.toolStart(i, ev.Start.ToolUse.ToolUseID, ev.Start.ToolUse.Name)
		}
	case "contentBlockDelta":
		d := ev.Delta
		switch {
		case d == nil:
		case d.Text != nil:
			err = t.text(i, []byte(*d.Text))
		case d.ToolUse != nil:
			err = t.toolInput(i, []byte(d.ToolUse.Input))
		case d.ReasoningContent != nil:
			r := d.ReasoningContent
			if r.Text != nil {
				err = t.reasoningText(i, []byte(*r.Text))
			}
			if r.Signature != nil && err == nil {
				err = t.reasoningSignature(i, []byte(*r.Signature))
			}
			if r.RedactedContent != nil && err == nil {
				err = t.redactedContent(i, []byte(*r.RedactedContent))
			}
		}
	case "contentBlockStop":
		err = t.blockStop(i)
	case "messageStop":
		err = t.stop(ev.StopReason, ev.AdditionalModelResponseFields)
	case "metadata":
		if ev.Usage != nil {
			t.usage = ev.Usage.anthropic()
		}
		if t.stopped {
			t.finish()
		}
	}
	if err == nil && t.held.Len() > 0 {
		err = t.release()
	}
	if err != nil {
		return s.fail(err)
	}
	// Event types added later carry nothing the client would get.
	return nil
}

func quote(p []byte) string {
	return strings.ToValidUTF8(string(p[:min(len(p), 200)]), "\uFFFD")
}

// fastDelta handles the events of nearly every frame, a delta of text,
// reasoning text or tool input, without encoding/json's allocations:
// the payload's members are read where they lie. done is false for
// anything else, or anything unusual, which the general path decodes.
func (s *StreamTranslator) fastDelta(payload []byte) (done bool, err error) {
	var index int64
	var kind, outer string
	var value []byte
	var members int
	ok := jsonparser.ObjectEach(payload, func(key, v []byte, typ jsonparser.ValueType, _ int) error {
		switch string(key) {
		case "contentBlockIndex":
			n, err := jsonparser.ParseInt(v)
			if typ != jsonparser.Number || err != nil {
				return errUnusual
			}
			index = n
		case "delta":
			if typ != jsonparser.Object {
				return errUnusual
			}
			return jsonparser.ObjectEach(v, func(k, dv []byte, dtyp jsonparser.ValueType, _ int) error {
				members++
				outer = string(k)
				switch {
				case outer == "text" && dtyp == jsonparser.String:
					kind, value = "text", dv
				case (outer == "toolUse" || outer == "reasoningContent") && dtyp == jsonparser.Object:
					return jsonparser.ObjectEach(dv, func(ik, iv []byte, ityp jsonparser.ValueType, _ int) error {
						members++
						if ityp != jsonparser.String || members > 2 {
							return errUnusual
						}
						kind, value = outer+"."+string(ik), iv
						return nil
					})
				default:
					return errUnusual
				}
				return nil
			})
		}
		return nil
	}) == nil
	if !ok || members == 0 || index < 0 || index > math.MaxInt32 {
		return false, nil
	}
	switch kind {
	case "text", "reasoningContent.text", "toolUse.input":
	default:
		return false, nil // signatures and redacted content are rare
	}
	if bytes.IndexByte(value, '\\') >= 0 {
		out, err := jsonbytes.AppendUnescaped(s.scratch[:0], value)
		if err != nil {
			return false, nil
		}
		s.scratch, value = out, out
	}
	i := int(index)
	switch kind {
	case "text":
		err = s.t.text(i, value)
	case "reasoningContent.text":
		err = s.t.reasoningText(i, value)
	case "toolUse.input":
		err = s.t.toolInput(i, value)
	}
	if err == nil && s.t.held.Len() > 0 {
		err = s.t.release()
	}
	if err != nil {
		return true, s.fail(err)
	}
	return true, nil
}

// errUnusual stops the fast path's walk.
var errUnusual = errors.New("unusual delta")
