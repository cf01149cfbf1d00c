package providers

import (
	"errors"
	"testing"
)

// scriptStream is a provider Stream whose Write runs a script on the emitter.
type scriptStream struct {
	em    *Emitter
	write func(em *Emitter, p []byte) error
}

func (s *scriptStream) Write(p []byte) error { return s.write(s.em, p) }
func (s *scriptStream) Close() error         { return nil }

func openScript(t *testing.T, start bool, write func(em *Emitter, p []byte) error) (*EventStream, *[]string) {
	t.Helper()
	x := NewExchange(&Settings{}, &Request{Model: "m", Stream: true}, nil, ExchangeOptions{Path: "/v1/messages"})
	es := NewEventStream(x, func(em *Emitter) Stream {
		if start {
			em.MessageStart("msg_1", "m", Usage{})
		}
		return &scriptStream{em: em, write: write}
	})
	var got []string
	es.Open(func(events []byte) []byte { got = append(got, string(events)); return events[:0] }, 1<<10)
	return es, &got
}

const messageStart = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":0,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"output_tokens\":0}}}\n\n"

// TestEventStreamFailBeforeAnything: a stream that fails before any event
// reached the sink is answered with a real HTTP error, and what the
// translator held is dropped.
func TestEventStreamFailBeforeAnything(t *testing.T) {
	es, got := openScript(t, false, func(em *Emitter, p []byte) error {
		return &Error{Status: 429, Type: "rate_limit_error", Message: "slow down"}
	})
	es.Ping() // no ping before message_start
	err := es.Write([]byte("x"))
	e := es.Fail(err)
	if e == nil || e.Status != 429 || e.Type != "rate_limit_error" || e.Message != "slow down" {
		t.Fatalf("Fail = %+v, want the 429 as an HTTP error", e)
	}
	if len(*got) != 0 {
		t.Fatalf("events reached the client: %q", *got)
	}
}

// TestEventStreamFailMidBlock: once events are out, a failure closes the
// open block and ends the stream with an error event; a foreign error
// becomes an api_error.
func TestEventStreamFailMidBlock(t *testing.T) {
	es, got := openScript(t, true, func(em *Emitter, p []byte) error {
		em.Text(p)
		return nil
	})
	if len(*got) != 1 || (*got)[0] != messageStart {
		t.Fatalf("after Open: %q, want message_start at once", *got)
	}
	if err := es.Write([]byte("hi")); err != nil {
		t.Fatal(err)
	}
	if e := es.Fail(errors.New("boom")); e != nil {
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
	if !es.Finished() || !es.Content() {
		t.Errorf("Finished %v Content %v, want both", es.Finished(), es.Content())
	}
	es.Ping()
	if len(*got) != len(want) {
		t.Errorf("a ping after the error event: %q", (*got)[len(want):])
	}
}
