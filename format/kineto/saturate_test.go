package kineto

import (
	"math"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
)

// Durations are the file's: sums of absurd ones stop at math.MaxInt64
// instead of wrapping negative. Such durations are impossible times under
// the default ceiling (TestImpossibleLeftOut); raised to the int64 maximum
// (--max-duration), they are dispatches and reach every sum.
func TestSumsSaturate(t *testing.T) {
	const huge = "9000000000000000" // µs: 9e18 ns, fits alone, not twice
	noCeiling := &format.Options{MaxDuration: math.MaxInt64}
	t.Run("gpu_event_without_launch", func(t *testing.T) {
		r := readOpts(t, trace([]string{kernel("a", "1", "1", huge), kernel("b", "2", "2", huge)}), noCeiling)
		if v := fig(t, mustGap(t, r.c, capture.GPUEventWithoutLaunch), "total_ns"); v != math.MaxInt64 {
			t.Errorf("total_ns %d, want %d", v, int64(math.MaxInt64))
		}
		noNegative(t, r.c)
	})
	t.Run("contained_events", func(t *testing.T) {
		r := readOpts(t, trace([]string{
			call("cudaLaunchKernel", "1", "0", "1"), kernel("outer", "1", "1", "9200000000000000"),
			call("cudaLaunchKernel", "2", "0", "1"), kernel("in1", "2", "2", huge),
			call("cudaLaunchKernel", "3", "0", "1"), kernel("in2", "3", "3", huge),
		}), noCeiling)
		if v := fig(t, mustGap(t, r.c, capture.ContainedEvents), "total_ns"); v != math.MaxInt64 {
			t.Errorf("total_ns %d, want %d", v, int64(math.MaxInt64))
		}
		noNegative(t, r.c)
	})
	t.Run("unrecorded_device_work", func(t *testing.T) {
		r := readT(t, trace([]string{
			call("cudaLaunchKernel", "1", "0", "1"), kernelOn("a", 7, "1", "4700000000000000", "1"),
			call("cudaLaunchKernel", "2", "0", "1"), kernelOn("b", 8, "2", "4700000000000000", "1"),
		}))
		if v := fig(t, mustGap(t, r.c, capture.UnrecordedDeviceWork), "total_ns"); v != math.MaxInt64 {
			t.Errorf("total_ns %d, want %d", v, int64(math.MaxInt64))
		}
		noNegative(t, r.c)
	})
	t.Run("record counts", func(t *testing.T) {
		r := readT(t, trace([]string{kernel("k", "1", "1", "1")}, `"INFO": ["Record counts: Out-of-range = 9000000000000000000, Out-of-range = 9000000000000000000, Bad = -5"]`))
		g := mustGap(t, r.c, capture.ProducerWarnings)
		if v := fig(t, g, "Out-of-range"); v != math.MaxInt64 {
			t.Errorf("Out-of-range %d, want %d", v, int64(math.MaxInt64))
		}
		noNegative(t, r.c)
	})
}

// noNegative fails on a negative gap figure or count.
func noNegative(t *testing.T, c *capture.Capture) {
	t.Helper()
	for _, g := range c.Accounting.Gaps {
		if g.Count < 0 {
			t.Errorf("gap %s: got count %d, want >= 0", g.Kind, g.Count)
		}
		for _, f := range g.Figures {
			if f.Count < 0 {
				t.Errorf("gap %s figure %s: got %d, want >= 0", g.Kind, f.Name, f.Count)
			}
		}
	}
}
