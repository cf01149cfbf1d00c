//go:build unix

package gemini

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time. Benchmarks report
// throughput per CPU-second too, which stays meaningful on a shared,
// oversubscribed machine where wall-clock MB/s is not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
