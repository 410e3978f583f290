package hrxserial

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/gen/hrxgen"
)

// keptTrace builds a kept trace line by line, stamps 100 ns apart.
type keptTrace struct {
	b strings.Builder
	t uint64
}

func newKept() *keptTrace {
	k := &keptTrace{t: 1000}
	k.b.WriteString("# tally kept trace v1 clock=monotonic unit=ns\n")
	return k
}

func (k *keptTrace) line(s string) *keptTrace {
	fmt.Fprintf(&k.b, "%d hrx debug serial: %s\n", k.t, s)
	k.t += 100
	return k
}

const prog2 = "main_commands=2 init_commands=0 transient_arena=0"

func (k *keptTrace) begin() *keptTrace {
	return k.line("begin phase=command-program " + prog2).line("begin phase=command-list list=main list_commands=2 main_commands=2")
}

func (k *keptTrace) end() *keptTrace {
	return k.line("end phase=command-list list=main list_commands=2 main_commands=2").line("end phase=command-program " + prog2)
}

// command writes the first n of a kernel command's six lines.
func (k *keptTrace) command(index, n int) *keptTrace {
	det := fmt.Sprintf("list=main index=%d list_commands=2 ordinal=%d kind=Kernel kernel_id=%d bindings=3", index, index, hrxgen.Kernels[index].ID())
	for _, ev := range []string{"sync-begin phase=command-pre-dispatch", "sync-end phase=command-pre-dispatch",
		"begin phase=command-dispatch", "end phase=command-dispatch", "sync-begin phase=command-post-dispatch",
		"sync-end phase=command-post-dispatch"}[:n] {
		k.line(ev + " " + det)
	}
	return k
}

func (k *keptTrace) bytes() []byte { return []byte(k.b.String()) }

// A command's identity is (run, list, index): the same command written
// twice in a run is counted once and stated as duplicate_event, and the
// list's positions stay in step (no inconsistent_trace).
func TestRepeatedCommand(t *testing.T) {
	r := readTrace(t, newKept().begin().command(0, 6).command(1, 6).command(1, 6).end().bytes(), manifest)
	if got := r.r.Dispatches(); got != 2 {
		t.Errorf("dispatches = %d, want 2 (the repeat counted once)", got)
	}
	g := r.c.Accounting.Find(capture.DuplicateEvent)
	if g == nil || g.Count != 1 || g.Program != "p2" || !strings.Contains(g.Items[0].What, "main[1]") || g.Items[0].Where != "line 16" {
		t.Fatalf("duplicate_event = %+v, want one item for main[1] at line 16", g)
	}
	if ns, ok := g.Figure("repeated_ns"); !ok || ns != 200 {
		t.Errorf("repeated_ns = %d, want 200 (end command-dispatch → sync-end post)", ns)
	}
	if r.c.Accounting.Find(capture.InconsistentTrace) != nil || r.c.Accounting.Complete() {
		t.Errorf("gaps %v, want duplicate_event only", r.kinds())
	}

	// A repeat cut after its launch is a repeat, not an unfinished dispatch.
	r = readTrace(t, newKept().begin().command(0, 6).command(1, 6).command(1, 4).bytes(), manifest)
	if got := r.c.Accounting.CountOf(capture.DuplicateEvent); got != 1 || r.c.Accounting.Find(capture.UnfinishedDispatch) != nil || r.r.Dispatches() != 2 {
		t.Errorf("cut repeat: duplicate_event %d, gaps %v, dispatches %d; want 1 duplicate, no unfinished, 2 dispatches", got, r.kinds(), r.r.Dispatches())
	}
}

// A non-kernel command written twice is a repeat too, counted once in
// its program's notes.
func TestRepeatedFillCommand(t *testing.T) {
	k := newKept().begin().command(0, 6)
	for i := 0; i < 2; i++ {
		det := "list=main index=1 list_commands=2 ordinal=1 kind=fill"
		for _, ev := range []string{"sync-begin phase=command-pre-dispatch", "sync-end phase=command-pre-dispatch",
			"begin phase=command-dispatch", "end phase=command-dispatch", "sync-begin phase=command-post-dispatch",
			"sync-end phase=command-post-dispatch"} {
			k.line(ev + " " + det)
		}
	}
	r := readTrace(t, k.end().bytes(), manifest)
	g := r.c.Accounting.Find(capture.DuplicateEvent)
	if g == nil || g.Count != 1 || g.Items[0].Kernel != "(fill command)" {
		t.Fatalf("duplicate_event %+v, want one item for the fill command", g)
	}
	if notes := strings.Join(r.program(t, "p2").Program.Notes, "\n"); !strings.Contains(notes, "1 non-kernel commands (fill 1)") {
		t.Errorf("notes %q, want the fill command counted once", notes)
	}
}

