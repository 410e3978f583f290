package kineto

import (
	"strings"
	"testing"
	"time"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// Times are µs. The launch of correlation 1 returns at 1005; its kernel
// starts at start1, the next one on the stream at start2.
func queuedTrace(start1, start2 string) string {
	return trace([]string{
		call("cudaLaunchKernel", "1", "1000", "5"),
		kernelOn("first", 7, "1", start1, "10"),
		call("cudaLaunchKernel", "2", "1010", "5"),
		kernelOn("second", 7, "2", start2, "10"),
	})
}

func TestUnrecordedWorkBeforeTheWindow(t *testing.T) {
	// The profile opened while the GPU ran earlier work: the first recorded
	// kernel starts 300 ms after its launch returned, nothing recorded ran.
	data := queuedTrace("301005", "301020")
	r := readT(t, data)
	g := mustGap(t, r.c, capture.UnrecordedDeviceWork)
	if g.Count != 1 || g.Note || fig(t, g, "total_ns") != 300_000_000 || fig(t, g, "first_on_stream") != 1 || fig(t, g, "streams") != 1 {
		t.Fatalf("got gaps\n%s\nwant one unrecorded_device_work gap (not a note) of 300 ms, first on its stream, on one stream", gapText(r.c))
	}
	it := g.Items[0]
	if it.Kernel != "first" || !strings.Contains(it.What, "stream 7") || !strings.Contains(it.What, "300.000 ms") || !strings.Contains(g.Summary, "launched before the profiler started") {
		t.Errorf("got item %+v, summary %q; want kernel first, stream 7, 300.000 ms, launched before the profiler started", it, g.Summary)
	}
	if r.c.Accounting.Complete() {
		t.Error("got a complete capture, want incomplete")
	}
	// Above the threshold given: no gap.
	r = readOpts(t, data, &format.Options{UnrecordedWait: 400 * time.Millisecond})
	noGap(t, r.c, capture.UnrecordedDeviceWork)
}

func TestWarmIdleGPUHasNoUnrecordedWork(t *testing.T) {
	// Launch latency of a few µs: nothing to report.
	data := queuedTrace("1009", "1019")
	r := readT(t, data)
	noGap(t, r.c, capture.UnrecordedDeviceWork)
	if !r.c.Accounting.Complete() {
		t.Errorf("got an incomplete capture, want complete; gaps:\n%s", gapText(r.c))
	}
	// A threshold below the latency reports it (the flag's other arm).
	r = readOpts(t, data, &format.Options{UnrecordedWait: time.Microsecond})
	g := mustGap(t, r.c, capture.UnrecordedDeviceWork)
	if fig(t, g, "total_ns") != 4000 || fig(t, g, "threshold_ns") != 1000 {
		t.Errorf("got gaps\n%s\nwant unrecorded_device_work total_ns 4000, threshold_ns 1000", gapText(r.c))
	}
}

func TestCrossStreamWaitOnRecordedWorkIsNoGap(t *testing.T) {
	// Stream 8's kernel waits 50 ms for stream 7's long kernel (an event
	// wait): recorded work explains it.
	data := trace([]string{
		call("cudaLaunchKernel", "1", "1000", "5"),
		kernelOn("long", 7, "1", "1010", "50000"),
		call("cudaLaunchKernel", "2", "1020", "5"),
		kernelOn("after", 8, "2", "51012", "10"),
	})
	r := readT(t, data)
	noGap(t, r.c, capture.UnrecordedDeviceWork)
}

func TestLaterUnexplainedWait(t *testing.T) {
	// Warm start, then the stream sits idle 20 ms with its next kernel
	// queued and nothing recorded running (another process on the GPU).
	data := trace([]string{
		call("cudaLaunchKernel", "1", "1000", "5"),
		kernelOn("a", 7, "1", "1008", "10"),
		call("cudaLaunchKernel", "2", "1030", "5"),
		kernelOn("b", 7, "2", "21035", "10"),
		// Another stream's recorded work during the first half only.
		call("cudaLaunchKernel", "3", "1040", "5"),
		kernelOn("c", 8, "3", "1050", "5000"),
	})
	r := readT(t, data)
	g := mustGap(t, r.c, capture.UnrecordedDeviceWork)
	if g.Count != 1 || fig(t, g, "later_waits") != 1 || fig(t, g, "first_on_stream") != 0 || fig(t, g, "total_ns") != 14_985_000 {
		t.Fatalf("got gaps\n%s\nwant one unrecorded_device_work gap: a later wait, not first on its stream, of 14985000 ns", gapText(r.c))
	}
	if it := g.Items[0]; it.Kernel != "b" || !strings.Contains(it.What, "no recorded event explains it") {
		t.Errorf("got item %+v, want kernel b, \"no recorded event explains it\"", it)
	}
}

func TestContainedEventsAreAGap(t *testing.T) {
	data := trace([]string{
		kernelOn("a", 7, "0", "100", "10"),
		kernelOn("inside", 7, "0", "102", "3"), // wholly inside a
		kernelOn("pdl", 7, "0", "109", "5"),    // starts 1 µs early: a note
	})
	r := readT(t, data)
	c := mustGap(t, r.c, capture.ContainedEvents)
	if c.Count != 1 || c.Note || c.Items[0].Kernel != "inside" || fig(t, c, "total_ns") != 3000 {
		t.Errorf("got gaps\n%s\nwant one contained_events gap (not a note): inside, 3000 ns", gapText(r.c))
	}
	o := mustGap(t, r.c, capture.OverlappingEvents)
	if o.Count != 1 || !o.Note || o.Items[0].Kernel != "pdl" || !strings.Contains(o.Summary, "programmatic dependent launch") || !strings.Contains(o.Summary, "clock artefacts") {
		t.Errorf("got gaps\n%s\nwant one overlapping_events note: pdl, naming programmatic dependent launch and clock artefacts", gapText(r.c))
	}
}
