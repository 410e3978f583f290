package capture

import (
	"strings"
	"testing"
)

func validCapture() (*Capture, *Dispatch) {
	c := &Capture{}
	p := c.AddProgram(Program{Name: "p", Instances: 1})
	k := c.AddKernel(Kernel{Program: p, Name: "k"})
	q := c.AddQueue(Queue{Name: "q"})
	return c, &Dispatch{Program: p, Kernel: k, Queue: q, Device: Interval{Begin: 1, End: 2, Valid: true}}
}

func TestCheckedSinkStopsBadDispatches(t *testing.T) {
	c, d := validCapture()
	var got Collect
	s := &Checked{Next: &got}
	s.Dispatch(c, d)
	bad := *d
	bad.Kernel = 5
	s.Dispatch(c, &bad)
	s.Dispatch(c, &bad)
	if len(got.Dispatches) != 1 || s.Bad != 2 || s.Err == nil || !strings.Contains(s.Err.Error(), "1 kernels") {
		t.Fatalf("passed %d, bad %d, err %v", len(got.Dispatches), s.Bad, s.Err)
	}
	if err := c.CheckValid(); err != nil {
		t.Fatal(err)
	}
	c.Programs[0].Name = ""
	if err := c.CheckValid(); err == nil {
		t.Fatal("a program without a name accepted")
	}
}

// The check runs on every dispatch of every read: it must cost a few ns
// against the ~100 ns or more a reader spends per dispatch.
//
//	go test -run '^$' -bench CheckedSink ./capture/
func BenchmarkCheckedSink(b *testing.B) {
	c, d := validCapture()
	s := &Checked{Next: Discard}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s.Dispatch(c, d)
	}
	if s.Err != nil {
		b.Fatal(s.Err)
	}
}

func TestCheckValidIncompleteRuns(t *testing.T) {
	for _, tc := range []struct {
		runs []int64
		bad  string
	}{
		{nil, ""},
		{[]int64{0, 3, 7}, ""},
		{[]int64{2, -1}, "run -1"},
		{[]int64{4, 2, 4}, "run 4 as incomplete twice"},
	} {
		c, _ := validCapture()
		c.Programs[0].IncompleteRuns = tc.runs
		err := c.CheckValid()
		if tc.bad == "" && err != nil || tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)) {
			t.Errorf("runs %v: err %v, want %q", tc.runs, err, tc.bad)
		}
	}
}
