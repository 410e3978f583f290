//go:build !unix

package testfile

import "time"

// CPUTime is 0: this system gives no process CPU time here.
func CPUTime() time.Duration { return 0 }
