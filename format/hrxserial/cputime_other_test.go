//go:build !unix

package hrxserial

import "time"

func cpuTime() time.Duration { return 0 }
