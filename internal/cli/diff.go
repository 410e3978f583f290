package cli

import (
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/diff"
	"github.com/tallyprof/tally/internal/exitcode"
	"github.com/tallyprof/tally/internal/safetext"
)

const diffUsage = `Usage: tally diff [flags] A B                  (each a file or a directory)
       tally diff [flags] A1 A2 ... -- B1 B2 ...

Compares side A with side B per program and per kernel: dispatches per run, time per
dispatch and time per run, as medians with confidence intervals and the Mann-Whitney U
test (benchstat's statistics). A change is called only when the test and the interval
agree (p < 0.05 and the change's interval excludes 0); ~ otherwise. An interval needs
at least 6 runs a side. Every run of a program is one sample — runs that failed or never
ended are left out and counted; repeat inputs on a side for more. A side may be a
directory (ranks, runs): expanded as in tally report, read in parallel, each input with its
own accounting in the header. Programs are matched by name and kernels by name within their
program; what one side lacks is listed as added or removed.
Output and schema: docs/diff-json.md. --fail-if-slower also exits 1 (naming what got slower).

Flags:
`

func cmdDiff(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("diff", diffUsage, stderr)
	var rf readerFlags
	rf.register(fs)
	asJSON := fs.Bool("json", false, "write JSON (schema tally.diff/v1, see docs/diff-json.md)")
	asCSV := fs.Bool("csv", false, "write CSV, one row per program or kernel and quantity (see docs/diff-json.md)")
	strict := fs.Bool("strict", false, "exit 1 when an input of either side is not complete (any gap)")
	out := fs.String("o", "", "write to `FILE` instead of standard output")
	failPct := fs.Float64("fail-if-slower", 0, "exit 1 when a program's time per run or a kernel's time per dispatch got slower by more than `PCT` percent, as a change called (the test and the interval agree)")
	names := choice(fs, "names", "short", "text: kernel names `short` (as tally report shows them, cut to fit 120 columns) or full (whole)", []string{"short", "full"}, nil)
	a, b, err := diffSides(fs, args)
	if err != nil {
		return exitcode.Error
	}
	if a == nil {
		return usageError(fs, "give two trace files (A B), or A files -- B files")
	}
	if *asJSON && *asCSV {
		return usageError(fs, "give --json or --csv, not both")
	}
	if err := outputsClash([]string{*out}, append(slices.Clip(a), b...)); err != nil {
		return usageError(fs, "%v", err)
	}
	if given(fs, "names") && (*asJSON || *asCSV) {
		return usageError(fs, "--names applies to the text output; --json and --csv have full names")
	}
	fail := -1.0 // off unless given
	if given(fs, "fail-if-slower") {
		if *failPct < 0 || math.IsNaN(*failPct) || math.IsInf(*failPct, 0) {
			return usageError(fs, "--fail-if-slower %g: give a percentage, 0 or more", *failPct)
		}
		fail = *failPct
	}
	o := rf.options()
	if err := unlinkedInputs(append(slices.Clip(a), b...), o.Format); err != nil {
		return handover(append([]string{"diff"}, args...), err, stderr)
	}
	res, err := diff.Run(a, b, diff.Options{Format: o.Format, Reader: o.Reader, Watch: o.Watch})
	if err != nil {
		safetext.Fprintf(stderr, "tally diff: %v\n", err)
		return exitcode.Error
	}
	err = writeOutput(*out, stdout, func(w io.Writer) error {
		switch {
		case *asJSON:
			return res.WriteJSON(w, fail)
		case *asCSV:
			return res.WriteCSV(w)
		}
		return res.Text(w, diff.TextOptions{FullNames: *names == "full"})
	})
	if err != nil {
		safetext.Fprintf(stderr, "tally diff: %v\n", err)
		return exitcode.Error
	}
	code := res.ExitCode(*strict, fail)
	for _, s := range []*diff.Side{res.A, res.B} {
		for _, c := range s.Captures {
			if c.Accounting.CountOf(capture.EmptyCapture) > 0 {
				safetext.Fprintf(stderr, "tally diff: side %s: %s holds no dispatch event: nothing to compare it with\n", s.Label, c.Source.Path)
			}
		}
	}
	if fail >= 0 {
		for _, s := range res.Slower(fail) {
			fmt.Fprintf(stderr, "tally diff: slower by more than %g%%: %s\n", fail, s)
		}
	}
	if *strict {
		for _, s := range []*diff.Side{res.A, res.B} {
			if !s.Complete() {
				fmt.Fprintf(stderr, "tally diff: --strict: side %s is incomplete\n", s.Label)
			}
			if len(s.MissingRanks) > 0 {
				safetext.Fprintf(stderr, "tally diff: --strict: side %s lacks ranks the other side holds: %s\n", s.Label, strings.Join(s.MissingRanks, ", "))
			}
		}
	}
	return code
}

// diffSides splits the arguments at "--" into side A's and side B's
// files (flags may come anywhere); without "--" there must be exactly two.
func diffSides(fs *flag.FlagSet, args []string) (a, b []string, err error) {
	if i := slices.Index(args, "--"); i >= 0 {
		if a, err = parseInterspersed(fs, args[:i]); err != nil {
			return nil, nil, err
		}
		if b, err = parseInterspersed(fs, args[i+1:]); err != nil {
			return nil, nil, err
		}
		if len(a) == 0 || len(b) == 0 {
			return nil, nil, nil
		}
		return a, b, nil
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil || len(pos) != 2 {
		return nil, nil, err
	}
	return pos[:1], pos[1:], nil
}
