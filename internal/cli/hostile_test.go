package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// forged is a kernel name that, printed raw, would write a verdict line of
// its own and conceal (SGR 8) everything after it, the real verdict
// included; C1 CSI, DEL, a carriage return and a bidi override come along.
const forged = "gemm\nCOMPLETE: every input unit is accounted for and no gap was found\n\x1b[8m\u009b2J\x7f\r\u202e"

// hostileTrace writes a Kineto trace whose kernels carry the forged name:
// one launched, one without a launch (a gap whose item names it), so the
// real verdict is INCOMPLETE. A gpu_user_annotation gives their program
// the same name.
func hostileTrace(t *testing.T, dir, file string) string {
	t.Helper()
	name, err := json.Marshal(forged)
	if err != nil {
		t.Fatal(err)
	}
	events := []string{
		fmt.Sprintf(`{"ph": "X", "cat": "gpu_user_annotation", "name": %s, "pid": 0, "tid": 7, "ts": 15, "dur": 30, "args": {"External id": 5}}`, name),
		`{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": 10, "dur": 2, "args": {"cbid": 211, "correlation": 1}}`,
		fmt.Sprintf(`{"ph": "X", "cat": "kernel", "name": %s, "pid": 0, "tid": 7, "ts": 20, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": 1}}`, name),
		fmt.Sprintf(`{"ph": "X", "cat": "kernel", "name": %s, "pid": 0, "tid": 7, "ts": 30, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": 99}}`, name),
		`{"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 0}`,
	}
	data := `{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "GPU\u001b]0;owned\u0007"}], "traceEvents": [` + strings.Join(events, ",\n") + "]}\n"
	return writeFile(t, dir, file, data)
}

// checkNoControls fails when text holds a control character other than
// the newline that ends each line.
func checkNoControls(t *testing.T, what, text string) {
	t.Helper()
	if !utf8.ValidString(text) {
		t.Errorf("%s: got invalid UTF-8, want valid", what)
	}
	for i, r := range text {
		if r != '\n' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x202e) {
			t.Errorf("%s holds control %U at byte %d (…%q…), want none but newlines", what, r, i, text[max(0, i-30):min(len(text), i+10)])
			return
		}
	}
}

// lineStarts counts the lines of text that begin with prefix.
func lineStarts(text, prefix string) int {
	n := 0
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

func TestHostileNamesCannotForgeTheVerdict(t *testing.T) {
	dir := t.TempDir()
	a := hostileTrace(t, dir, "a.json")
	b := hostileTrace(t, dir, "b.json")

	out := tallyOK(t, "report", a)
	checkNoControls(t, "report", out)
	if n := lineStarts(out, "COMPLETE"); n != 0 {
		t.Errorf("report has %d lines starting COMPLETE, want 0 (the capture is incomplete):\n%s", n, out)
	}
	if n := lineStarts(out, "INCOMPLETE"); n != 1 {
		t.Errorf("report has %d INCOMPLETE verdict lines, want 1:\n%s", n, out)
	}
	if want := `gemm\nCOMPLETE: every input unit is accounted for and no gap was found\n\x1b[8m\u009b2J\x7f\r\u202e`; !strings.Contains(out, want) {
		t.Errorf("report does not show the name escaped as %q:\n%s", want, out)
	}

	out = tallyOK(t, "inspect", a)
	checkNoControls(t, "inspect", out)
	if n, m := lineStarts(out, "COMPLETE"), lineStarts(out, "INCOMPLETE"); n != 0 || m != 1 {
		t.Errorf("inspect has %d COMPLETE and %d INCOMPLETE lines, want 0 and 1:\n%s", n, m, out)
	}

	out = tallyOK(t, "diff", a, b)
	checkNoControls(t, "diff", out)
	if n := lineStarts(out, "COMPLETE"); n != 0 {
		t.Errorf("diff has %d lines starting COMPLETE, want 0:\n%s", n, out)
	}
	if !strings.Contains(out, "A: INCOMPLETE: its gaps") || !strings.Contains(out, "B: INCOMPLETE: its gaps") {
		t.Errorf("diff: got\n%s\nwant \"A: INCOMPLETE: its gaps\" and \"B: INCOMPLETE: its gaps\"", out)
	}
	out = tallyOK(t, "diff", "--csv", a, b)
	checkNoControls(t, "diff --csv", out)

	// Many inputs: each section's header names its file, and a file name
	// is as hostile as a kernel's.
	odd := hostileTrace(t, dir, "c\nCOMPLETE\x1b[8m.json")
	out = tallyOK(t, "report", a, odd)
	checkNoControls(t, "report of two inputs", out)
	if n := lineStarts(out, "COMPLETE"); n != 0 {
		t.Errorf("report of two inputs has %d lines starting COMPLETE, want 0:\n%s", n, out)
	}

	csvOut := filepath.Join(dir, "d.csv")
	tallyOK(t, "export", "--to", "csv", a, "-o", csvOut)
	for _, p := range []string{csvOut, csvOut + ".gaps.csv"} {
		data := readFile(t, p)
		checkNoControls(t, filepath.Base(p), data)
		if !strings.Contains(data, `gemm\nCOMPLETE`) {
			t.Errorf("%s: got\n%s\nwant the escaped name gemm\\nCOMPLETE", p, data)
		}
	}
}

// JSON outputs keep the name exactly (encoding/json escapes its controls),
// so a script sees what the trace holds, and a terminal sees no control.
func TestHostileNamesInJSON(t *testing.T) {
	dir := t.TempDir()
	a := hostileTrace(t, dir, "a.json")
	out := tallyOK(t, "report", "--json", a)
	checkJSONControls(t, "report --json", out)
	var doc struct {
		Programs []struct {
			Kernels []struct {
				Name string `json:"name"`
			} `json:"kernels"`
		} `json:"programs"`
	}
	decodeJSON(t, out, &doc)
	if len(doc.Programs) == 0 || len(doc.Programs[0].Kernels) == 0 || doc.Programs[0].Kernels[0].Name != forged {
		t.Errorf("report --json kernels %+v, want the name %q as the trace holds it", doc.Programs, forged)
	}
	out = tallyOK(t, "inspect", "--json", a)
	checkJSONControls(t, "inspect --json", out)
	jsonl := filepath.Join(dir, "d.jsonl")
	tallyOK(t, "export", "--to", "jsonl", a, "-o", jsonl)
	for _, p := range []string{jsonl, jsonl + ".gaps.jsonl"} {
		data := readFile(t, p)
		checkJSONControls(t, filepath.Base(p), data)
	}
	out = tallyOK(t, "diff", "--json", a, a)
	checkJSONControls(t, "diff --json", out)
}

// checkJSONControls fails when JSON text holds a raw C0 control other than
// the newlines between values, or ESC in any form but \u001b.
func checkJSONControls(t *testing.T, what, text string) {
	t.Helper()
	for i := 0; i < len(text); i++ {
		if c := text[i]; c < 0x20 && c != '\n' {
			t.Errorf("%s holds raw byte 0x%02x at %d, want it escaped", what, c, i)
			return
		}
	}
	if !strings.Contains(text, `\u001b[8m`) {
		t.Errorf("%s: got no \\u001b[8m, want the name's ESC written as \\u001b", what)
	}
}
