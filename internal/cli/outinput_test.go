package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestOutputNamingAnInputIsRefused: an output that names one of the inputs
// (as given, or through a link) or another output is a usage error before
// anything is read or written, and the input is left as it was. Found by
// the second sweep: every writer replaced the input with its report (`tally
// report -o trace.json trace.json`, exit 0), and `--html F -o F` or record's
// `-o F --report F` kept one output of the two.
func TestOutputNamingAnInputIsRefused(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	in := writeFile(t, dir, "run.kept", string(src))
	link := filepath.Join(dir, "link.kept")
	if err := os.Symlink("run.kept", link); err != nil {
		t.Fatal(err)
	}
	ref, ours := t.TempDir(), t.TempDir()
	writeF32(t, ref, 0, []float32{1, 2, 3})
	writeF32(t, ours, 0, []float32{1, 2, 3})
	dump := filepath.Join(ref, "layer_0.f32")
	dumpBytes, _ := os.ReadFile(dump)
	gapsIn := writeFile(t, dir, "g.gaps.csv", string(src)) // an input named as OUT.gaps.csv of -o g
	gapsOf := filepath.Join(dir, "g")
	for _, args := range [][]string{
		{"report", "-o", in, in},
		{"report", "--json", "-o", link, in},
		{"report", "--html", in, example, in},
		{"inspect", "-o", in, in},
		{"timeline", in, "-o", in},
		{"export", "--to", "csv", in, "-o", in},
		// The gaps file beside OUT is an output too.
		{"export", "--to", "csv", gapsIn, "-o", gapsOf},
		{"diff", "-o", in, example, "--", in},
		{"layers", "-o", dump, ref, ours},
		{"layers", "-o", in, ref, ours, "--log", in},
	} {
		code, _, errOut := tally(args...)
		if code != 2 || !strings.Contains(errOut, "is the input") {
			t.Errorf("%q: got exit %d, stderr %q; want 2 and \"is the input\"", args, code, errOut)
		}
	}
	if got, _ := os.ReadFile(in); !bytes.Equal(got, src) {
		t.Errorf("the input after the refused runs: got %d bytes, want the %d it held", len(got), len(src))
	}
	if got, _ := os.ReadFile(dump); !bytes.Equal(got, dumpBytes) {
		t.Errorf("the layer dump after the refused run: got %d bytes, want the %d it held", len(got), len(dumpBytes))
	}
	// Two outputs of one name, existing or not.
	twice := filepath.Join(dir, "r.out")
	for _, args := range [][]string{
		{"report", "--html", twice, "-o", twice, in},
		{"record", "-o", twice, "--report", twice, "--", "true"},
	} {
		for _, exists := range []bool{false, true} {
			os.Remove(twice)
			if exists {
				writeFile(t, dir, "r.out", "earlier")
			}
			if code, _, errOut := tally(args...); code != 2 || !strings.Contains(errOut, "named as two outputs") {
				t.Errorf("%q (existing %v): got exit %d, stderr %q; want 2 and \"named as two outputs\"", args, exists, code, errOut)
			}
		}
	}
	// Negative arm: an output beside the input, or replacing a file that is
	// no input, is written.
	other := writeFile(t, dir, "old.txt", "an earlier report")
	for _, out := range []string{filepath.Join(dir, "new.txt"), other} {
		if code, _, errOut := tally("report", "-o", out, in); code != 0 {
			t.Errorf("report -o %s: got exit %d %q, want 0", out, code, errOut)
		}
		if b, _ := os.ReadFile(out); !bytes.HasPrefix(b, []byte("times: ")) {
			t.Errorf("report -o %s: got %.40q, want the report", out, b)
		}
	}
	if code, _, errOut := tally("report", "-o", "/dev/null", in); code != 0 {
		t.Errorf("report -o /dev/null: got exit %d %q, want 0", code, errOut)
	}
}

// TestErrorPathsEscaped: a file name holding control characters, an escape
// sequence or bytes that are not UTF-8 is escaped in the error naming it on
// stderr, as everywhere else. Found by the second sweep: `tally report
// $'g\e[2J.json'` (a file no reader recognises, or one missing) printed
// the name raw, clearing the terminal.
func TestErrorPathsEscaped(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "g\x1b[2J\x07\xff.json", "garbage")
	missing := filepath.Join(dir, "m\x1b[31m.json")
	for _, args := range [][]string{
		{"report", bad}, {"report", "--json", missing}, {"inspect", bad}, {"timeline", missing, "-o", filepath.Join(dir, "t.json")},
		{"diff", bad, missing}, {"report", "-o", filepath.Join(dir, "no", "x\x1b.txt"), example},
		{"report", "-o", bad, bad},
	} {
		code, _, errOut := tally(args...)
		if code != 2 || strings.ContainsAny(errOut, "\x1b\x07") || !utf8.ValidString(errOut) || !strings.Contains(errOut, `\x1b`) {
			t.Errorf("%q: got exit %d, stderr %q; want 2 and the name escaped (\\x1b)", args, code, errOut)
		}
	}
}

// An output written into a directory the command reads is not read back on
// the next run (the third sweep): a Chrome timeline and a Kineto export are
// traces a reader recognises, and the second run counted their dispatches
// again (twice the slices; an export of 4 inputs from 2, growing each
// run). The second run reads what the first read, and says why it passed
// its own output over.
func TestOwnOutputNotReadBack(t *testing.T) {
	dir := t.TempDir()
	genOpsTrace(t, dir, "a.json", 1)
	genOpsTrace(t, dir, "b.json", 2)
	tl, exp, txt := filepath.Join(dir, "t.json"), filepath.Join(dir, "exp.json"), filepath.Join(dir, "r.txt")
	passed := func(out string) string {
		return "the output of this command (" + out + "), written by an earlier run: not read back as an input"
	}
	for run := 1; run <= 2; run++ {
		_, _, errOut := tally("timeline", "--as", "chrome", dir, "-o", tl)
		if !strings.Contains(errOut, "tally timeline: 15 slices,") {
			t.Errorf("timeline run %d: got %q, want 15 slices (5 and 10 kernels; its own output not read back)", run, errOut)
		}
	}
	os.Remove(tl) // the export reads a.json, b.json and its own output only
	for run := 1; run <= 2; run++ {
		_, _, errOut := tally("export", "--to", "kineto", dir, "-o", exp)
		if !strings.Contains(errOut, "written to "+exp+": 2 inputs,") {
			t.Errorf("export run %d: got %q, want 2 inputs", run, errOut)
		}
		if run == 2 && !strings.Contains(errOut, "input-00000.json: "+passed(exp)) {
			t.Errorf("export run 2: got %q, want its own output named as passed over", errOut)
		}
	}
	os.RemoveAll(exp)
	tallyOK(t, "report", dir, "-o", txt)
	tallyOK(t, "report", dir, "-o", txt)
	if got := readFile(t, txt); !strings.Contains(got, passed(txt)+" ("+txt+")") {
		t.Errorf("report run 2: got no skipped item %q in\n%s", passed(txt), got)
	}
}
