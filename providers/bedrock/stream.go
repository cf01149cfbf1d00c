package bedrock

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/anthropic"
	"github.com/thinkgate/thinkgate/providers/awsstream"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// StreamTranslator translates InvokeModelWithResponseStream's answer. Its
// frames (awsstream decodes them, split anywhere) are chunk events whose payload
// {"bytes":"<base64>"} is one Anthropic event, or exceptions. Each event is
// handed, as the SSE event Anthropic would have sent, to the anthropic
// provider's stream translator: the split_tags one, or the one passing
// every block through.
type StreamTranslator struct {
	dec   *awsstream.Decoder
	inner *anthropic.SplitStream
	event []byte // one Anthropic event decoded, reused
	sse   []byte // it as an SSE event, reused
}

// NewStream returns the translator of one streamed answer, writing to em
// (Handling.NewStream).
func (t *Translator) NewStream(em *emit.Emitter) providers.StreamTranslator {
	x := t.x
	s := &StreamTranslator{}
	if x.Settings.SplitTags {
		s.inner = anthropic.NewSplitStream(x, em)
	} else {
		s.inner = anthropic.NewPassStream(x, em)
	}
	s.dec = awsstream.NewDecoder(s.message)
	s.dec.MaxFrame = x.Settings.MaxEventSize
	return s
}

// Write takes upstream bytes as they arrive.
func (s *StreamTranslator) Write(p []byte) error { return s.dec.Write(p) }

// Close ends the stream: a cut frame, an empty stream or one that ended
// before message_stop is an error.
func (s *StreamTranslator) Close() error {
	if err := s.dec.Close(); err != nil {
		return err
	}
	return s.inner.Close()
}

// message handles one decoded frame.
func (s *StreamTranslator) message(m awsstream.Message) error {
	if e := awsstream.Exception(m); e != nil {
		return e
	}
	if m.Header(":event-type") != "chunk" {
		return nil // an event type this gateway does not know carries no content
	}
	ev, err := s.chunk(m.Payload)
	if err != nil {
		return err
	}
	typ, err := jsonparser.GetString(ev, "type")
	if err != nil || !eventName(typ) {
		return malformed("a chunk's event has no type")
	}
	if bytes.ContainsAny(ev, "\r\n") {
		// One data line per event: the JSON's own line breaks go.
		var c bytes.Buffer
		if err := json.Compact(&c, ev); err != nil {
			return malformed("a chunk's event is not JSON")
		}
		ev = c.Bytes()
	}
	s.sse = append(append(append(append(append(s.sse[:0], "event: "...), typ...), "\ndata: "...), ev...), "\n\n"...)
	return s.inner.Write(s.sse)
}

// chunk decodes a chunk payload's bytes.
func (s *StreamTranslator) chunk(payload []byte) ([]byte, error) {
	raw, typ, _, err := jsonparser.Get(payload, "bytes")
	if err != nil || typ != jsonparser.String {
		return nil, malformed("a chunk without bytes")
	}
	if bytes.IndexByte(raw, '\\') >= 0 {
		// JSON may escape '/' in base64; nothing else is expected.
		raw = bytes.ReplaceAll(raw, []byte(`\/`), []byte("/"))
	}
	n := base64.StdEncoding.DecodedLen(len(raw))
	if cap(s.event) < n {
		s.event = make([]byte, n)
	}
	n, err = base64.StdEncoding.Decode(s.event[:n], raw)
	if err != nil {
		return nil, malformed("a chunk's bytes are not base64")
	}
	return s.event[:n], nil
}

// eventName accepts the name of an Anthropic event: lower-case letters and '_'.
func eventName(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c == '_') {
			return false
		}
	}
	return s != ""
}

func malformed(msg string) *wire.Error {
	return wire.APIError(http.StatusBadGateway, "malformed upstream event: "+msg)
}
