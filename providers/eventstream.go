package providers

import "mime"

// EventStream is a 2xx upstream stream translated as it arrives: the
// provider's Stream writes Anthropic events through an emitter, which hands
// them to the caller's sink. It also owns how a failing stream ends.
type EventStream struct {
	newStream func(em *Emitter) Stream
	em        *Emitter
	stream    Stream
	sink      func(events []byte) []byte
	// sent: events have reached the sink, so a failure can no longer be
	// an HTTP error.
	sent bool
}

// NewEventStream returns the stream handling of one response; newStream
// makes the provider's Stream for the emitter once the stream is opened.
func NewEventStream(x *Exchange, newStream func(em *Emitter) Stream) *EventStream {
	em := NewEmitter(x.Settings.Form, x.Settings.Signer)
	em.SetThinkingDisplay(x.ThinkingDisplay())
	return &EventStream{newStream: newStream, em: em}
}

// Open starts the stream. Events go to sink, which takes them (it may keep
// the slice) and returns an empty buffer for the events that follow. They
// are handed over at the end of every Write, Close, Ping and Fail, and
// between two events once drainAt bytes are held, so that one upstream read
// that expands into many events does not pile them up. A translator that
// begins the message by itself has sent message_start when Open returns.
func (s *EventStream) Open(sink func(events []byte) []byte, drainAt int) {
	s.sink = sink
	s.em.SetSink(s.send, drainAt)
	s.stream = s.newStream(s.em)
	s.em.Flush()
}

// Write translates upstream bytes, split anywhere. An error means the
// stream is broken: the caller ends it with Fail.
func (s *EventStream) Write(p []byte) error {
	if err := s.stream.Write(p); err != nil {
		return err
	}
	s.em.Flush()
	return nil
}

// Close finishes a stream whose upstream body ended without a transport
// error. An error means the upstream's stream was incomplete: the caller
// ends it with Fail.
func (s *EventStream) Close() error {
	if err := s.stream.Close(); err != nil {
		return err
	}
	s.em.Flush()
	return nil
}

// Fail ends the stream with err. When nothing has reached the sink and no
// message has begun, it drops what is held and returns err as an *Error for
// the caller to answer with (a real HTTP status and body). Otherwise it
// closes the open block, sends an error event and returns nil.
func (s *EventStream) Fail(err error) *Error {
	e := AsError(err)
	if !s.sent && !s.em.Started() {
		s.em.drop()
		return e
	}
	s.em.Fail(e.Type, e.Message)
	s.em.Flush()
	return nil
}

// Ping sends a keepalive ping event. Before message_start a ping would
// break clients that demand message_start first: none is sent then.
func (s *EventStream) Ping() {
	if !s.em.Started() || s.em.Finished() {
		return
	}
	s.em.Ping()
	s.em.Flush()
}

// Finished reports whether the stream reached message_stop or an error event.
func (s *EventStream) Finished() bool { return s.em.Finished() }

// Content reports whether a text, thinking or tool-input delta has been made.
func (s *EventStream) Content() bool { return s.em.Content }

// ThinkingBlocks is the number of thinking blocks made, for logs and metrics.
func (s *EventStream) ThinkingBlocks() int { return s.em.ThinkingBlocks }

// send is the emitter's sink: it passes the events on to the caller's.
func (s *EventStream) send(events []byte) []byte {
	s.sent = true
	return s.sink(events)
}

// IsEventStream reports whether a response's Content-Type is
// text/event-stream, the streaming form of the SSE upstreams.
func IsEventStream(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/event-stream"
}
