//go:build !unix

package kineto

import "time"

func cpuTime() time.Duration { return 0 }
