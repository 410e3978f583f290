package htmlreport

import (
	"fmt"
	"strings"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/render"
)

// The time breakdown on the page (docs/breakdown.md): a stacked bar per
// device — busy by class, then idle by cause, each part as wide as its
// share of the device's window — drawn as inline SVG like the timeline
// strips. Its numbers are the JSON report's (render.BuildBreakdown): each
// part carries its value in data-ns, and they sum to data-window-ns.

// breakdownView is the page's breakdown block.
type breakdownView struct {
	Rows []bdRowView
	// Error is why the breakdown could not be made.
	Error string
	Notes []string
}

// bdRowView is one device's bar.
type bdRowView struct {
	Label    string
	Device   string
	Rank     string
	Input    string
	Unit     string
	WindowNS int64
	Window   string
	Total    bool // the sum of many inputs' rows
	Parts    []bdPartView
	Notes    []string
}

// bdPartView is one part of a bar: X and W in the 0–1000 view box.
type bdPartView struct {
	Key    string // "compute" … "memset", "host_wait" … "unexplained"
	Kind   string // "busy" or "idle"
	NS     int64
	X, W   float64
	Legend string
}

// breakdown builds the block from b (the input's or the run's merged
// breakdown); nil when there is none.
func breakdown(c *capture.Capture, b *analysis.Breakdown) *breakdownView {
	j := render.BuildBreakdown(c, b)
	if j == nil {
		return nil
	}
	v := &breakdownView{Error: j.Error}
	for i := range j.Devices {
		v.Rows = append(v.Rows, bdRow(&j.Devices[i], false, j.SyncRecorded))
	}
	if j.Total != nil && len(j.Devices) > 1 {
		v.Rows = append(v.Rows, bdRow(j.Total, true, j.SyncRecorded))
	}
	if j.UntimedDispatches > 0 {
		v.Notes = append(v.Notes, fmt.Sprintf("%d dispatches have no device time: in no window", j.UntimedDispatches))
	}
	if j.AggregatedDispatches > 0 {
		v.Notes = append(v.Notes, fmt.Sprintf("%d dispatches are known only from aggregated records: in no window", j.AggregatedDispatches))
	}
	if len(j.CaptureGaps) > 0 {
		var ks []string
		for _, k := range j.CaptureGaps {
			ks = append(ks, string(k))
		}
		s := "the capture has gaps (" + strings.Join(ks, ", ") + "): the breakdown holds only the recorded dispatches"
		if c != nil {
			if cl := render.AffectedClause(c); cl != "" {
				s += "; the gaps touch " + cl
			}
		}
		v.Notes = append(v.Notes, s)
	}
	return v
}

func bdRow(d *render.JSONDeviceBreakdown, total, sync bool) bdRowView {
	r := bdRowView{Device: d.Device, Unit: d.Unit, WindowNS: d.WindowNS, Window: render.Duration(d.WindowNS, d.Unit), Total: total,
		Notes: d.Reasons}
	var label []string
	if d.Input != nil && d.Rank == nil {
		r.Input = fmt.Sprint(*d.Input)
		label = append(label, fmt.Sprintf("input %d", *d.Input+1))
	}
	if d.Rank != nil {
		r.Rank = *d.Rank
		label = append(label, "rank "+*d.Rank)
	}
	label = append(label, d.Device)
	if d.Clock != "" && d.Unit != "ns" {
		label = append(label, d.Unit)
	}
	r.Label = strings.Join(label, " · ")
	parts := []struct {
		key, kind string
		ns        int64
	}{
		{"compute", "busy", d.BusyNS.Compute}, {"comm", "busy", d.BusyNS.Comm}, {"memcpy", "busy", d.BusyNS.Memcpy}, {"memset", "busy", d.BusyNS.Memset},
		{"host_wait", "idle", d.IdleNS.HostWait}, {"launch_latency", "idle", d.IdleNS.LaunchLatency}, {"other_stream", "idle", d.IdleNS.OtherStream},
		{"unrecorded", "idle", d.IdleNS.Unrecorded}, {"unexplained", "idle", d.IdleNS.Unexplained},
	}
	var at int64
	for _, p := range parts {
		if p.ns <= 0 {
			continue
		}
		share := ""
		if d.WindowNS > 0 {
			share = " (" + render.Share(float64(p.ns)/float64(d.WindowNS)) + ")"
		}
		legend := p.key + " " + render.Duration(p.ns, d.Unit) + share
		if p.key == "host_wait" && sync && d.HostWaitAfterSyncNS != nil {
			legend += ", " + render.Duration(*d.HostWaitAfterSyncNS, d.Unit) + " after a sync call"
		}
		r.Parts = append(r.Parts, bdPartView{Key: p.key, Kind: p.kind, NS: p.ns, X: scale(at, d.WindowNS), W: scale(p.ns, d.WindowNS), Legend: legend})
		at = capture.SatAdd(at, p.ns)
	}
	if d.CommTotalNS > 0 {
		r.Notes = append([]string{fmt.Sprintf("comm %s in all: %s hidden under compute, %s exposed", render.Duration(d.CommTotalNS, d.Unit),
			render.Duration(d.CommOverlappedNS, d.Unit), render.Duration(d.CommExposedNS, d.Unit))}, r.Notes...)
	}
	if d.GraphBusyNS > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("graph replays: %s of the busy time ran behind graph launches (their gaps are never host_wait)",
			render.Duration(d.GraphBusyNS, d.Unit)))
	}
	return r
}

// scale maps v of window onto the 0–1000 view box.
func scale(v, window int64) float64 {
	if window <= 0 {
		return 0
	}
	return float64(v) / float64(window) * 1000
}
