package report

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/safetext"
	"github.com/tallyprof/tally/internal/units"
	"github.com/tallyprof/tally/render"
)

// writeManyText is the text report of many inputs: one section per input,
// then the merged tables per program and the accounting of the whole.
func writeManyText(w io.Writer, run *analysis.Run, opt render.TextOptions) error {
	sections, err := renderSections(run, opt)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	// The whole's count, in the words of the merged section's input line.
	safetext.Fprintf(bw, "tally report: %s\n", render.CountLine(run.Whole.Accounting.InputFor("inputs")))
	for i := range sections {
		bw.Write(sections[i].Bytes())
		sections[i] = bytes.Buffer{} // written: let it go
	}
	fmt.Fprintf(bw, "\n== merged over %s: one table per program (by name), kernels by name within a program ==\n", units.Plural(int64(len(run.Inputs)), "input", "inputs"))
	opt.Breakdown = run.Breakdown
	opt.NoLegend = opt.NoLegend || !firstRead(run, len(run.Inputs)) // a section had it
	if err := render.Text(bw, run.Whole, run.Tables, opt); err != nil {
		return err
	}
	return bw.Flush()
}

// renderSections renders the inputs' sections, one core each at a time:
// with 64 ranks, rendering one after the other was a tenth of a
// two-core run's wall time, with the second core idle.
func renderSections(run *analysis.Run, opt render.TextOptions) ([]bytes.Buffer, error) {
	sections := make([]bytes.Buffer, len(run.Inputs))
	errs := make([]error, len(run.Inputs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(run.Inputs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(run.Inputs); i = int(next.Add(1) - 1) {
				r, b := &run.Inputs[i], &sections[i]
				safetext.Fprintf(b, "\n== input %d/%d: %s ==\n", i+1, len(run.Inputs), r.Label())
				if r.Err != nil {
					safetext.Fprintf(b, "FAILED: %v\n", r.Err)
					continue
				}
				o := opt
				o.Breakdown = r.Breakdown
				o.NoLegend = o.NoLegend || !firstRead(run, i) // the columns' legend once, in the first section
				errs[i] = render.Text(b, r.Capture, r.Tables, o)
			}
		}()
	}
	wg.Wait()
	return sections, errors.Join(errs...)
}

// firstRead reports whether input i is the first that was read (its
// section carries the columns' legend).
func firstRead(run *analysis.Run, i int) bool {
	for j := range i {
		if run.Inputs[j].Err == nil {
			return false
		}
	}
	return true
}

func writeManyJSON(w io.Writer, run *analysis.Run, x Extras) error {
	doc := render.BuildJSON(run.Whole, run.Tables)
	doc.Collectives = render.BuildCollectives(x.Collectives, run)
	doc.Breakdown = render.BuildBreakdown(run.Whole, run.Breakdown)
	doc.Inputs = []capture.Source{}
	for _, r := range run.Inputs {
		src := capture.Source{Path: r.Path}
		if r.Capture != nil {
			src = r.Capture.Source
		}
		doc.Inputs = append(doc.Inputs, src)
		sec := render.BuildSection(r.Path, r.Capture, r.Tables, r.Err)
		sec.Breakdown = render.BuildBreakdown(r.Capture, r.Breakdown)
		doc.Sections = append(doc.Sections, sec)
	}
	if doc.Sections == nil {
		doc.Sections = []render.JSONSection{}
	}
	return render.WriteJSON(w, doc)
}
