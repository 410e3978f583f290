package export

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// The run's own gaps — here one recording read twice, as two inputs that
// state other ranks — are rows of input -1 in the gaps table (csv, jsonl,
// parquet), run_gaps in a dataset's marker and "run: GAP" lines in a
// profile's comments, and the export is incomplete.
func TestRunGapsExported(t *testing.T) {
	dir := t.TempDir()
	a := writeSynth(t, dir, "a.synth", synthSpec{N: 20, SourceRank: "0"})
	b := writeSynth(t, dir, "b.synth", synthSpec{N: 20, SourceRank: "1"})
	args := []string{a, b}

	out := filepath.Join(dir, "d.csv")
	if res := run(t, args, Options{To: CSV, Out: out, Format: synthFormat}); res.Complete {
		t.Errorf("csv: complete, want incomplete (one recording read twice)")
	}
	found := false
	for _, rec := range readCSV(t, out+".gaps.csv")[1:] {
		if strings.Join(rec, ",") != "" && rec[0] == "-1" && strings.Contains(strings.Join(rec, ","), "repeated_input") {
			found = true
		}
	}
	if !found {
		t.Errorf("csv gaps: got no input -1 row of repeated_input, want one:\n%s", read(t, out+".gaps.csv"))
	}

	ds := filepath.Join(dir, "ds")
	run(t, args, Options{To: Parquet, Out: ds, Format: synthFormat})
	var marker struct {
		RunGaps []struct {
			Input int    `json:"input"`
			Kind  string `json:"kind"`
			Count int64  `json:"count"`
		} `json:"run_gaps"`
	}
	if err := json.Unmarshal(read(t, filepath.Join(ds, datasetMarker)), &marker); err != nil || len(marker.RunGaps) != 1 || marker.RunGaps[0].Kind != "repeated_input" || marker.RunGaps[0].Input != -1 {
		t.Errorf("dataset marker run_gaps %+v (%v), want one repeated_input of input -1", marker.RunGaps, err)
	}

	pp := filepath.Join(dir, "p.pb.gz")
	run(t, args, Options{To: PProf, Out: pp, Format: synthFormat})
	p, err := profile.Parse(bytes.NewReader(read(t, pp)))
	if err != nil {
		t.Fatal(err)
	}
	if c := strings.Join(p.Comments, "\n"); !strings.Contains(c, "run: GAP repeated_input (1)") {
		t.Errorf("got pprof comments without the run's gap, want \"run: GAP repeated_input (1)\" in:\n%s", c)
	}
}

// A profile's comments hold paths and names as the text report shows
// them: a control character (a terminal escape, a newline that would
// forge a line of its own) is escaped, never written raw.
func TestPProfCommentsEscaped(t *testing.T) {
	dir := t.TempDir()
	a := writeSynth(t, dir, "a\n\x1b[31mCOMPLETE.synth", synthSpec{N: 20, SourceRank: "0"})
	b := writeSynth(t, dir, "b.synth", synthSpec{N: 20, SourceRank: "1"}) // the same dispatches: a run gap naming a
	pp := filepath.Join(dir, "p.pb.gz")
	run(t, []string{a, b}, Options{To: PProf, Out: pp, Format: synthFormat})
	p, err := profile.Parse(bytes.NewReader(read(t, pp)))
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, c := range p.Comments {
		if strings.ContainsAny(c, "\n\x1b") {
			t.Errorf("got comment %q with a raw control character, want it escaped", c)
		}
		if strings.Contains(c, `a\n\x1b[31mCOMPLETE.synth`) {
			named++
		}
	}
	if named < 2 {
		t.Errorf("the input's path is named escaped in %d comments, want its own line and the run gap's", named)
	}
}
