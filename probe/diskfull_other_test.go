//go:build !unix

package probe_test

import (
	"fmt"
	"os"

	"github.com/tallyprof/tally/probe"
)

// fileSizeLimited needs RLIMIT_FSIZE (diskfull_test.go): no such child here.
func fileSizeLimited(*probe.Session, string) {
	fmt.Println("no RLIMIT_FSIZE on this system")
	os.Exit(4)
}
