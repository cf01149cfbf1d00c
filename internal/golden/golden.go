// Package golden compares test output with files under testdata/, which
// UPDATE_GOLDEN=1 rewrites. It has no Caddy in it, so the provider packages'
// tests use it as the integration tests do.
package golden

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func update() bool { return os.Getenv("UPDATE_GOLDEN") == "1" }

// Bytes compares got with testdata/<name> byte for byte.
func Bytes(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if update() {
		write(t, path, got)
	}
	if want := read(t, path); !bytes.Equal(got, want) {
		t.Errorf("output differs from %s.\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// JSON compares got with testdata/<name> as JSON values (key order and
// spacing aside); the file is written indented, in got's key order.
func JSON(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if update() {
		var buf bytes.Buffer
		if err := json.Indent(&buf, got, "", "  "); err != nil {
			t.Fatalf("got is not JSON: %v: %s", err, got)
		}
		buf.WriteByte('\n')
		write(t, path, buf.Bytes())
	}
	if want := read(t, path); !EqualJSON(t, got, want) {
		t.Errorf("%s differs.\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// EqualJSON reports whether two JSON documents are equal as values.
func EqualJSON(t testing.TB, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("not JSON: %v: %s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

func read(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file: %v (run with UPDATE_GOLDEN=1 to create it)", err)
	}
	return b
}

func write(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
