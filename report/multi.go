package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/inputs"
	"github.com/tallyprof/tally/internal/exitcode"
	"github.com/tallyprof/tally/internal/safetext"
	"github.com/tallyprof/tally/render"
)

// Multi is the report of many inputs (ranks, runs): one section per input,
// then the merged tables per program and the accounting of the whole.
type Multi struct {
	Run *inputs.Run
}

// RunAll expands args (files, directories), reads every input in parallel,
// each with its own accounting, and merges them. It never fails as a whole:
// an input that cannot be read is a failed_input gap of the whole.
func RunAll(args []string, opt Options, workers int) *Multi {
	return &Multi{Run: inputs.Read(args, inputs.Options{Format: opt.Format, Reader: opt.Reader, Workers: workers, Progress: opt.Progress}, opt.ExtraFor)}
}

// WriteText writes the text report, or the JSON report when asJSON.
func (m *Multi) WriteText(w io.Writer, asJSON bool, opt render.TextOptions) error {
	if asJSON {
		return m.writeJSON(w)
	}
	run := m.Run
	bw := bufio.NewWriter(w)
	failed := 0
	for _, r := range run.Results {
		if r.Err != nil {
			failed++
		}
	}
	fmt.Fprintf(bw, "tally report: %d inputs (%d read, %d failed), %d files skipped\n", len(run.Results), len(run.Results)-failed, failed, len(run.Skipped))
	for i, r := range run.Results {
		safetext.Fprintf(bw, "\n== input %d/%d: %s ==\n", i+1, len(run.Results), r.Label())
		if r.Err != nil {
			safetext.Fprintf(bw, "FAILED: %v\n", r.Err)
			continue
		}
		if err := render.Text(bw, r.Capture, r.Tables, opt); err != nil {
			return err
		}
	}
	fmt.Fprintf(bw, "\n== merged over %d inputs: one table per program (by name), kernels by name within a program ==\n", len(run.Results))
	if err := render.Text(bw, run.Whole, run.Tables, opt); err != nil {
		return err
	}
	return bw.Flush()
}

func (m *Multi) writeJSON(w io.Writer) error {
	run := m.Run
	doc := render.BuildJSON(run.Whole, run.Tables)
	doc.Inputs = []capture.Source{}
	for _, r := range run.Results {
		src := capture.Source{Path: r.Path}
		if r.Capture != nil {
			src = r.Capture.Source
		}
		doc.Inputs = append(doc.Inputs, src)
		doc.Sections = append(doc.Sections, render.BuildSection(r.Path, r.Capture, r.Tables, r.Err))
	}
	if doc.Sections == nil {
		doc.Sections = []render.JSONSection{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

// ExitCode is the status `tally report` ends with: 2 when no input could be
// read or none holds a dispatch event, 1 under --strict when anything is
// missing or when the affected check fails (with its reasons), else 0.
func (m *Multi) ExitCode(g Gate) (int, []string) {
	run := m.Run
	if run.Whole.Accounting.CountOf(capture.EmptyCapture) > 0 || int64(len(run.Results)) == run.Whole.Accounting.CountOf(capture.FailedInput) {
		return exitcode.Error, nil
	}
	if g.Strict && !run.Complete() {
		return exitcode.Failed, nil
	}
	if why := g.failuresOfMany(m); len(why) > 0 {
		return exitcode.Failed, why
	}
	return exitcode.OK, nil
}
