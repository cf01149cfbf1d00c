// Package providertest drives a provider's translation the way the
// response writer does, without Caddy, for the provider packages' tests.
package providertest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/ssetest"
	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/emit"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// Exchange parses body as the handler does and prepares an exchange whose
// message id is msg_test.
func Exchange(t testing.TB, s *providers.Settings, body string) *providers.Exchange {
	t.Helper()
	return ExchangeAt(t, s, "", body)
}

// ExchangeAt is Exchange for a request the client sent to path.
func ExchangeAt(t testing.TB, s *providers.Settings, path, body string) *providers.Exchange {
	t.Helper()
	req, err := wire.ParseRequest([]byte(body))
	if err != nil {
		t.Fatalf("ParseRequest: %v", err)
	}
	x := providers.NewExchange(s, req, []byte(body), providers.ExchangeOptions{Path: path, NewBody: DirtyBody})
	x.MessageID = "msg_test"
	return x
}

// Stream is a provider's stream translator driven the way the response
// writer drives it: made on an emitter whose sink is the test's
// (NewStreamEmitter), the emitter flushed once made and after every Write
// and Close, a failure ended by Abort.
type Stream struct {
	Em *emit.Emitter
	tr providers.StreamTranslator
}

// OpenStream makes the translator newStream (a Handling's NewStream) on an
// emitter of x's settings whose events go to sink, handed over every
// drainAt bytes at most.
func OpenStream(x *providers.Exchange, newStream func(*emit.Emitter) providers.StreamTranslator, sink func(events []byte), drainAt int) *Stream {
	em := emit.NewStreamEmitter(x.Settings.Form, x.Settings.Signer, func(events []byte, _ emit.StreamStatus) []byte {
		sink(events)
		return events[:0]
	}, drainAt)
	s := &Stream{Em: em, tr: newStream(em)}
	em.Flush()
	return s
}

// Write translates upstream bytes, split anywhere.
func (s *Stream) Write(p []byte) error {
	if err := s.tr.Write(p); err != nil {
		return err
	}
	s.Em.Flush()
	return nil
}

// Close ends the upstream body.
func (s *Stream) Close() error {
	if err := s.tr.Close(); err != nil {
		return err
	}
	s.Em.Flush()
	return nil
}

// Fail ends a broken stream as the response writer does (Emitter.Abort):
// an *Error to answer with when nothing was sent, else an error event.
func (s *Stream) Fail(err error) *wire.Error { return s.Em.Abort(err) }

// RunStream drives s the way the response writer does: upstream bytes in
// writes of chunk bytes, em's output taken after each; a failed Write or
// Close becomes an error event.
func RunStream(t testing.TB, em *emit.Emitter, s providers.StreamTranslator, upstream []byte, chunk int) (out []byte, err error) {
	t.Helper()
	take := func() {
		out = append(out, em.Events()...)
		em.Flush()
	}
	take()
	for p := upstream; len(p) > 0 && err == nil; {
		n := min(chunk, len(p))
		err = s.Write(p[:n])
		p = p[n:]
		if err == nil {
			take()
		}
	}
	if err == nil {
		err = s.Close()
	}
	if err != nil {
		e := wire.AsError(err)
		em.Fail(e.Type, e.Message)
	}
	take()
	return out, err
}

// Summary renders the events of out one per line (ssetest.Summary with
// detail d), and accumulates them with the official SDK, which must accept
// every event.
func Summary(t testing.TB, out []byte, d ssetest.Detail) ([]string, anthropic.Message) {
	t.Helper()
	events, err := ssetest.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	var msg anthropic.Message
	for _, ev := range events {
		if ev.Name == "error" {
			continue
		}
		var u anthropic.MessageStreamEventUnion
		if err := json.Unmarshal([]byte(ev.Data), &u); err != nil {
			t.Fatalf("SDK cannot decode %s: %v", ev.Name, err)
		}
		if err := msg.Accumulate(u); err != nil {
			t.Fatalf("SDK Accumulate(%s): %v", ev.Name, err)
		}
	}
	lines, err := ssetest.Summary(events, d)
	if err != nil {
		t.Fatal(err)
	}
	return lines, msg
}

// Lines renders the events of sse one per line (ssetest.Summary with
// detail d).
func Lines(t testing.TB, sse []byte, d ssetest.Detail) []string {
	t.Helper()
	events, err := ssetest.Parse(sse)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := ssetest.Summary(events, d)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// Diff reports lines that differ from want, both in full.
func Diff(t testing.TB, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s differs.\n--- got\n%s\n--- want\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// BenchmarkWrites measures newStream on upstream written in chunk-byte
// pieces through one buffer, as reverse_proxy hands its reads over (the
// bytes are in cache, not read from a long body), the emitter's output
// drained after each write as the response writer does. One emitter is
// reset per stream, so allocs/op counts what a stream sets up.
func BenchmarkWrites[S providers.StreamTranslator](b *testing.B, x *providers.Exchange, newStream func(*emit.Emitter) S, upstream []byte, chunk int) {
	em := emit.NewEmitter(x.Settings.Form, x.Settings.Signer)
	b.SetBytes(int64(len(upstream)))
	b.ReportAllocs()
	buf := make([]byte, chunk)
	for b.Loop() {
		*em = *emit.NewEmitter(x.Settings.Form, x.Settings.Signer)
		s := newStream(em)
		for p := upstream; len(p) > 0; {
			n := copy(buf, p)
			if err := s.Write(buf[:n]); err != nil {
				b.Fatal(err)
			}
			em.Flush()
			p = p[n:]
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// DirtyBody is an Exchange's NewBody whose buffers' room holds another
// request's bytes, as a pooled buffer's may: a provider that sends a byte
// it did not write sends these.
func DirtyBody(n int) []byte {
	const stale = `{"stale":"another request's bytes"},`
	b := make([]byte, n)
	for i := range b {
		b[i] = stale[i%len(stale)]
	}
	return b[:0]
}
