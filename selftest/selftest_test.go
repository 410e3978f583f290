package selftest

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

func TestChecksPass(t *testing.T) {
	var out bytes.Buffer
	failed, err := Run(&out, Checks)
	if err != nil || failed != 0 {
		t.Fatalf("got %d failed (%v), want 0 and no error:\n%s", failed, err, out.String())
	}
}

// The self-test bites: one wrong expectation makes it fail and name the check.
func TestSelftestBites(t *testing.T) {
	for i := range Checks {
		mutated := append([]Check(nil), Checks...)
		mutated[i].Want.Complete = !mutated[i].Want.Complete
		var out bytes.Buffer
		failed, err := Run(&out, mutated)
		if err != nil || failed != 1 || !strings.Contains(out.String(), "FAIL  "+mutated[i].Name) {
			t.Fatalf("mutating %q: got %d failed:\n%s\nwant 1 and its FAIL line", mutated[i].Name, failed, out.String())
		}
	}
	mutated := append([]Check(nil), Checks...)
	mutated[0].Want.Dispatches++
	var out bytes.Buffer
	if failed, _ := Run(&out, mutated); failed != 1 || !strings.Contains(out.String(), "dispatches: got 36, want 37") {
		t.Fatalf("dispatch count mutation: got\n%s\nwant 1 failed and \"dispatches: got 36, want 37\"", out.String())
	}
}

// compare names every field that differs, in Want's order, with both
// values; gap kinds are the same in any order.
func TestCompareNamesEachField(t *testing.T) {
	want := Want{Format: "hrx-serial", Dispatches: 36, DeviceNS: 1373208, Timed: true, Complete: true,
		Gaps: []capture.Kind{capture.TruncatedInput, capture.UnfinishedDispatch}}
	if got := compare(Want{Format: "hrx-serial", Dispatches: 36, DeviceNS: 1373208, Timed: true, Complete: true,
		Gaps: []capture.Kind{capture.UnfinishedDispatch, capture.TruncatedInput}}, want); len(got) != 0 {
		t.Errorf("the same figures, gaps in another order: got %q, want no problem", got)
	}
	got := compare(Want{Format: "kineto", Dispatches: 35, DeviceNS: 1, Gaps: []capture.Kind{capture.TruncatedInput, capture.EmptyCapture}, Exit: 2, Refused: true}, want)
	wantProblems := []string{
		"format: got kineto, want hrx-serial",
		"dispatches: got 35, want 36",
		"device ns: got 1, want 1373208",
		"timed: got false, want true",
		"complete: got false, want true",
		"exit status: got 2, want 0",
		"gaps: got [truncated_input empty_capture], want [truncated_input unfinished_dispatch]",
		"refused (no reader recognises it): got true, want false",
	}
	if !slices.Equal(got, wantProblems) {
		t.Errorf("every field differs: got %q, want %q", got, wantProblems)
	}
}
