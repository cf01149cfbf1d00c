package sse

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/thinkgate/thinkgate/providers/wire"
)

// An event is bounded as a whole, not only line by line: data lines that
// never meet a blank line fail the stream once their joined size passes
// MaxEvent, however the bytes are split.
func TestDecoderMaxEvent(t *testing.T) {
	cases := []struct {
		name     string
		maxEvent int
		input    string
		want     []sseEvent
		wantErr  bool
	}{
		{"joined data of exactly MaxEvent", 5, "data: ab\ndata: cd\n\n", []sseEvent{ev("", "ab\ncd")}, false},
		{"one byte more", 5, "data: ab\ndata: cde\n\n", nil, true},
		{"joining newline counts", 4, "data: ab\ndata: cd\n\n", nil, true},
		{"one line over MaxEvent", 3, "data: abcd\n\n", nil, true},
		{"events before the large one survive", 4, "data: 1\n\ndata: 12\ndata: 34\n\ndata: 2\n\n", []sseEvent{ev("", "1")}, true},
		{"size resets at each event", 4, "data: 1234\n\ndata: 5678\n\n", []sseEvent{ev("", "1234"), ev("", "5678")}, false},
		{"comments and names are not data", 2, ": a long comment\nevent: a long name\ndata: ab\n\n", []sseEvent{ev("a long name", "ab")}, false},
		{"trailing event taken by Close", 4, "data: 12\ndata: 345", nil, true},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ref, refErr := refDecodeMax([]byte(tc.input), 0, tc.maxEvent)
			if (refErr != nil) != tc.wantErr || !slices.Equal(ref, tc.want) {
				t.Fatalf("reference decoder disagrees with the table: %v %v", ref, refErr)
			}
			for how, chunks := range everyChunking([]byte(tc.input), uint64(i)) {
				got, err := decodeChunksMax(0, tc.maxEvent, chunks, nil)
				if tc.wantErr && err != ErrEventTooLarge {
					t.Fatalf("%s: error %v, want ErrEventTooLarge", how, err)
				}
				if !tc.wantErr && err != nil {
					t.Fatalf("%s: error %v", how, err)
				}
				if !slices.Equal(got, tc.want) {
					t.Fatalf("%s: got %v, want %v", how, got, tc.want)
				}
			}
		})
	}
	var e *wire.Error
	if !errors.As(error(ErrEventTooLarge), &e) || e.Status != 502 || e.Type != "api_error" || e.Message != "upstream event-stream event too large" {
		t.Errorf("ErrEventTooLarge = %#v", ErrEventTooLarge)
	}
}

// MaxEvent 0 means DefaultMaxEvent (16 MiB): seventeen data lines of 1 MiB
// with no blank line fail at the seventeenth, and the decoder never holds
// more than the bound.
func TestDecoderDefaultMaxEvent(t *testing.T) {
	line := append(append([]byte("data: "), bytes.Repeat([]byte("x"), 1<<20)...), '\n')
	var d Decoder
	h := func(event, data []byte) error { t.Fatal("no event may be dispatched"); return nil }
	for i := 1; i <= 17; i++ {
		err := d.Write(line, h)
		if i < 16 && err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if i == 17 {
			if err != ErrEventTooLarge {
				t.Fatalf("line 17: %v, want ErrEventTooLarge", err)
			}
			break
		}
		if cap(d.data) > 2*DefaultMaxEvent {
			t.Fatalf("line %d: decoder holds %d bytes", i, cap(d.data))
		}
	}
	// Exactly 16 MiB of joined data passes.
	var ok Decoder
	n := 0
	half := append(append([]byte("data: "), bytes.Repeat([]byte("y"), DefaultMaxEvent/2-1)...), '\n')
	for range 2 {
		if err := ok.Write(half, func(_, _ []byte) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if err := ok.Write([]byte("data:\n\n"), func(_, data []byte) error { n = len(data); return nil }); err != nil || n != DefaultMaxEvent {
		t.Fatalf("16 MiB event: %v, %d bytes", err, n)
	}
}
