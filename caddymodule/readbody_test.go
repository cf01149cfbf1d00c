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

// TestReadAllSizedBounded holds the buffers a body of declared size is read
// into to doublings from 64 KiB up to a quarter of it, then the whole: a
// 1 MiB body takes five (64 KiB to 512 KiB, then 1 MiB+1) and less than
// twice its size in all, where io.ReadAll takes
// about twenty and several times its size.
func TestReadAllSizedBounded(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	rd := bytes.NewReader(body)
	allocs := testing.AllocsPerRun(5, func() {
		rd.Reset(body)
		got, err := readAllSized(io.Reader(rd), int64(len(body)))
		if err != nil || len(got) != len(body) {
			t.Fatalf("read %d bytes, err %v", len(got), err)
		}
	})
	if allocs != 5 {
		t.Fatalf("%v allocations per body, want 5", allocs)
	}
}

// TestReadAllSizedDeclaredNotSent: a client that declares a large body and
// sends a little holds a buffer sized by what it sent, not by what it
// declared.
func TestReadAllSizedDeclaredNotSent(t *testing.T) {
	sent := bytes.Repeat([]byte("x"), 1000)
	got, err := readAllSized(bytes.NewReader(sent), 32<<20)
	if err != nil || len(got) != len(sent) {
		t.Fatalf("read %d bytes, err %v", len(got), err)
	}
	if cap(got) > firstBodyBuffer {
		t.Fatalf("buffer of %d bytes for %d sent", cap(got), len(sent))
	}
}
