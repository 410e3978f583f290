// Command tally reports where accelerator kernel time went, per program and
// per kernel, and states everything the input did not show (package
// internal/cli; docs/cli.md).
//
// It links what most commands need, so it starts in a few milliseconds;
// an invocation that needs an engine it leaves out — an nsys or rocpd
// SQLite input, tally export — is handed to tally-full, which it looks for
// beside itself and then on PATH.
package main

import (
	"os"

	"github.com/tallyprof/tally/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
