package render

import (
	"math"

	"github.com/tallyprof/tally/capture"
)

// JSONAffected is one gap's size (docs/report-json.md, "How much each gap
// touches"). size_known false: the figures are what is known, and an
// unknown amount comes on top. Tick fields appear for programs timed in
// device ticks.
type JSONAffected struct {
	SizeKnown            bool   `json:"size_known"`
	MissingDeviceNs      int64  `json:"missing_device_ns"`
	UnattributedDeviceNs int64  `json:"unattributed_device_ns"`
	MissingTicks         *int64 `json:"missing_device_ticks,omitempty"`
	UnattributedTicks    *int64 `json:"unattributed_device_ticks,omitempty"`
	LostDispatches       int64  `json:"lost_dispatches"`
	Basis                string `json:"basis"`
}

// JSONTotals sums the gaps: the device time in the tables, what the gaps
// touch, the share of device time they touch, and the kinds whose size is
// unknown.
type JSONTotals struct {
	DeviceNs             int64          `json:"device_ns"`
	MissingDeviceNs      int64          `json:"missing_device_ns"`
	UnattributedDeviceNs int64          `json:"unattributed_device_ns"`
	DeviceTicks          *int64         `json:"device_ticks,omitempty"`
	MissingTicks         *int64         `json:"missing_device_ticks,omitempty"`
	UnattributedTicks    *int64         `json:"unattributed_device_ticks,omitempty"`
	LostDispatches       int64          `json:"lost_dispatches"`
	Share                float64        `json:"share"`
	MissingShare         float64        `json:"missing_share"`
	UnattributedShare    float64        `json:"unattributed_share"`
	SizeKnown            bool           `json:"size_known"`
	Unknown              []capture.Kind `json:"unknown"`
}

func jsonAffected(g *capture.Gap) *JSONAffected {
	af := g.Affected
	if af == nil || g.Note {
		return nil
	}
	ticks := af.MissingTicks != 0 || af.UnattributedTicks != 0
	return &JSONAffected{SizeKnown: af.Known, MissingDeviceNs: af.MissingNs, UnattributedDeviceNs: af.UnattributedNs,
		MissingTicks: i64If(af.MissingTicks, ticks), UnattributedTicks: i64If(af.UnattributedTicks, ticks),
		LostDispatches: af.LostDispatches, Basis: af.Basis}
}

func jsonTotals(t *capture.AffectedTotals) *JSONTotals {
	if t == nil {
		return nil
	}
	ticks := t.DeviceTicks != 0 || t.MissingTicks != 0 || t.UnattributedTicks != 0
	j := &JSONTotals{DeviceNs: t.DeviceNs, MissingDeviceNs: t.MissingNs, UnattributedDeviceNs: t.UnattributedNs,
		DeviceTicks: i64If(t.DeviceTicks, ticks), MissingTicks: i64If(t.MissingTicks, ticks), UnattributedTicks: i64If(t.UnattributedTicks, ticks),
		LostDispatches: t.LostDispatches, Share: round6(t.Share()), MissingShare: round6(t.MissingShare()),
		UnattributedShare: round6(t.UnattributedShare()), SizeKnown: len(t.Unknown) == 0, Unknown: t.Unknown}
	if j.Unknown == nil {
		j.Unknown = []capture.Kind{}
	}
	return j
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }
