//go:build unix

package testfile

import (
	"syscall"
	"time"
)

// CPUTime is the process's user+system CPU time: on a shared machine it
// measures a benchmark's own work where wall time also counts waiting.
// It is 0 where the system does not say.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
