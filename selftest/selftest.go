// Package selftest checks the tally in hand against small traces embedded in
// it, whose contents are known: a complete run, the same kept trace cut
// between two lines (its end record lost), a run cut inside a dispatch, a
// device fault, a raw trace, a kept trace whose command printed no trace
// line, and a log that no reader may claim. It is
// what `tally selftest` runs, so an installed binary can prove it still
// tells complete from incomplete.
package selftest

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/catalog"
	"github.com/tallyprof/tally/format"
	_ "github.com/tallyprof/tally/format/readers"
	"github.com/tallyprof/tally/internal/exitcode"
	"github.com/tallyprof/tally/render"
	"github.com/tallyprof/tally/report"
)

//go:embed traces
var traces embed.FS

// Check is one embedded trace and what a correct tally reports for it.
type Check struct {
	Name  string
	Trace string // file under traces/
	Want  Want
}

// Want is the expected outcome. The hrx traces were written by
// internal/gen/hrxgen, whose bookkeeping gave these figures; the other two
// are real files whose figures the reference tools agree with (see
// traces/README.md).
type Want struct {
	Format     string
	Dispatches int64
	DeviceNS   int64 // summed device time; 0 for untimed traces
	Timed      bool
	Complete   bool
	Gaps       []capture.Kind // exactly these kinds, in any order
	Exit       int            // report.ExitCode without --strict
	// Refused: no reader recognises the file (format.ErrUnknownFormat),
	// so it is an error (exit 2), never a capture.
	Refused bool
}

// Checks are the built-in checks.
var Checks = []Check{
	{"complete trace", "complete.kept", Want{Format: "hrx-serial", Dispatches: 36, DeviceNS: 1373208, Timed: true, Complete: true, Exit: 0}},
	{"cut between two lines", "cutline.kept", Want{Format: "hrx-serial", Dispatches: 36, DeviceNS: 1373208, Timed: true,
		Gaps: []capture.Kind{capture.TruncatedInput}}},
	{"cut inside a dispatch", "cut.kept", Want{Format: "hrx-serial", Dispatches: 14, DeviceNS: 527514, Timed: true,
		Gaps: []capture.Kind{capture.UnfinishedDispatch, capture.IncompleteProgram, capture.InterruptedRecording}}},
	{"device fault", "fault.kept", Want{Format: "hrx-serial", Dispatches: 14, DeviceNS: 553730, Timed: true,
		Gaps: []capture.Kind{capture.UnfinishedDispatch, capture.IncompleteProgram, capture.DeviceFault, capture.UnresolvedName, capture.InterruptedRecording}}},
	{"raw trace without times", "raw.log", Want{Format: "hrx-serial", Dispatches: 20, Complete: true, Gaps: []capture.Kind{capture.NoEndMarker}}},
	// A log of another program holds no evidence of any format: no reader
	// may claim it (and advise a switch of a format it is not).
	{"not a trace", "nontrace.log", Want{Refused: true, Exit: exitcode.Error}},
	// The same lines kept by `tally record`: tally's own kept trace, whose
	// command ran to its end and printed no trace line.
	{"kept trace without a trace line", "nontrace.kept", Want{Format: "hrx-serial", Gaps: []capture.Kind{capture.EmptyCapture}, Exit: exitcode.Error}},
	{"empty file", "empty.log", Want{Format: "unknown", Gaps: []capture.Kind{capture.EmptyCapture}, Exit: exitcode.Error}},
	// Real producers' files: an IREE bundle with an event that never got
	// its timestamps, and a small PyTorch profiler trace.
	{"IREE bundle with an untimed event", "dispatch_mode.ireeprof", Want{Format: "ireeprof", Dispatches: 3, DeviceNS: 2820, Timed: true,
		Gaps: []capture.Kind{capture.InvalidEvent}}},
	{"PyTorch profiler trace", "hta__cuda_event_sync.json.gz", Want{Format: "kineto", Dispatches: 5, DeviceNS: 51000, Timed: true, Complete: true}},
}

