// Command nsysgen writes a synthetic Nsight Systems SQLite export for
// benchmarks (kernels, one runtime launch each, NVTX ranges):
//
//	go run ./cmd/nsysgen -kernels 10000000 -o /tmp/big.sqlite
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/tallyprof/tally/internal/gen/nsysgen"
)

func main() {
	out := flag.String("o", "", "output `file` (required; must not exist)")
	n := flag.Int("kernels", 1_000_000, "kernel rows")
	flag.Parse()
	if *out == "" || *n < 0 {
		fmt.Fprintln(os.Stderr, "usage: nsysgen -kernels N -o FILE")
		os.Exit(2)
	}
	if err := nsysgen.Write(*out, *n); err != nil {
		fmt.Fprintln(os.Stderr, "nsysgen:", err)
		os.Exit(1)
	}
}
