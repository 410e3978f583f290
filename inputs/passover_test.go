package inputs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A command's own output in a directory it reads (the third sweep: an
// earlier `tally export --to kineto DIR -o DIR/x.json` or `tally timeline
// --as chrome DIR -o DIR/t.json` was read back, its dispatches counted
// twice) is passed over and said to be: a file output, and every file of a
// directory output, recognised or not. An output not there yet, "-" and
// another file are passed by.
func TestPassOverOwnOutput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("rank0.json", rankTrace(0, []string{"a"}, []int{5}))
	timeline := write("t.json", rankTrace(1, []string{"b"}, []int{6}))
	write("exp.json/input-00000.json", rankTrace(0, []string{"a"}, []int{7}))
	write("exp.json/_tally_export.json", `{"not": "a trace"}`)
	e := Expand([]string{dir}, "")
	if len(e.Paths) != 3 {
		t.Fatalf("before: got inputs %q, want rank0, t.json and the export's input", e.Paths)
	}
	e.PassOver(filepath.Join(dir, "exp.json"), timeline, "-", "", filepath.Join(dir, "none.json"))
	if len(e.Paths) != 1 || filepath.Base(e.Paths[0]) != "rank0.json" {
		t.Errorf("got inputs %q, want rank0.json alone", e.Paths)
	}
	own := 0
	for _, s := range e.Skipped {
		if strings.HasPrefix(s.Reason, "the output of this command (") && strings.HasSuffix(s.Reason, "), written by an earlier run: not read back as an input") {
			own++
		}
	}
	if own != 3 {
		t.Errorf("got skipped %+v, want 3 named as this command's output (t.json, the export's input and its _tally_export.json)", e.Skipped)
	}
}

// A directory given as the output that no tally export wrote (-o . beside
// the inputs; the fourth sweep) is not an output: its files stay inputs, so
// the writer refuses the directory with its own message instead of the
// export failing with "no input found".
func TestPassOverForeignDirectory(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "rank0.json")
	if err := os.WriteFile(p, []byte(rankTrace(0, []string{"a"}, []int{5})), 0o644); err != nil {
		t.Fatal(err)
	}
	e := Expand([]string{p}, "")
	e.PassOver(dir)
	if len(e.Paths) != 1 || len(e.Skipped) != 0 {
		t.Errorf("got inputs %q, skipped %+v; want rank0.json read, nothing skipped", e.Paths, e.Skipped)
	}
}
