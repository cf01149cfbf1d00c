package emit

import (
	"errors"
	"testing"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// scriptStream is a provider's stream translator whose Write runs a script
// on the emitter.
type scriptStream struct {
	em    *Emitter
	write func(em *Emitter, p []byte) error
}

func (s *scriptStream) Write(p []byte) error { return s.write(s.em, p) }
func (s *scriptStream) Close() error         { return nil }

// streamTranslator is providers.StreamTranslator, which this package
// cannot import.
type streamTranslator interface {
	Write(p []byte) error
	Close() error
}

// scriptRun drives a scriptStream as the response writer does.
type scriptRun struct {
	em *Emitter
	st streamTranslator
}

func (r *scriptRun) Write(p []byte) error {
	if err := r.st.Write(p); err != nil {
		return err
	}
	r.em.Flush()
	return nil
}

func openScript(t *testing.T, start bool, write func(em *Emitter, p []byte) error) (*scriptRun, *[]string, *StreamStatus) {
	t.Helper()
	var got []string
	var status StreamStatus
	em := NewStreamEmitter(0, nil, func(events []byte, st StreamStatus) []byte {
		got, status = append(got, string(events)), st
		return events[:0]
	}, 1<<10)
	newStream := func(em *Emitter) streamTranslator {
		if start {
			em.MessageStart("msg_1", "m", Usage{})
		}
		return &scriptStream{em: em, write: write}
	}
	r := &scriptRun{em: em, st: newStream(em)}
	em.Flush()
	return r, &got, &status
}

const messageStart = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":0,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"output_tokens\":0}}}\n\n"

// TestStreamAbortBeforeAnything: a stream that fails before any event
// reached the sink is answered with a real HTTP error, and what the
// translator held is dropped.
func TestStreamAbortBeforeAnything(t *testing.T) {
	es, got, _ := openScript(t, false, func(em *Emitter, p []byte) error {
		return &wire.Error{Status: 429, Type: "rate_limit_error", Message: "slow down"}
	})
	es.em.Keepalive() // no ping before message_start
	err := es.Write([]byte("x"))
	e := es.em.Abort(err)
	if e == nil || e.Status != 429 || e.Type != "rate_limit_error" || e.Message != "slow down" {
		t.Fatalf("Fail = %+v, want the 429 as an HTTP error", e)
	}
	if len(*got) != 0 {
		t.Fatalf("events reached the client: %q", *got)
	}
}

// TestStreamAbortMidBlock: once events are out, a failure closes the
// open block and ends the stream with an error event; a foreign error
// becomes an api_error. The sink learns from the status that the stream
// has finished, with content.
func TestStreamAbortMidBlock(t *testing.T) {
	es, got, status := openScript(t, true, func(em *Emitter, p []byte) error {
		em.Text(p)
		return nil
	})
	if len(*got) != 1 || (*got)[0] != messageStart {
		t.Fatalf("after Open: %q, want message_start at once", *got)
	}
	if err := es.Write([]byte("hi")); err != nil {
		t.Fatal(err)
	}
	if e := es.em.Abort(errors.New("boom")); e != nil {
		t.Fatalf("Fail = %+v after events were sent, want an error event", e)
	}
	want := []string{messageStart,
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n",
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
			"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"boom\"}}\n\n",
	}
	if len(*got) != len(want) {
		t.Fatalf("sink got %q, want %q", *got, want)
	}
	for i := range want {
		if (*got)[i] != want[i] {
			t.Errorf("batch %d: %q, want %q", i, (*got)[i], want[i])
		}
	}
	if !status.Finished || !status.Content {
		t.Errorf("Finished %v Content %v, want both", status.Finished, status.Content)
	}
	es.em.Keepalive()
	if len(*got) != len(want) {
		t.Errorf("a ping after the error event: %q", (*got)[len(want):])
	}
}
