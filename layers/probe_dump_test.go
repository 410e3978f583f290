package layers

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/tallyprof/tally/probe"
)

// probeDump writes layers 0..2 with the probe into dir, layer bad (if
// 0..2) with a shape that does not fit its data, and returns WriteLayer's
// errors and Close's list of layers not written.
func probeDump(t *testing.T, dir string, bad int) (errs []error, notWritten []probe.LayerFailure) {
	t.Helper()
	s, err := probe.Open(probe.Options{Log: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	for l := 0; l < 3; l++ {
		data := make([]float32, cm*ch)
		for i := range data {
			data[i] = float32(value(l, i/ch, i%ch))
		}
		shape := [2]int{cm, ch}
		if l == bad {
			shape = [2]int{cm + 1, ch}
		}
		if err := s.WriteLayer(dir, l, data, shape); err != nil {
			errs = append(errs, err)
		}
	}
	r, err := s.Close()
	if len(r.LayersNotWritten) > 0 && !errors.Is(err, probe.ErrLayers) {
		t.Fatalf("Close got %v, want ErrLayers with %d layers not written", err, len(r.LayersNotWritten))
	}
	return errs, r.LayersNotWritten
}

// A probe dump that fails into a directory holding an earlier run's dump
// of that layer must read as not written: the earlier layer_1.f32 and its
// sidecar are removed, never compared as this run's.
func TestProbeFailedDumpOverEarlierRun(t *testing.T) {
	ref, ours := t.TempDir(), t.TempDir()
	probeDump(t, ref, -1)
	if errs, _ := probeDump(t, ours, -1); len(errs) != 0 {
		t.Fatalf("got errors %v, want none", errs)
	}
	// The second run into the same directory fails to dump layer 1.
	errs, nw := probeDump(t, ours, 1)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "layer 1 not written") || len(nw) != 1 || nw[0].Layer != 1 {
		t.Fatalf("WriteLayer errors %v, Close lists %+v; want layer 1 reported both ways", errs, nw)
	}
	rep := run(t, ref, ours, Options{})
	ly := byLayer(rep, 1)
	if ly == nil || ly.Status != "not_written" || len(ly.NotWritten) != 1 || ly.NotWritten[0] != "ours" || !rep.Findings() {
		t.Fatalf("layer 1 got %+v, want not_written (ours) and a finding", ly)
	}
	if !strings.Contains(ly.Problem, "not written") || strings.Contains(ly.Problem, "did not run") {
		t.Errorf("problem got %q, want 'not written', never 'did not run'", ly.Problem)
	}
	// The negative arm: the layers written in this run are compared.
	if rep.Totals.Compared != 2 {
		t.Errorf("got %+v, want layers 0 and 2 compared", rep.Totals)
	}
}
