package hrxserial

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/gen/hrxgen"
)

// withEnd replaces a generated kept trace's end record.
func withEnd(trace []byte, end string) []byte {
	body := bytes.TrimSuffix(trace, []byte("\n"))
	body = append([]byte{}, body[:bytes.LastIndexByte(body, '\n')+1]...) // a copy: trace stays as it is
	if end == "" {
		return body
	}
	return append(body, end+"\n"...)
}

// The end record decides what the end of a kept trace means.
func TestKeptTraceEnd(t *testing.T) {
	clean, _ := generate(t, hrxgen.Options{Seed: 3, Decode: 2})
	fault, _ := generate(t, hrxgen.Options{Seed: 5, Decode: 2, End: hrxgen.EndFault})
	if !bytes.HasSuffix(clean, []byte("\n")) || !bytes.Contains(clean, []byte("# tally kept trace end exit=0 at=")) {
		t.Fatal("got no end record from the generator, want \"# tally kept trace end exit=0 at=\" and a final newline")
	}
	for _, c := range []struct {
		name     string
		trace    []byte
		gaps     []capture.Kind // exactly these non-note kinds
		what     string         // in the first item of the last kind
		complete bool
	}{
		{"exit 0", clean, nil, "", true},
		{"no end record", withEnd(clean, ""), []capture.Kind{capture.TruncatedInput}, "no end record after the last line", false},
		{"exit 3", withEnd(clean, "# tally kept trace end exit=3"), []capture.Kind{capture.InterruptedRecording}, "exit status 3; it ended between program runs", false},
		{"exit 130, as a shell after SIGINT", withEnd(clean, "# tally kept trace end exit=130"), []capture.Kind{capture.InterruptedRecording}, "exit status 130 (128+SIGINT", false},
		{"bad end record", withEnd(clean, "# tally kept trace end exit=x"), []capture.Kind{capture.InterruptedRecording}, "the end record does not parse", false},
		{"both exit and signal", withEnd(clean, "# tally kept trace end exit=0 signal=SIGINT"), []capture.Kind{capture.InterruptedRecording}, "does not parse", false},
		{"lines after the end record", append(append([]byte{}, clean...), "912499999999 hrx debug serial: begin phase=command-program main_commands=41 init_commands=2 transient_arena=0\n"...),
			[]capture.Kind{capture.IncompleteProgram, capture.InconsistentTrace}, "1 line after the end record", false},
		// A crash inside a sync: the ROCm runtime aborts on a fault, so it
		// stays a device fault.
		{"SIGABRT in a sync", fault, []capture.Kind{capture.DeviceFault, capture.UnfinishedDispatch, capture.IncompleteProgram, capture.InterruptedRecording}, "killed by SIGABRT; it ended inside run 3 of p41", false},
		// The same trace stopped by a Ctrl-C: no device fault.
		{"SIGINT in a sync", withEnd(fault, "# tally kept trace end signal=SIGINT forwarded=SIGINT at=912499999999"),
			[]capture.Kind{capture.UnfinishedDispatch, capture.IncompleteProgram, capture.InterruptedRecording}, "it stopped inside run 3 of p41", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := readTrace(t, c.trace, manifest)
			var got []capture.Kind
			for _, g := range r.c.Accounting.Gaps {
				if !g.Note && g.Count > 0 && !contains(got, g.Kind) {
					got = append(got, g.Kind)
				}
			}
			if !sameSet(got, c.gaps) || r.c.Accounting.Complete() != c.complete {
				t.Fatalf("got gaps %v (complete %v), want %v", got, r.c.Accounting.Complete(), c.gaps)
			}
			if r.c.Accounting.Find(capture.NoEndMarker) != nil {
				t.Fatal("a kept trace with end=1: got the no_end_marker note, want none")
			}
			if c.what != "" {
				g := r.c.Accounting.Find(c.gaps[len(c.gaps)-1])
				if !strings.Contains(g.Items[0].What, c.what) {
					t.Fatalf("got %q, want it to contain %q", g.Items[0].What, c.what)
				}
			}
		})
	}
}

// Stopped inside a sync: the item says how long the run waited, which is
// how a hang is told from a Ctrl-C.
func TestStoppedInsideSync(t *testing.T) {
	fault, _ := generate(t, hrxgen.Options{Seed: 5, Decode: 2, End: hrxgen.EndFault})
	i := bytes.LastIndex(fault, []byte(" hrx debug serial: sync-begin phase=command-post-dispatch"))
	start := bytes.LastIndexByte(fault[:i], '\n') + 1
	stamp := string(fault[start:i])
	at := stamp[:len(stamp)-4] + "9999" // about 10 µs later
	r := readTrace(t, withEnd(fault, "# tally kept trace end signal=SIGTERM at="+at), manifest)
	it := r.c.Accounting.Find(capture.InterruptedRecording).Items[0].What
	for _, want := range []string{"killed by SIGTERM", "waiting ", " at sync-begin phase=command-post-dispatch", "to finish: not a device fault"} {
		if !strings.Contains(it, want) {
			t.Fatalf("got %q, want %q in it", it, want)
		}
	}
	if u := r.c.Accounting.Find(capture.UnfinishedDispatch); u == nil || !strings.Contains(u.Items[0].What, "stopped by SIGTERM") {
		t.Fatalf("unfinished: got %+v, want it stopped by SIGTERM", u)
	}
}

// Old kept traces (no end=1) and raw stderr have no end marker: a note, and
// complete up to the last line; a command line that contains " end=1" is
// not taken for the header key.
func TestNoEndMarker(t *testing.T) {
	old, _ := generate(t, hrxgen.Options{Seed: 3, Decode: 2, OldKept: true})
	raw, _ := generate(t, hrxgen.Options{Seed: 3, Decode: 2, Raw: true})
	quoted := bytes.Replace(old, []byte("cmd=hrxgen"), []byte(`cmd="./run end=1"`), 1)
	for name, trace := range map[string][]byte{"old kept trace": old, "raw": raw, "end=1 inside cmd": quoted} {
		r := readTrace(t, trace, manifest)
		g := r.c.Accounting.Find(capture.NoEndMarker)
		if g == nil || !g.Note || !r.c.Accounting.Complete() || r.c.Accounting.CutUnit != "line" {
			t.Fatalf("%s: got %+v, want complete with the no_end_marker note", name, r.c.Accounting.Gaps)
		}
		if want := map[bool]string{true: "raw standard error", false: "without end records"}[name == "raw"]; !strings.Contains(g.Summary, want) {
			t.Fatalf("%s: note %q, want it to say %q", name, g.Summary, want)
		}
	}
}

func contains(ks []capture.Kind, k capture.Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

func sameSet(a, b []capture.Kind) bool {
	if len(a) != len(b) {
		return false
	}
	for _, k := range a {
		if !contains(b, k) {
			return false
		}
	}
	return true
}
