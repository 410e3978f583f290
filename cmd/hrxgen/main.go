// Command hrxgen writes a realistic hrx debug-serial kept trace for tests,
// benchmarks and demos: tally report reads what it writes.
//
//	hrxgen -o trace.kept -decode 20 -prefill 1
//	hrxgen -o big.kept -size 1GB
//	hrxgen -o cut.kept -decode 5 -end cut
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tallyprof/tally/internal/checkedfile"
	"github.com/tallyprof/tally/internal/gen/hrxgen"
)

func main() {
	var opt hrxgen.Options
	out := flag.String("o", "", "output `file` (required)")
	size := flag.String("size", "", "grow the trace with decode runs to this size (e.g. 100MB, 1GB)")
	end := flag.String("end", "clean", "how the trace ends: clean, cut (killed inside a dispatch), fault (device fault)")
	flag.IntVar(&opt.Decode, "decode", 8, "decode runs (program p41)")
	flag.IntVar(&opt.Prefill, "prefill", 1, "prefill runs (program p303)")
	flag.Int64Var(&opt.Seed, "seed", 1, "random seed for the time jitter")
	flag.BoolVar(&opt.Raw, "raw", false, "write raw stderr lines without timestamps")
	flag.IntVar(&opt.FailRun, "fail-run", 0, "make decode run `N` fail")
	flag.IntVar(&opt.Foreign, "foreign", 0, "interleave a non-trace stderr line every `N` lines")
	flag.BoolVar(&opt.UnnamedKernel, "unnamed", false, "dispatch a kernel id no manifest names")
	flag.Parse()
	if *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	switch *end {
	case "clean":
	case "cut":
		opt.End = hrxgen.EndCut
	case "fault":
		opt.End = hrxgen.EndFault
	default:
		fmt.Fprintf(os.Stderr, "hrxgen: -end %q: want clean, cut or fault\n", *end)
		os.Exit(2)
	}
	if *size != "" {
		n, err := parseSize(*size)
		if err != nil {
			fmt.Fprintf(os.Stderr, "hrxgen: -size: %v\n", err)
			os.Exit(2)
		}
		opt.TargetBytes = n
	}
	var sum *hrxgen.Summary
	err := checkedfile.Write(*out, func(w io.Writer) error {
		var err error
		sum, err = hrxgen.Write(w, opt)
		return err
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "hrxgen: %v\n", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "hrxgen: wrote %s: %d lines, %d bytes\n", *out, sum.Lines, sum.Bytes)
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	u := strings.ToUpper(s)
	for _, suf := range []struct {
		s string
		m int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(u, suf.s) {
			mult, u = suf.m, strings.TrimSuffix(u, suf.s)
			break
		}
	}
	n, err := strconv.ParseInt(u, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a size like 100MB or 1GB", s)
	}
	return n * mult, nil
}
