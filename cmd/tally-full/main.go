// Command tally-full is tally with every engine linked: SQLite (the nsys
// and rocpd readers) and the writers of tally export (Parquet, pprof).
// Those engines cost tens of milliseconds of start-up in every run, so
// tally leaves them out and hands the invocations that need them to
// tally-full, with the same arguments; it can also be run directly, as
// tally. Install both: go install ./cmd/tally ./cmd/tally-full
package main

import (
	"os"

	"github.com/tallyprof/tally/internal/cli"
	"github.com/tallyprof/tally/internal/exportcmd"

	_ "modernc.org/sqlite" // the SQLite engine of the nsys and rocpd readers
)

func main() {
	cli.Exporter = exportcmd.Run
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
