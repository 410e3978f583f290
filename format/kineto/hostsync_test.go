package kineto

import (
	"testing"

	"github.com/tallyprof/tally/capture"
)

// A launch that follows a host sync call on its thread carries it; the
// next launch on that thread, a launch on another thread, and a launch
// that began before the sync ended do not.
func TestHostSync(t *testing.T) {
	data := trace([]string{
		callOn("cudaLaunchKernel", 100, "1", "10", "5"),
		kernel("a", "1", "20", "100"),
		callOn("cudaStreamSynchronize_v3020", 100, "2", "30", "95"), // ends at 125
		// The cuda_sync mirror on the device's row is not a host call.
		`{"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 31, "dur": 93, "args": {"correlation": 2, "stream": 7}}`,
		callOn("cudaLaunchKernel", 100, "3", "140", "10"), // follows the sync
		kernel("b", "3", "155", "10"),
		callOn("cudaLaunchKernel", 100, "4", "160", "10"), // a second launch: no
		kernel("c", "4", "175", "10"),
		callOn("cudaLaunchKernel", 200, "5", "170", "10"), // another thread: no
		kernel("d", "5", "190", "10"),
		callOn("hipDeviceSynchronize", 200, "6", "200", "50"), // ends at 250
		callOn("cudaLaunchKernel", 200, "7", "240", "20"),     // began inside the sync: no
		kernel("e", "7", "265", "10"),
	})
	r := readT(t, data)
	want := map[string]capture.Interval{"b": {Begin: 30_000, End: 125_000, Valid: true}}
	if len(r.disp) != 5 {
		t.Fatalf("dispatches: got %d, want 5", len(r.disp))
	}
	for _, d := range r.disp {
		name := r.c.Kernels[d.Kernel].Name
		if got := d.HostSync; got != want[name] {
			t.Errorf("%s: host sync got %+v, want %+v", name, got, want[name])
		}
	}
}
