package kineto

import "github.com/tallyprof/tally/capture"

// Host sync calls (capture.Dispatch.HostSync): a launch call that follows a
// host synchronise call on its thread — cudaDeviceSynchronize,
// cudaStreamSynchronize, cudaEventSynchronize, their cu*/hip* forms — is
// tied to it, so the time breakdown can say how much of the host's
// lateness followed a sync. Kineto also writes a cuda_sync event for each
// such call, on the device's row (pid = the device): the device's view of
// the same wait, sharing the call's correlation id; the runtime call on the
// host thread is the one used.
//
// Per thread, the latest sync call read and the end of the last launch
// call read: a thread's calls are written in time order, so file order is
// enough. Only the first launch after a sync is tied to it (its sync ended
// after the thread's previous launch), so the map holds at most one entry
// per sync call. Memory: O(threads + sync calls).

// syncNames are the host synchronise calls, by base name (baseCallName).
var syncNames = map[string]bool{
	"cudaDeviceSynchronize": true,
	"cudaStreamSynchronize": true,
	"cudaEventSynchronize":  true,
	"cuCtxSynchronize":      true,
	"cuStreamSynchronize":   true,
	"cuEventSynchronize":    true,
	"hipDeviceSynchronize":  true,
	"hipStreamSynchronize":  true,
	"hipEventSynchronize":   true,
}

type syncThread struct {
	syncTs, syncEnd int64
	hasSync         bool
	lastLaunchEnd   int64
	launched        bool
}

type hostSyncs struct {
	threads []syncThread
	// byCorr ties a launch call (its correlation id) to the sync it
	// followed, in the file's time base.
	byCorr map[uint64][2]int64
}

// call sees one runtime call with its times: a sync call is remembered, a
// launch call is tied to the thread's sync when it followed it.
func (h *hostSyncs) call(kind callKind, thread uint32, e *event) {
	if !kind.sync && !kind.launch || !e.hasTs || e.badTs || !e.hasDur || e.badDur || e.dur < 0 {
		return
	}
	for int(thread) >= len(h.threads) {
		h.threads = append(h.threads, syncThread{})
	}
	t := &h.threads[thread]
	end := e.ts + e.dur
	if kind.sync {
		if !t.hasSync || end > t.syncEnd {
			t.syncTs, t.syncEnd, t.hasSync = e.ts, end, true
		}
		return
	}
	if t.hasSync && t.syncEnd <= e.ts && (!t.launched || t.syncEnd > t.lastLaunchEnd) && e.hasCorr && !e.badCorr && e.corr != 0 {
		if h.byCorr == nil {
			h.byCorr = map[uint64][2]int64{}
		}
		h.byCorr[e.corr] = [2]int64{t.syncTs, t.syncEnd}
	}
	t.lastLaunchEnd, t.launched = max(t.lastLaunchEnd, end), true
}

// of is the sync call launch corr followed, shifted by add to the capture's
// time base; invalid when none.
func (h *hostSyncs) of(corr uint64, add int64) capture.Interval {
	iv, ok := h.byCorr[corr]
	if !ok {
		return capture.Interval{}
	}
	return capture.Interval{Begin: iv[0] + add, End: iv[1] + add, Valid: true}
}
