package caddymodule

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadAllSized reads bodies whose declared size is right, short, long
// or unknown, in small reads, and always gets the whole body.
func TestReadAllSized(t *testing.T) {
	body := strings.Repeat(`{"role":"user","content":"é\"x"}`, 300)
	for _, tc := range []struct {
		name string
		size int64
	}{
		{"exact", int64(len(body))},
		{"declared short", int64(len(body)) / 3},
		{"declared long", int64(len(body)) * 2},
		{"unknown", -1},
		{"zero", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAllSized(iotest.HalfReader(strings.NewReader(body)), tc.size)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != body {
				t.Fatalf("read %d bytes, want the %d sent", len(got), len(body))
			}
		})
	}
	t.Run("error", func(t *testing.T) {
		_, err := readAllSized(iotest.TimeoutReader(strings.NewReader(body)), int64(len(body)))
		if err != iotest.ErrTimeout {
			t.Fatalf("err = %v, want %v", err, iotest.ErrTimeout)
		}
	})
}

// TestReadAllSizedOneBuffer holds a body of its declared size to one
// allocation: the buffer it is read into, never grown or copied.
func TestReadAllSizedOneBuffer(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	rd := bytes.NewReader(body)
	allocs := testing.AllocsPerRun(5, func() {
		rd.Reset(body)
		got, err := readAllSized(io.Reader(rd), int64(len(body)))
		if err != nil || len(got) != len(body) {
			t.Fatalf("read %d bytes, err %v", len(got), err)
		}
	})
	if allocs != 1 {
		t.Fatalf("%v allocations per body, want 1", allocs)
	}
}
