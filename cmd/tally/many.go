package main

import (
	"fmt"
	"io"
	"os"

	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/render"
	"github.com/tallyprof/tally/report"
)

// many reports whether the arguments are a run of inputs (several, or a
// directory of traces) rather than one input (a file, or a run directory
// a directory reader claims).
func many(pos []string) bool {
	if len(pos) > 1 {
		return true
	}
	st, err := os.Stat(pos[0])
	if err != nil || !st.IsDir() {
		return false
	}
	_, conf := format.DetectDir(pos[0])
	return conf < format.Likely
}

func reportMany(pos []string, opt report.Options, out string, asJSON, strict bool, topt render.TextOptions, stdout, stderr io.Writer) int {
	m := report.RunAll(pos, opt, 0)
	if err := writeOutput(out, stdout, func(w io.Writer) error { return m.WriteText(w, asJSON, topt) }); err != nil {
		fmt.Fprintf(stderr, "tally report: %v\n", err)
		return 2
	}
	return m.ExitCode(strict)
}
