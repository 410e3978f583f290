package capture

import (
	"encoding/json"
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
		t.Fatalf("got %d passed, %d bad, error %v; want 1, 2, an error naming the 1 kernels", len(got.Dispatches), s.Bad, s.Err)
	}
	if err := c.CheckValid(); err != nil {
		t.Fatal(err)
	}
	c.Programs[0].Name = ""
	if err := c.CheckValid(); err == nil {
		t.Fatal("a program without a name: got no error, want one")
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

// A gap item's queue indexes Queues: in range or nil (unknown), and the
// nil survives a JSON round trip as unknown, never as queue 0.
func TestItemQueueInRange(t *testing.T) {
	for _, tc := range []struct {
		q  *QueueID
		ok bool
	}{{nil, true}, {QueueOf(0), true}, {QueueOf(1), false}, {QueueOf(NoQueue), false}} {
		c, _ := validCapture()
		g := c.Accounting.Gap(UnfinishedDispatch, "p")
		g.Add(Item{What: "launched, never finished", Queue: tc.q})
		if err := c.CheckValid(); (err == nil) != tc.ok {
			t.Errorf("item queue %v: got error %v, want valid %v", tc.q, err, tc.ok)
		}
	}
	for _, it := range []Item{{What: "w"}, {What: "w", Queue: QueueOf(0)}} {
		b, err := json.Marshal(it)
		if err != nil {
			t.Fatal(err)
		}
		var back Item
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if (back.Queue == nil) != (it.Queue == nil) || back.Queue != nil && *back.Queue != *it.Queue {
			t.Errorf("%s: got queue %v after the round trip, want %v", b, back.Queue, it.Queue)
		}
	}
}

func TestQueueLabel(t *testing.T) {
	for _, tc := range []struct {
		q    Queue
		want string
	}{
		{Queue{Name: "stream 7", Device: "GPU 0", Rank: "1"}, "rank 1 · GPU 0 · stream 7"},
		{Queue{Name: "cpu0", Device: "cpu"}, "cpu · cpu0"},
		{Queue{Name: "q"}, "q"},
		{Queue{Device: "GPU 0"}, "GPU 0"},
		{Queue{}, "(unnamed queue)"},
	} {
		if got := tc.q.Label(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.q, got, tc.want)
		}
	}
}
