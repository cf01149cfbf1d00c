package caddymodule

import (
	"bytes"
	"io"
	"runtime"
	"runtime/debug"
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
			got, err := readAllSized(iotest.HalfReader(strings.NewReader(body)), tc.size, nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != body {
				t.Fatalf("read %d bytes, want the %d sent", len(got), len(body))
			}
		})
	}
	t.Run("error", func(t *testing.T) {
		_, err := readAllSized(iotest.TimeoutReader(strings.NewReader(body)), int64(len(body)), nil)
		if err != iotest.ErrTimeout {
			t.Fatalf("err = %v, want %v", err, iotest.ErrTimeout)
		}
	})
}

// TestReadAllSizedBounded: a large body of declared size takes one buffer
// of its size (the pool's chunks hold its first quarter), one of unknown
// size its chunks and one join; io.ReadAll takes about twenty buffers and
// several times its size.
func TestReadAllSizedBounded(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	for _, size := range []int64{int64(len(body)), -1} {
		rd := bytes.NewReader(body)
		read := func() {
			rd.Reset(body)
			got, err := readAllSized(io.Reader(rd), size, nil)
			if err != nil || !bytes.Equal(got, body) || cap(got) > len(body)+1 {
				t.Fatalf("read %d bytes (cap %d), err %v", len(got), cap(got), err)
			}
		}
		// No collection empties the pool while it is measured.
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		read() // the pool's chunks
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 5 {
			read()
		}
		runtime.ReadMemStats(&after)
		// Under the race detector sync.Pool drops a quarter of what it is
		// given, so the bound leaves room for chunks made again; doubling
		// buffers took twice the body, io.ReadAll several times it.
		bound := uint64(len(body)) + uint64(len(body))/4 + 64<<10
		if size < 0 {
			bound = uint64(len(body)) * 8 / 5
		}
		if perBody := (after.TotalAlloc - before.TotalAlloc) / 5; perBody > bound {
			t.Errorf("declared size %d: %d bytes allocated per body of %d", size, perBody, len(body))
		}
	}
}

// TestReadAllSizedDeclaredNotSent: a client that declares a large body and
// sends a little holds a buffer sized by what it sent, not by what it
// declared.
func TestReadAllSizedDeclaredNotSent(t *testing.T) {
	sent := bytes.Repeat([]byte("x"), 1000)
	got, err := readAllSized(bytes.NewReader(sent), 32<<20, nil)
	if err != nil || len(got) != len(sent) {
		t.Fatalf("read %d bytes, err %v", len(got), err)
	}
	if cap(got) > 2*len(sent) {
		t.Fatalf("buffer of %d bytes for %d sent", cap(got), len(sent))
	}
}

// TestReadAllSizedDeclaredMore: a client that declares a large body holds
// at most four times what it sent.
func TestReadAllSizedDeclaredMore(t *testing.T) {
	for _, sent := range []int{100 << 10, 1<<20 + 1, 3 << 20} {
		body := bytes.Repeat([]byte("y"), sent)
		got, err := readAllSized(iotest.HalfReader(bytes.NewReader(body)), 4<<20, nil)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("sent %d: read %d bytes, err %v", sent, len(got), err)
		}
		if cap(got) > 4*sent {
			t.Errorf("sent %d: buffer of %d bytes", sent, cap(got))
		}
	}
}
