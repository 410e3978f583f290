package record

import (
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/hrxserial"
	"github.com/tallyprof/tally/format/npuprof"
	"github.com/tallyprof/tally/internal/testfile"
)

// TestRecordKeepsClaimedLines: stdout lines a registered reader claims (NPU
// engine [prof]/[L] lines) are kept like hrx trace lines, other stdout
// passes through only, and the read-back format follows what was claimed.
func TestRecordKeepsClaimedLines(t *testing.T) {
	script := `echo '[prof] pre D 128 100 0.30 0.21 3.806 0.011 4.328'; echo 'token: hello'; echo '  [L] 0 0.5 1.0' >&2; echo 'loading' >&2`
	res, kept, out, _ := recordScript(t, script)
	b := testfile.Read(t, kept)
	k := string(b)[strings.IndexByte(string(b), '\n')+1:] // after the header, which quotes the command
	for _, want := range []string{" [prof] pre D 128 100", " [L] 0 0.5 1.0", " loading"} {
		if !strings.Contains(k, want) {
			t.Fatalf("kept trace lacks %q:\n%s", want, k)
		}
	}
	if strings.Contains(k, "token: hello") || out.String() != "token: hello\n" {
		t.Fatalf("got unclaimed stdout kept or claimed stdout passed, want only \"token: hello\\n\" passed and not kept: kept\n%s\nout %q", k, out.String())
	}
	if res.TraceLines != 2 || res.Claimed[npuprof.Name] != 2 || res.Format(hrxserial.Name) != npuprof.Name {
		t.Fatalf("got claims %+v, want 2 trace lines, 2 claimed by %s and that format", res, npuprof.Name)
	}
	if (&Result{}).Format(hrxserial.Name) != hrxserial.Name {
		t.Fatalf("default format: got %s, want %s", (&Result{}).Format(hrxserial.Name), hrxserial.Name)
	}
}

// A claimed line the command did not finish (killed mid-write) is kept as
// it arrived and named, so the report cannot read complete; an unclaimed
// last line without a newline (a prompt) is not a cut trace line.
func TestRecordCutTraceLine(t *testing.T) {
	script := `echo '[prof] pre D 128 100 0.30 0.21 3.806 0.011 4.328' >&2; printf '[prof] dec D 1 100 0.30 0.21 3.806 0.011 4.3' >&2; printf 'prompt> '`
	res, kept, _, _ := recordScript(t, script)
	if len(res.CutLines) != 1 || res.CutLines[0] != 3 {
		t.Fatalf("cut lines %v, want [3] (header, whole row, cut row)", res.CutLines)
	}
	var a capture.Accounting
	res.CutGap(&a, kept)
	if g := a.Find(capture.TruncatedInput); g == nil || g.Count != 1 || g.Items[0].Where != kept+":3" || a.Complete() {
		t.Fatalf("got gaps %+v, want one truncated_input at %s:3 and the capture incomplete", a.Gaps, kept)
	}
	// The negative arm: nothing cut, no gap.
	var none capture.Accounting
	(&Result{}).CutGap(&none, kept)
	if len(none.Gaps) != 0 {
		t.Fatalf("got gaps %+v without a cut line, want none", none.Gaps)
	}
}
