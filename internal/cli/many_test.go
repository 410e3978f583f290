package cli

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// rank0 and rank1 (real Kineto rank traces) are declared in diff_test.go.

// runOfRanks copies two real rank traces into rank*/ directories.
func runOfRanks(t *testing.T) string {
	dir := t.TempDir()
	for i, src := range []string{rank0, rank1} {
		data := readFile(t, src)
		writeFile(t, dir, filepath.Join("rank"+string(rune('0'+i)), "trace.pt.trace.json.gz"), data)
	}
	return dir
}

func TestReportManyText(t *testing.T) {
	dir := runOfRanks(t)
	out := tallyOK(t, "report", "--top", "3", dir, filepath.Join(dir, "missing.json"))
	containsAll(t, "report", out, "tally report: 3 inputs read, 2 used, 1 skipped (1 could not be read)", "== input 1/3: rank 0 · ", "== input 2/3: rank 1 · ", "FAILED: open ",
		"== merged over 3 inputs", "GAP failed_input (1)", "GAP incomplete_input (2)")
	// Each program's merged dispatches are the sum of the sections'.
	re := regexp.MustCompile(`(?m)^program (.+): (\d+) runs?, (\d+) dispatches`)
	sections, merged, _ := strings.Cut(out, "== merged")
	sum := map[string]int{}
	for _, m := range re.FindAllStringSubmatch(sections, -1) {
		n, _ := strconv.Atoi(m[3])
		sum[m[1]] += n
	}
	got := re.FindAllStringSubmatch(merged, -1)
	if len(got) == 0 || len(got) != len(sum) {
		t.Fatalf("got merged programs %v, sections %v; want one merged program for each program of the sections", got, sum)
	}
	for _, m := range got {
		if n, _ := strconv.Atoi(m[3]); n != sum[m[1]] || n == 0 {
			t.Errorf("merged %s: got %d dispatches, want the sections' sum %d", m[1], n, sum[m[1]])
		}
	}
	if code, _, _ := tally("report", "--strict", dir); code != 1 {
		t.Errorf("--strict on incomplete ranks: got exit %d, want 1", code)
	}
	if code, _, _ := tally("report", filepath.Join(dir, "nope1"), filepath.Join(dir, "nope2")); code != 2 {
		t.Errorf("every input failing: exit %d, want 2", code)
	}
	for _, out := range []string{"/dev/full", filepath.Join(dir, "no", "such", "report.txt")} {
		if code, _, errOut := tally("report", "-o", out, rank0, rank1); code != 2 || errOut == "" {
			t.Errorf("unwritable %s: got exit %d, want 2 and an error", out, code)
		}
	}
}

func TestReportManyJSON(t *testing.T) {
	out := tallyOK(t, "report", "--json", rank0, rank1)
	var doc struct {
		Schema   string `json:"schema"`
		Inputs   []struct{ Path, Rank string }
		Programs []struct {
			Name       string
			Dispatches int64
		}
		Accounting struct{ Complete bool }
		Sections   []struct {
			Rank       string
			Programs   []struct{ Dispatches int64 }
			Accounting *struct{ Complete bool }
		}
	}
	decodeJSON(t, out, &doc)
	if doc.Schema != "tally.report/v1" || len(doc.Inputs) != 2 || len(doc.Sections) != 2 || doc.Sections[1].Rank != "1" || doc.Accounting.Complete {
		t.Fatalf("got doc %+v, want tally.report/v1, 2 inputs, 2 sections (rank 1 second), incomplete", doc)
	}
	sum := doc.Sections[0].Programs[0].Dispatches + doc.Sections[1].Programs[0].Dispatches
	if len(doc.Programs) != 1 || doc.Programs[0].Dispatches != sum {
		t.Errorf("merged: got %+v, want one program of the sections' sum %d", doc.Programs, sum)
	}
	// One file stays the one-input report (no sections).
	_, out, _ = tally("report", "--json", rank0)
	if strings.Contains(out, `"sections"`) {
		t.Error("single-input report: got sections, want none")
	}
}

func TestTimelineManyRanks(t *testing.T) {
	dir := runOfRanks(t)
	js := filepath.Join(t.TempDir(), "run.json")
	tallyOK(t, "timeline", dir, "-o", js)
	data := readFile(t, js)
	for _, want := range []string{`"name":"rank 0"`, `"name":"rank 1"`, `"tally_inputs":2`} {
		if !strings.Contains(data, want) {
			t.Errorf("timeline lacks %s", want)
		}
	}
}

// A run directory a reader claims is one input: the one-input report.
func TestSwimlaneRunDirectory(t *testing.T) {
	const seed = "../../format/swimlane/testdata/seed"
	code, out, errOut := tally("report", seed)
	if code != 0 || strings.Contains(out, "== input") || !strings.Contains(out, "program allreduce") || !strings.Contains(out, "note ignored_name_map (4)") {
		t.Fatalf("got exit %d: %s\n%s\nwant 0, one input, program allreduce and note ignored_name_map (4)", code, errOut, out)
	}
	if code, _, _ := tally("report", "--strict", seed); code != 1 {
		t.Errorf("--strict with a dispatch dir without records: got exit %d, want 1", code)
	}
	if code, out, _ := tally("inspect", seed); code != 0 || !strings.Contains(out, "rank0/d1: program allreduce (marker)") {
		t.Errorf("inspect: got exit %d\n%s\nwant 0 and \"rank0/d1: program allreduce (marker)\"", code, out)
	}
	pf := filepath.Join(t.TempDir(), "seed.perfetto-trace")
	if code, _, errOut := tally("timeline", seed, "-o", pf); code != 0 || !strings.Contains(errOut, "10 slices") {
		t.Errorf("timeline: got exit %d %s, want 0 and \"10 slices\"", code, errOut)
	}
}
