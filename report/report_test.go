package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/exitcode"
	"github.com/tallyprof/tally/render"
)

// input is a read input of one program with one kernel, one dispatch.
func input(path string) analysis.Input {
	c := &capture.Capture{Source: capture.Source{Path: path, Format: "test"}, Clock: capture.Clock{Unit: "ns", Timed: true}}
	p := c.AddProgram(capture.Program{Name: "p", Instances: 1})
	k := c.AddKernel(capture.Kernel{Program: p, Name: "k", Resolved: true})
	c.AddQueue(capture.Queue{Name: "q"})
	agg := analysis.NewAggregator()
	agg.Dispatch(c, &capture.Dispatch{Program: p, Kernel: k, Device: capture.Interval{Begin: 0, End: 10, Valid: true}})
	return analysis.Input{Path: path, Capture: c, Tables: agg.Tables(c)}
}

// A run of one input is that input's report; a run of many has a section
// per input and the merged tables.
func TestWriteOneOrMany(t *testing.T) {
	one := analysis.NewRun([]analysis.Input{input("a.trace")}, nil, false)
	for _, asJSON := range []bool{false, true} {
		var got, want bytes.Buffer
		if err := Write(&got, one, asJSON, render.TextOptions{}); err != nil {
			t.Fatal(err)
		}
		in := &one.Inputs[0]
		if asJSON {
			render.JSON(&want, in.Capture, in.Tables)
		} else {
			render.Text(&want, in.Capture, in.Tables, render.TextOptions{})
		}
		if got.String() != want.String() {
			t.Errorf("json %v: got\n%s\nwant the input's own report\n%s", asJSON, got.String(), want.String())
		}
	}
	many := analysis.NewRun([]analysis.Input{input("a.trace"), {Path: "b.trace", Err: errors.New("cannot open b.trace")}},
		[]analysis.Skipped{{Path: "notes.txt", Reason: "no reader recognises it"}}, true)
	var got bytes.Buffer
	if err := Write(&got, many, false, render.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	// The head line and the merged section's input line count the inputs
	// in one wording (they disagreed: "2 inputs (1 read, 1 failed), 1
	// files skipped" against "3 inputs read, 1 used, 2 skipped").
	counts := "3 inputs read, 1 used, 2 skipped (1 could not be read, 1 no reader recognises it)\n"
	for _, want := range []string{"tally report: " + counts, "== input 2/2: b.trace ==\nFAILED: cannot open b.trace\n", "== merged over 2 inputs",
		"input: 2 inputs (many, 0 B): " + counts} {
		if !strings.Contains(got.String(), want) {
			t.Errorf("got\n%s\nwant it to hold %q", got.String(), want)
		}
	}
}

func TestExitCode(t *testing.T) {
	empty := input("e.trace")
	empty.Capture.Accounting.Gap(capture.EmptyCapture, "").AddN(1)
	cut := input("c.trace")
	cut.Capture.Accounting.Gap(capture.TruncatedInput, "").AddN(1)
	strict := Gate{Strict: true, MaxAffected: -1}
	for _, c := range []struct {
		name string
		run  *analysis.Run
		gate Gate
		want int
	}{
		{"one complete", analysis.NewRun([]analysis.Input{input("a")}, nil, false), strict, exitcode.OK},
		{"one empty", analysis.NewRun([]analysis.Input{empty}, nil, false), NoGate, exitcode.Error},
		{"one cut", analysis.NewRun([]analysis.Input{cut}, nil, false), NoGate, exitcode.OK},
		{"one cut, strict", analysis.NewRun([]analysis.Input{cut}, nil, false), strict, exitcode.Failed},
		{"many, one failed", analysis.NewRun([]analysis.Input{input("a"), {Path: "b", Err: errors.New("no")}}, nil, true), NoGate, exitcode.OK},
		{"many, one failed, strict", analysis.NewRun([]analysis.Input{input("a"), {Path: "b", Err: errors.New("no")}}, nil, true), strict, exitcode.Failed},
		{"many, all failed", analysis.NewRun([]analysis.Input{{Path: "b", Err: errors.New("no")}}, nil, true), NoGate, exitcode.Error},
		{"many, none found", analysis.NewRun(nil, nil, true), NoGate, exitcode.Error},
		{"many, one empty", analysis.NewRun([]analysis.Input{input("a"), empty}, nil, true), NoGate, exitcode.Error},
	} {
		if got, _ := ExitCode(c.run, c.gate); got != c.want {
			t.Errorf("%s: got exit %d, want %d", c.name, got, c.want)
		}
	}
}

// The JSON of many inputs lists each input's source as its reader stated
// it (format, bytes, rank), a failed input by its path, and a section per
// input in order.
func TestWriteManyJSONInputs(t *testing.T) {
	a := input("a.trace")
	a.Capture.Source.Bytes, a.Capture.Source.Rank = 123, "0"
	many := analysis.NewRun([]analysis.Input{a, {Path: "b.trace", Err: errors.New("cannot open b.trace")}}, nil, true)
	var buf bytes.Buffer
	if err := Write(&buf, many, true, render.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Inputs   []capture.Source
		Sections []render.JSONSection
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := []capture.Source{{Path: "a.trace", Format: "test", Bytes: 123, Rank: "0"}, {Path: "b.trace"}}
	if !reflect.DeepEqual(doc.Inputs, want) {
		t.Errorf("inputs: got %+v, want %+v", doc.Inputs, want)
	}
	if len(doc.Sections) != 2 || doc.Sections[0].Input.Path != "a.trace" || doc.Sections[1].Error != "cannot open b.trace" {
		t.Errorf("sections: got %+v, want a.trace's, then b.trace's error", doc.Sections)
	}
}
