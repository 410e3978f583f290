package kineto

import (
	"testing"

	"github.com/tallyprof/tally/capture"
)

// A negative correlation id is a bad one (gpu_event_without_launch), and
// the events after it are read. The fast integer path consumed "-1" and the
// slow path then parsed the text after it, "", as the number: "the JSON
// is malformed … (invalid number "")", a truncated_input, and the rest of a
// valid trace unread (found by the output sweep: args.correlation -1 in
// hta__triton_example.json).
func TestNegativeCorrelation(t *testing.T) {
	r := readT(t, trace([]string{
		call("cudaLaunchKernel", "1", "10", "5"), kernel("a", "1", "20", "5"),
		kernel("b", "-1", "30", "5"),
		call("cudaLaunchKernel", "3", "40", "5"), kernel("c", "3", "50", "5"),
	}))
	if g := gap(r.c, capture.TruncatedInput); g != nil {
		t.Fatalf("got truncated_input %q, want the trace read whole", g.Summary)
	}
	if len(r.disp) != 3 {
		t.Fatalf("got %d dispatches, want 3", len(r.disp))
	}
	g := mustGap(t, r.c, capture.GPUEventWithoutLaunch)
	if bad, _ := g.Figure("bad_correlation"); g.Count != 1 || bad != 1 {
		t.Errorf("got gpu_event_without_launch count %d, bad_correlation %d; want 1 and 1", g.Count, bad)
	}
	// The negative arm: a correlation that is a non-negative id links.
	for _, d := range r.disp {
		if got := d.Link == capture.LinkLaunched; got != (r.c.Kernels[d.Kernel].Name != "b") {
			t.Errorf("kernel %s: got link %v, want launched for a and c only", r.c.Kernels[d.Kernel].Name, d.Link)
		}
	}
}
