package timeline

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/tallyprof/tally/capture"
)

// The metadata's per-kind gap count sums the inputs' gaps: two inputs of
// MaxInt64 unfinished dispatches pin it at MaxInt64, never wrap it
// negative (a negative count reads as no gap).
func TestGapCountSaturates(t *testing.T) {
	for _, f := range []Format{Perfetto, Chrome} {
		t.Run(f.String(), func(t *testing.T) {
			var buf bytes.Buffer
			w := New(&buf, f)
			for i := range 2 {
				c := &capture.Capture{Clock: capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true, Description: "ns, monotonic"}}
				p := c.AddProgram(capture.Program{Name: "step", Instances: 1})
				q := c.AddQueue(capture.Queue{Name: "stream 7", Device: "GPU 0"})
				k := c.AddKernel(capture.Kernel{Program: p, Name: "k", Resolved: true, Category: "kernel"})
				g := c.Accounting.Gap(capture.UnfinishedDispatch, "step")
				g.Summary = "launched, never finished"
				g.Count = math.MaxInt64
				in := w.Sink(fmt.Sprintf("rank-%d.json", i))
				in.Dispatch(c, &capture.Dispatch{Program: p, Queue: q, Kernel: k, Index: -1, Ordinal: -1, Device: capture.Interval{Begin: 10, End: 20, Valid: true}})
				in.Finish(c)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			// Chrome's JSON numbers decode as float64: MaxInt64 is 2^63 there.
			switch v := decode(t, f, buf.Bytes()).meta["tally_gap_unfinished_dispatch"].(type) {
			case int64:
				if v != math.MaxInt64 {
					t.Errorf("tally_gap_unfinished_dispatch: got %d, want %d", v, int64(math.MaxInt64))
				}
			case float64:
				if v != float64(math.MaxInt64) {
					t.Errorf("tally_gap_unfinished_dispatch: got %v, want %v", v, float64(math.MaxInt64))
				}
			default:
				t.Errorf("tally_gap_unfinished_dispatch: got %v (%T), want %d", v, v, int64(math.MaxInt64))
			}
		})
	}
}
