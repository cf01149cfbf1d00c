package jsonbytes

import (
	"strings"
	"testing"
)

// TestValidValueDeepAllocatesNothing: checking a value nested hundreds of
// levels deep allocates nothing (the converters check a tool's input on
// every pass over its message).
func TestValidValueDeepAllocatesNothing(t *testing.T) {
	v := []byte(strings.Repeat(`{"a":[`, 2000) + `1` + strings.Repeat(`]}`, 2000))
	if n := testing.AllocsPerRun(10, func() {
		if ValidValue(v, 0, 0) != len(v) {
			t.Fatal("not valid")
		}
	}); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
