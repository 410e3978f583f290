package inputs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// A file named again among the inputs — the same path, a link to it, a
// file of a directory that was walked, the directory itself twice — is
// read once and listed as skipped with the input it repeats: read twice,
// its dispatches would count twice in the merged tables of a complete run.
// So is a copy (another file with the same bytes).
func TestRepeatReadOnce(t *testing.T) {
	dir := runDir(t)
	rank0 := filepath.Join(dir, "rank0", "host.pt.trace.json.gz")
	rank1 := filepath.Join(dir, "rank1", "host.pt.trace.json.gz")
	link := filepath.Join(t.TempDir(), "link.json.gz")
	if err := os.Symlink(rank0, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	data, err := os.ReadFile(rank0)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "copy.json.gz")
	if err := os.WriteFile(cp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args    []string
		paths   []string
		repeats map[string]string // skipped path → the input it repeats
	}{
		{[]string{rank0, rank0}, []string{rank0}, map[string]string{rank0: rank0}},
		{[]string{rank0, link}, []string{rank0}, map[string]string{link: rank0}},
		{[]string{dir, rank1}, []string{rank0, rank1}, map[string]string{rank1: rank1}},
		{[]string{rank1, dir}, []string{rank1, rank0}, map[string]string{rank1: rank1}},
		{[]string{dir, dir}, []string{rank0, rank1}, map[string]string{rank0: rank0, rank1: rank1}},
		{[]string{rank0, cp}, []string{rank0}, map[string]string{cp: rank0}},
		{[]string{cp, dir}, []string{cp, rank1}, map[string]string{rank0: cp}},
		{[]string{"-", "-"}, []string{"-", "-"}, nil}, // standard input is read once anyway: the second read fails, visibly
	} {
		e := Expand(tc.args, "")
		if !slices.Equal(e.Paths, tc.paths) {
			t.Errorf("Expand(%v): paths %v, want %v", tc.args, e.Paths, tc.paths)
		}
		got := map[string]string{}
		for _, s := range e.Skipped {
			if first, ok := strings.CutPrefix(s.Reason, "the same file as "); ok {
				got[s.Path] = strings.TrimSuffix(first, ", named again: read once")
			}
			if first, ok := strings.CutPrefix(s.Reason, "the same bytes as "); ok {
				got[s.Path] = strings.TrimSuffix(first, ": a copy of one recording, read once")
			}
		}
		if len(got) != len(tc.repeats) {
			t.Errorf("Expand(%v): repeats %v, want %v", tc.args, got, tc.repeats)
		}
		for p, first := range tc.repeats {
			if got[p] != first {
				t.Errorf("Expand(%v): %s repeats %q, want %q", tc.args, p, got[p], first)
			}
		}
	}
	// The run read once is complete, with the repeat as a note, and its
	// merged tables equal those of the file read alone.
	once := Expand([]string{rank0}, "").Read(Options{})
	twice := Expand([]string{rank0, link}, "").Read(Options{})
	if !twice.Complete() || len(twice.Inputs) != 1 {
		t.Fatalf("rank0 and a link to it: complete %v, %d inputs; want complete, 1 input", twice.Complete(), len(twice.Inputs))
	}
	if a, b := once.Tables.Programs, twice.Tables.Programs; len(a) != len(b) || a[0].Dispatches != b[0].Dispatches {
		t.Errorf("merged programs %+v, want those of the file alone %+v", b, a)
	}
	// In the whole's input counts the repeat is counted once, not passed
	// over as input without device work.
	var classes []capture.SkipClass
	for _, in := range twice.Whole.Accounting.Input {
		for _, s := range in.Skipped {
			classes = append(classes, s.Class)
		}
	}
	if len(classes) != 1 || classes[0] != capture.CountedOnce {
		t.Errorf("skipped classes %v, want one %s", classes, capture.CountedOnce)
	}
}

// Files of the same size are the same bytes only when every byte is: a
// difference in the first block, the last block, a middle block or the
// last byte of a size that is not a whole number of blocks tells them apart.
func TestSameBytes(t *testing.T) {
	dir := t.TempDir()
	base := make([]byte, 3*64<<10+123)
	for i := range base {
		base[i] = byte(i * 7)
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a", base)
	if !sameBytes(a, write("copy", base), int64(len(base))) {
		t.Errorf("a copy: got different bytes, want the same")
	}
	for _, off := range []int{0, 64 << 10, 2*64<<10 + 5, len(base) - 64<<10 - 1, len(base) - 1} {
		other := append([]byte(nil), base...)
		other[off] ^= 1
		if sameBytes(a, write("other", other), int64(len(base))) {
			t.Errorf("a difference at byte %d: got the same bytes, want different", off)
		}
	}
	small := write("small", base[:10])
	if !sameBytes(small, write("small2", base[:10]), 10) {
		t.Errorf("a small copy: got different bytes, want the same")
	}
}

// Files of one size that differ are told apart by their last block's hash,
// read once per file: none is compared byte for byte with another, so a
// directory of many such files costs a read each, not one per pair.
func TestSameSizeFilesComparedByTail(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := range 40 {
		p := filepath.Join(dir, fmt.Sprintf("r%02d.trace", i))
		data := append(bytes.Repeat([]byte("x"), 100<<10), fmt.Sprintf("%04d", i)...)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	compared := 0
	defer func(f func(a, b string, size int64) bool) { compareBytes = f }(compareBytes)
	compareBytes = func(a, b string, size int64) bool { compared++; return sameBytes(a, b, size) }
	e := Expand(paths, "")
	if len(e.Paths) != 40 || compared != 0 {
		t.Errorf("40 files of one size: %d inputs, %d compared byte for byte; want 40 and 0", len(e.Paths), compared)
	}
	data, _ := os.ReadFile(paths[3])
	cp := filepath.Join(t.TempDir(), "copy.trace")
	os.WriteFile(cp, data, 0o644)
	compared = 0
	if e := Expand(append(paths, cp), ""); len(e.Paths) != 40 || compared != 1 {
		t.Errorf("and a copy of one: %d inputs, %d compared; want 40 and 1", len(e.Paths), compared)
	}
}

// One recording in two files that are not the same bytes (here: one more
// line ending) is read twice, and the run says so: a repeated_input gap of
// the whole, so that it does not read as complete with every dispatch
// counted twice.
func TestRepeatedRecordingIsAGap(t *testing.T) {
	dir := t.TempDir()
	names := []string{"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9"}
	durs := []int{5, 6, 7, 8, 9, 10, 11, 12, 13, 14}
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	os.WriteFile(a, []byte(rankTrace(0, names, durs)), 0o644)
	os.WriteFile(b, []byte(rankTrace(0, names, durs)+"\n"), 0o644)
	run := Expand([]string{a, b}, "").Read(Options{})
	g := run.Whole.Accounting.Find(capture.RepeatedInput)
	if len(run.Inputs) != 2 || g == nil || g.Count != 1 || run.Complete() {
		t.Fatalf("one recording in two files: %d inputs, repeated_input %+v, complete %v; want 2 inputs, one repeated_input, incomplete", len(run.Inputs), g, run.Complete())
	}
	// A single input keeps no signatures: nothing to compare it with.
	if one := Expand([]string{a}, "").Read(Options{}); one.Inputs[0].Earliest != nil {
		t.Errorf("one input: %d signatures kept, want none", len(one.Inputs[0].Earliest))
	}
}