// Run runs checks and writes one line per check ("ok" or "FAIL" with what
// differed). It returns the number of failed checks.
func Run(w io.Writer, checks []Check) (failed int, err error) {
	manifest, err := traces.ReadFile("traces/manifest.json")
	if err != nil {
		return 0, err
	}
	for _, c := range checks {
		problems := run(c, manifest)
		if len(problems) == 0 {
			_, err = fmt.Fprintf(w, "ok    %s\n", c.Name)
		} else {
			failed++
			_, err = fmt.Fprintf(w, "FAIL  %s (%s)\n", c.Name, c.Trace)
			for _, p := range problems {
				if err == nil {
					_, err = fmt.Fprintf(w, "        %s\n", p)
				}
			}
		}
		if err != nil {
			return failed, err
		}
	}
	if failed == 0 {
		_, err = fmt.Fprintf(w, "selftest: all %d checks passed\n", len(checks))
	} else {
		_, err = fmt.Fprintf(w, "selftest: %d of %d checks FAILED: this tally cannot be trusted to report gaps\n", failed, len(checks))
	}
	return failed, err
}

// run reads one trace through the same path `tally report` uses (content
// sniffing, reader, aggregation, both renderers) and compares.
func run(c Check, manifest []byte) (problems []string) {
	defer func() {
		if r := recover(); r != nil {
			problems = append(problems, fmt.Sprintf("panic: %v", r))
		}
	}()
	data, err := traces.ReadFile("traces/" + c.Trace)
	if err != nil {
		return []string{err.Error()}
	}
	cat := catalog.New()
	if err := cat.ParseManifest(manifest, "embedded manifest.json"); err != nil {
		return []string{err.Error()}
	}
	in := format.BytesInput(c.Trace, data)
	agg := analysis.NewAggregator()
	capt, err := format.ReadInput(in, "", &format.Options{Catalog: cat}, agg)
	if err != nil {
		if c.Want.Refused && errors.Is(err, format.ErrUnknownFormat) {
			return compare(Want{Refused: true, Exit: exitcode.Error}, c.Want)
		}
		return []string{"read: " + err.Error()}
	}
	res := analysis.NewRun([]analysis.Input{{Path: c.Trace, Capture: capt, Tables: agg.Tables(capt)}}, nil, false)
	if err := report.Write(io.Discard, res, false, render.TextOptions{}); err != nil {
		problems = append(problems, "text report: "+err.Error())
	}
	if err := report.Write(io.Discard, res, true, render.TextOptions{}); err != nil {
		problems = append(problems, "JSON report: "+err.Error())
	}
	if err := capt.Accounting.CheckValid(); err != nil {
		problems = append(problems, err.Error())
	}
	var dev int64
	tables := res.Inputs[0].Tables
	for _, p := range tables.Programs {
		dev += p.Total
	}
	got := Want{Format: capt.Source.Format, Dispatches: tables.Dispatches(), DeviceNS: dev, Timed: capt.Clock.Timed,
		Complete: capt.Accounting.Complete(), Exit: exitOf(res)}
	for _, g := range capt.Accounting.Gaps {
		if g.Count > 0 && !slices.Contains(got.Gaps, g.Kind) {
			got.Gaps = append(got.Gaps, g.Kind)
		}
	}
	return append(problems, compare(got, c.Want)...)
}

// compare lists how got differs from want, field by field.
func compare(got, want Want) (problems []string) {
	for _, f := range []struct {
		what      string
		got, want any
	}{
		{"format", got.Format, want.Format},
		{"dispatches", got.Dispatches, want.Dispatches},
		{"device ns", got.DeviceNS, want.DeviceNS},
		{"timed", got.Timed, want.Timed},
		{"complete", got.Complete, want.Complete},
		{"exit status", got.Exit, want.Exit},
		{"gaps", got.Gaps, want.Gaps},
		{"refused (no reader recognises it)", got.Refused, want.Refused},
	} {
		if !same(f.got, f.want) {
			problems = append(problems, fmt.Sprintf("%s: got %v, want %v", f.what, f.got, f.want))
		}
	}
	return problems
}

// same compares two fields of a Want: gap kinds in any order, the others
// by value.
func same(got, want any) bool {
	if g, ok := got.([]capture.Kind); ok {
		return sameKinds(g, want.([]capture.Kind))
	}
	return got == want
}

func sameKinds(a, b []capture.Kind) bool {
	if len(a) != len(b) {
		return false
	}
	for _, k := range a {
		if !slices.Contains(b, k) {
			return false
		}
	}
	return true
}

func exitOf(res *analysis.Run) int {
	code, _ := report.ExitCode(res, report.NoGate)
	return code
}
