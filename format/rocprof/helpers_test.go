package rocprof

import (
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
	"github.com/tallyprof/tally/internal/testfile"
)

type result struct {
	c    *capture.Capture
	disp []capture.Dispatch
}

// readPath reads a file through the registry, as tally does, and checks the
// accounting and model invariants every capture must keep.
func readPath(t testing.TB, path, name string) result {
	t.Helper()
	var col capture.Collect
	c, err := format.ReadFile(path, name, nil, &col)
	if err != nil {
		t.Fatalf("%s: got error %v, want none", path, err)
	}
	checkModel(t, c, col.Dispatches)
	return result{c, col.Dispatches}
}

func readBytes(t testing.TB, data string) result {
	t.Helper()
	var col capture.Collect
	c, err := format.ReadInput(format.BytesInput("mem.csv", []byte(data)), Name, nil, &col)
	if err != nil {
		t.Fatalf("got error %v, want none", err)
	}
	checkModel(t, c, col.Dispatches)
	return result{c, col.Dispatches}
}

// checkModel runs the model's own invariants (format.ReadInput runs them
// too; readCSV and readJSON called directly do not).
func checkModel(t testing.TB, c *capture.Capture, ds []capture.Dispatch) {
	t.Helper()
	if err := c.CheckValid(); err != nil {
		t.Fatal(err)
	}
	for i := range ds {
		if err := c.CheckDispatch(&ds[i]); err != nil {
			t.Fatal(err)
		}
	}
}

// totals sums device time and counts per kernel name.
func totals(r result) (map[string]int64, map[string]int64) {
	ns, n := map[string]int64{}, map[string]int64{}
	for _, d := range r.disp {
		name := r.c.Kernels[d.Kernel].Name
		dur, _ := d.Device.Duration()
		ns[name] += dur
		n[name]++
	}
	return ns, n
}

func gapText(c *capture.Capture) string {
	var b strings.Builder
	for _, g := range c.Accounting.Gaps {
		fmt.Fprintf(&b, "%s (%d): %s\n", g.Kind, g.Count, g.Summary)
		for _, it := range g.Items {
			fmt.Fprintf(&b, "  - %s @ %s\n", it.What, it.Where)
		}
	}
	return b.String()
}

func gunzip(t testing.TB, path string) []byte { t.Helper(); return testfile.Gunzip(t, path) }

func readTestdata(name string) ([]byte, error) { return os.ReadFile("testdata/" + name) }

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// csvRecords reads a whole CSV file with encoding/csv, every row as long
// as the first.
func csvRecords(t testing.TB, path string) [][]string { return csvFile(t, path, 0) }

// looseRecords reads a CSV file with encoding/csv, allowing rows of any
// length (the caller skips the malformed ones).
func looseRecords(t testing.TB, path string) [][]string { return csvFile(t, path, -1) }

// csvFile reads the CSV file at path, fieldsPerRecord as csv.Reader takes
// it, failing the test on any error.
func csvFile(t testing.TB, path string, fieldsPerRecord int) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = fieldsPerRecord
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// writeFiles writes files (name: contents) into a new directory and
// returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		fixture.Write(t, dir, name, []byte(data))
	}
	return dir
}
