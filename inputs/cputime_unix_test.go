//go:build unix

package inputs

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time: on a shared machine it
// measures the work done where wall time also counts waiting.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
