package kept

import (
	"slices"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
)

func TestEndRecordRoundTrip(t *testing.T) {
	for _, e := range []Ending{
		{Exit: 0, At: 912400208100, HasAt: true},
		{Exit: 3},
		{Exit: -1, Signal: "SIGINT", Forwarded: []string{"SIGINT"}, At: 5, HasAt: true},
		{Exit: 130, Forwarded: []string{"SIGINT", "SIGTERM"}},
		{Exit: -1, Signal: "34"},
		{Exit: 0, Forwarded: []string{"SIGINT"}, At: 9, HasAt: true, Unread: "SIGINT"},
	} {
		line := e.Record()
		got, err := ParseEnd([]byte(line))
		if err != nil || got.Record() != line || got.Exit != e.Exit || got.Signal != e.Signal || !slices.Equal(got.Forwarded, e.Forwarded) || got.Unread != e.Unread {
			t.Fatalf("%q: got %+v %v, want %+v", line, got, err, e)
		}
	}
	if got := (Ending{Exit: -1, Signal: "SIGINT", Forwarded: []string{"SIGINT"}, At: 7, HasAt: true}).Record(); got != "# tally kept trace end signal=SIGINT forwarded=SIGINT at=7" {
		t.Fatalf("got %q, want %q", got, "# tally kept trace end signal=SIGINT forwarded=SIGINT at=7")
	}
	// Unknown keys are ignored: later writers may add some.
	if e, err := ParseEnd([]byte(EndPrefix + " exit=0 host=x")); err != nil || !e.Clean() {
		t.Fatalf("unknown key: got %+v %v, want a clean ending and no error", e, err)
	}
	for _, bad := range []string{EndPrefix, EndPrefix + " exit=256", EndPrefix + " exit=-1", EndPrefix + " exit=0 exit=0", EndPrefix + " signal=INT",
		EndPrefix + " exit=0 signal=SIGINT", EndPrefix + " exit", EndPrefix + " exit=0 forwarded=x", EndPrefix + " exit=0 at=-3", EndPrefix + " exit=0 unread=INT", "# tally kept trace ending exit=0"} {
		if _, err := ParseEnd([]byte(bad)); err == nil {
			t.Errorf("%q: got parsed, want an error", bad)
		}
	}
	if IsEnd([]byte("# tally kept trace endless")) || !IsEnd([]byte(EndPrefix)) {
		t.Fatalf("IsEnd: got %v for \"endless\", %v for the end prefix; want false, true", IsEnd([]byte("# tally kept trace endless")), IsEnd([]byte(EndPrefix)))
	}
}

// Stopped tells a command stopped from outside from one that crashed or
// failed: only the first is "not a device fault".
func TestStopped(t *testing.T) {
	for _, c := range []struct {
		e    Ending
		want string
	}{
		{Ending{Exit: 0}, ""},
		{Ending{Exit: 0, Forwarded: []string{"SIGINT"}}, ""}, // it finished cleanly after all
		{Ending{Exit: -1, Signal: "SIGINT"}, "SIGINT"},
		{Ending{Exit: -1, Signal: "SIGKILL"}, "SIGKILL"},
		{Ending{Exit: -1, Signal: "SIGABRT"}, ""},
		{Ending{Exit: -1, Signal: "SIGSEGV", Forwarded: []string{"SIGINT"}}, ""},
		{Ending{Exit: 1, Forwarded: []string{"SIGTERM"}}, "SIGTERM"},
		{Ending{Exit: 143}, "SIGTERM"},
		{Ending{Exit: 134}, ""},
		{Ending{Exit: 3}, ""},
	} {
		if got := c.e.Stopped(); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.e, got, c.want)
		}
	}
}

// Account: what each kind of end becomes.
func TestAccount(t *testing.T) {
	where := func(n int64) string { return "line " + string(rune('0'+n)) }
	var a capture.Accounting
	(&End{}).Account(&a, where, 3)
	if g := a.Find(capture.NoEndMarker); g == nil || !g.Note || a.CutUnit != "line" || g.Items[0].Where != "line 3" {
		t.Fatalf("raw: got %+v, want a no_end_marker note at line 3, cut unit line", a)
	}
	e := &End{}
	e.HeaderLine([]byte(Header + " end=1 pid=1 cmd=\"x\""))
	a = capture.Accounting{}
	if e.Account(&a, where, 5); a.Find(capture.TruncatedInput) == nil || a.CutUnit != "" {
		t.Fatalf("end=1, no end record: got %+v, want truncated_input and no cut unit", a)
	}
	e.Next([]byte(EndPrefix+" signal=SIGTERM"), 6)
	a = capture.Accounting{}
	g := e.Account(&a, where, 6)
	if g == nil || g.Kind != capture.InterruptedRecording || !strings.Contains(g.Items[0].What, "killed by SIGTERM") || a.Complete() {
		t.Fatalf("SIGTERM: got %+v, want an incomplete interrupted_recording, killed by SIGTERM", a)
	}
	// Exit 0, but the reading stopped while a process the command started
	// held its output (unread=): not a whole recording (the third sweep).
	e = &End{}
	e.HeaderLine([]byte(Header + " end=1 pid=1 cmd=\"x\""))
	e.Next([]byte(EndPrefix+" exit=0 forwarded=SIGINT unread=SIGINT"), 6)
	a = capture.Accounting{}
	g = e.Account(&a, where, 6)
	if g == nil || g.Kind != capture.InterruptedRecording || !strings.Contains(g.Items[0].What, "stopped reading its output on SIGINT") || a.Complete() {
		t.Fatalf("unread=SIGINT: got %+v, want an incomplete interrupted_recording saying the reading stopped on SIGINT", a)
	}
	// A header key after cmd= belongs to the command line.
	e = &End{}
	e.HeaderLine([]byte(Header + ` pid=1 cmd="x" end=1`))
	if e.Due {
		t.Fatal("end=1 after cmd=: got read as a key, want it part of the command")
	}
}
