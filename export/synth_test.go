package export

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	_ "github.com/tallyprof/tally/format/all"
)

// synthFormat is a reader for tests and benchmarks: a small JSON spec
// (synthSpec) stands for a capture with as many dispatches as wanted, with
// the features no shipped example has (aggregated records, device ticks,
// ranks per queue, untimed dispatches, launches).
const synthFormat = "export-synth"

type synthSpec struct {
	Magic string `json:"magic"`
	// N dispatches, round-robin over Kernels kernels of one program "step"
	// and over the queues; run = i / PerRun.
	N, Kernels, PerRun int
	Queues             []capture.Queue
	SourceRank         string
	// Aggregated adds one aggregated record per kernel (Count 10, device
	// sum 1000 ns) after the single dispatches.
	Aggregated bool
	// Ticks makes the program's clock device ticks (no fit).
	Ticks bool
	// Untimed makes every 10th dispatch untimed.
	Untimed bool
	// Unfinished lists one unfinished dispatch (kernel 0, at time 5).
	Unfinished bool
	// UnfinishedQueue gives that unfinished dispatch queue 0.
	UnfinishedQueue bool
	// UnfinishedAt, when set, is that unfinished dispatch's time instead of 5.
	UnfinishedAt *int64
	// UnfinishedN lists that many unfinished dispatches instead of one
	// (beyond capture.MaxItems, the gap counts what it cannot list).
	UnfinishedN int
	// Graph makes the first Graph dispatches graph-replayed, four per
	// graph launch (they share its launch interval).
	Graph         int // NoLaunchEvery makes every n-th dispatch one without a launch record.
	NoLaunchEvery int
	// AggCount and AggDevice, when AggCount > 0, replace an aggregated
	// record's count and device sum, and AggPerKernel writes that many
	// records per kernel: absurd sums a total must not wrap.
	AggCount, AggDevice int64
	AggPerKernel        int
	// UnfinishedGaps appends one unfinished_dispatch gap of program "step"
	// per count, with no items.
	UnfinishedGaps []int64
	// Kernel0 names kernel 0, any bytes (base64 in the spec: JSON strings
	// cannot carry bytes that are not UTF-8).
	Kernel0 []byte
}

func init() {
	format.Register(format.Format{
		Name:        synthFormat,
		Description: "tally export tests: synthetic captures",
		Sniff:       func([]byte) format.Confidence { return format.No },
		Read:        readSynth,
	})
}

func readSynth(in *format.Input, _ *format.Options, sink capture.Sink) (*capture.Capture, error) {
	r, err := in.Reader()
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var s synthSpec
	if err := json.Unmarshal(b, &s); err != nil || s.Magic != synthFormat {
		return nil, format.FileError(in.Path, err, "", "not a synth spec")
	}
	c := &capture.Capture{Source: capture.Source{Rank: s.SourceRank}, Queues: s.Queues}
	c.Accounting.InputFor("bytes").Read = int64(len(b))
	c.Accounting.InputFor("bytes").Used = int64(len(b))
	p := c.AddProgram(capture.Program{Name: "step"})
	for k := 0; k < max(s.Kernels, 1); k++ {
		cat := "kernel"
		if k == 1 {
			cat = "memcpy"
		}
		name := fmt.Sprintf("kern<%d, float>", k)
		if k == 0 && s.Kernel0 != nil {
			name = string(s.Kernel0)
		}
		c.AddKernel(capture.Kernel{Program: p, Name: name, ID: uint64(k), HasID: true, Resolved: true, Category: cat})
	}
	perRun := max(s.PerRun, 1)
	var d capture.Dispatch
	nk := len(c.Kernels) // its own: --program-by may add kernels while it reads
	for i := 0; i < s.N; i++ {
		k := i % nk
		q := capture.NoQueue
		if len(c.Queues) > 0 {
			q = capture.QueueID(i % len(c.Queues))
		}
		t := int64(i) * 1000
		d = capture.Dispatch{Program: p, Queue: q, Kernel: capture.KernelID(k), Instance: int64(i / perRun), Index: int64(i % perRun), Ordinal: -1,
			Launch: capture.Interval{Begin: t, End: t + 100, Valid: true}, Device: capture.Interval{Begin: t + 200, End: t + 200 + int64(100*(k+1)), Valid: true},
			Link: capture.LinkLaunched}
		if s.NoLaunchEvery > 0 && i%s.NoLaunchEvery == 0 {
			d.Launch, d.Link = capture.Interval{}, capture.LinkNoLaunch
		}
		if i < s.Graph {
			g := int64(i/4) * 4000
			d.Launch, d.Link = capture.Interval{Begin: g, End: g + 100, Valid: true}, capture.LinkGraph
		}
		if s.Untimed && i%10 == 0 {
			d.Device, d.Launch, d.Link = capture.Interval{}, capture.Interval{}, capture.LinkNoLaunch
		}
		sink.Dispatch(c, &d)
	}
	c.Programs[p].Instances = int64((s.N + perRun - 1) / perRun)
	if s.Aggregated {
		agg := capture.Aggregate{Count: 10, Device: 1000, DeviceValid: true}
		if s.AggCount > 0 {
			agg.Count, agg.Device = s.AggCount, s.AggDevice
		}
		for k := range nk {
			for range max(s.AggPerKernel, 1) {
				a := agg
				d = capture.Dispatch{Program: p, Queue: capture.NoQueue, Kernel: capture.KernelID(k), Instance: -1, Index: -1, Ordinal: -1,
					Aggregate: &a}
				sink.Dispatch(c, &d)
			}
		}
	}
	if s.Unfinished {
		g := c.Accounting.Gap(capture.UnfinishedDispatch, "step")
		g.Summary = "launched, never finished"
		it := capture.Item{What: "launched, never finished", Program: "step", Kernel: c.Kernels[0].Name, Time: capture.TimeOf(5)}
		if s.UnfinishedAt != nil {
			it.Time = capture.TimeOf(*s.UnfinishedAt)
		}
		if s.UnfinishedQueue {
			q := capture.QueueID(0)
			it.Queue = &q
		}
		for range max(s.UnfinishedN, 1) {
			g.Add(it)
		}
	}
	for _, n := range s.UnfinishedGaps {
		c.Accounting.Gaps = append(c.Accounting.Gaps, &capture.Gap{Kind: capture.UnfinishedDispatch, Program: "step", Count: n, Summary: "launched, never finished"})
	}
	// As real readers do, the clock is stated once the input is read.
	c.Clock = capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true, Description: "synthetic ns"}
	if s.Ticks {
		c.Clock = capture.Clock{Domain: "device-ticks", Unit: "ticks", Timed: true, Description: "synthetic ticks"}
	}
	return c, nil
}

// writeSynth writes spec s to a file in dir and returns its path.
func writeSynth(t testing.TB, dir, name string, s synthSpec) string {
	t.Helper()
	s.Magic = synthFormat
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