// The negative arms: what looks like a repeat and is not one.
func TestNotARepeat(t *testing.T) {
	// The same command in the next run of the program: another record.
	r := readTrace(t, newKept().begin().command(0, 6).command(1, 6).end().begin().command(0, 6).command(1, 6).end().bytes(), manifest)
	if got := r.r.Dispatches(); got != 4 || !r.c.Accounting.Complete() {
		t.Errorf("two runs: dispatches %d, gaps %v; want 4 and complete", got, r.kinds())
	}
	// A command that stopped before its launch and is then written whole
	// (its first copy never completed): one dispatch, not a duplicate.
	r = readTrace(t, newKept().begin().command(0, 6).command(1, 2).command(1, 6).bytes(), manifest)
	if got := r.r.Dispatches(); got != 2 || r.c.Accounting.Find(capture.DuplicateEvent) != nil {
		t.Errorf("restarted command: dispatches %d, gaps %v; want 2 and no duplicate_event", got, r.kinds())
	}
}

// A stamp past the int64 maximum's reach, or one that makes a kernel last
// longer than the ceiling, is an invalid_event: the clock's unit (ns) is
// known while the dispatches pass the model check, not only at the end.
func TestImpossibleStamp(t *testing.T) {
	k := newKept().begin().command(0, 6).command(1, 5)
	det := fmt.Sprintf("list=main index=1 list_commands=2 ordinal=1 kind=Kernel kernel_id=%d bindings=3", hrxgen.Kernels[1].ID())
	fmt.Fprintf(&k.b, "9223372036854775807 hrx debug serial: sync-end phase=command-post-dispatch %s\n", det)
	k.t = 9223372036854775807
	r := readTrace(t, k.end().bytes(), manifest)
	g := r.c.Accounting.Find(capture.InvalidEvent)
	if g == nil || g.Count != 1 || r.r.Dispatches() != 1 {
		t.Fatalf("invalid_event %+v, dispatches %d; want one invalid_event and 1 dispatch", g, r.r.Dispatches())
	}
}

// A stamp of 2^63 or more fits the 20 digits of a uint64 and no int64 ns:
// its line is malformed, like one past 64 bits. It used to wrap to a
// negative time, and a command cut after it became an unfinished dispatch
// launched at -2^63 ns, which the Kineto export then wrote as "ts":
// "-9223371124454638.-829", no JSON (found by the output sweep: the
// stamps of a kept trace pushed past 2^63).
func TestStampPastInt64(t *testing.T) {
	for _, st := range []uint64{1 << 63, 18446744073709551615} {
		k := newKept().begin().command(0, 6)
		k.t = st
		k.command(1, 3) // the trace ends inside the command: unfinished
		r := readTrace(t, k.bytes(), manifest)
		for _, g := range r.c.Accounting.Gaps {
			for _, it := range g.Items {
				if it.Time != nil && *it.Time < 0 {
					t.Errorf("stamp %d: got %s item %q at time %d, want no negative time", st, g.Kind, it.What, *it.Time)
				}
			}
		}
		if r.c.Accounting.Find(capture.SkippedInput) == nil {
			t.Errorf("stamp %d: got gaps %v, want the lines of the stamp past int64 as skipped_input", st, r.kinds())
		}
		if got := r.r.Dispatches(); got != 1 {
			t.Errorf("stamp %d: got %d dispatches, want 1", st, got)
		}
	}
	// The negative arm: stamps up to 2^63-1 are times, read as such
	// (TestImpossibleStamp); the command cut there stays unfinished, at its
	// time.
	k := newKept().begin().command(0, 6)
	k.t = 1<<63 - 1000
	r := readTrace(t, k.command(1, 3).bytes(), manifest)
	g := r.c.Accounting.Find(capture.UnfinishedDispatch)
	if g == nil || len(g.Items) != 1 || g.Items[0].Time == nil || *g.Items[0].Time < 1<<63-1000 {
		t.Fatalf("stamps from 2^63-1000: got unfinished_dispatch %+v, want one item at 2^63-1000 or later", g)
	}
	if r.c.Accounting.Find(capture.SkippedInput) != nil {
		t.Errorf("stamps from 2^63-1000: got gaps %v, want no skipped_input", r.kinds())
	}
}

// Every skipped line is classified: foreign lines, comments and blanks
// held no device work; a malformed or cut trace line may have, and is
// lost with the gap that counts it.
func TestSkipClasses(t *testing.T) {
	trace := string(newKept().begin().command(0, 6).bytes()) +
		"some other stderr line\n# a comment\n\n" +
		"1900 hrx debug serial: sync-begin phase=command-pre-dispatch list=main index=x\n" +
		"2000 hrx debug serial: sync-begin phase=command-pre"
	r := readTrace(t, []byte(trace), manifest)
	in := r.c.Accounting.InputFor("lines")
	want := map[string]string{
		"not a trace line":     "not_device_work",
		"comment":              "not_device_work",
		"blank":                "not_device_work",
		"malformed trace line": "device_work_lost skipped_input",
		"partial last line":    "device_work_lost truncated_input",
	}
	for _, s := range in.Skipped {
		got := strings.TrimSpace(string(s.Class) + " " + string(s.Gap))
		if got != want[s.Reason] {
			t.Errorf("skip %q: class %q, want %q", s.Reason, got, want[s.Reason])
		}
		delete(want, s.Reason)
	}
	if len(want) > 0 {
		t.Errorf("skips missing: %v", want)
	}
}
