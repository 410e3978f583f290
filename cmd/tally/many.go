package main

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/exitcode"
	"github.com/tallyprof/tally/render/htmlreport"
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

func reportMany(pos []string, opt report.Options, rep reportOutputs, gate report.Gate, stdout, stderr io.Writer) int {
	// One timeline per input: inputs are read in parallel.
	var (
		mu  sync.Mutex
		tls = map[int]*htmlreport.Timeline{}
	)
	if rep.html != "" {
		opt.ExtraFor = func(i int, _ string) capture.Sink {
			tl := htmlreport.NewTimeline()
			mu.Lock()
			tls[i] = tl
			mu.Unlock()
			return tl
		}
	}
	m := report.RunAll(pos, opt, 0)
	page := func(w io.Writer) error {
		ins := make([]htmlreport.Input, len(m.Run.Results))
		for i, r := range m.Run.Results {
			ins[i] = htmlreport.Input{Path: r.Path, Label: r.Label(), Capture: r.Capture, Tables: r.Tables, Err: r.Err, Timeline: tls[i]}
		}
		return htmlreport.WriteMany(w, m.Run.Whole, m.Run.Tables, ins, htmlreport.Options{Command: rep.command})
	}
	if err := rep.write(stdout, page, m.WriteText); err != nil {
		fmt.Fprintf(stderr, "tally report: %v\n", err)
		return exitcode.Error
	}
	code, why := m.ExitCode(gate)
	return gateExit(stderr, code, why)
}
