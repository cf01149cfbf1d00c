//go:build unix

package amazonq

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time: on a shared machine a
// benchmark's CPU time per MB stays meaningful where its wall-clock time
// does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
