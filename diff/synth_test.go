package diff

import (
	"math/rand"

	"github.com/tallyprof/tally/capture"
)

// synth describes a capture built directly: programs with runs, kernels
// with dispatches per run and a typical time per dispatch. Times get a
// multiplicative noise so repeated runs are samples, not copies.
type synth struct {
	path  string
	clock capture.Clock
	progs []synthProg
	gaps  []synthGap
}

type synthProg struct {
	name    string
	runs    int
	kernels []synthKernel
}

type synthKernel struct {
	name    string
	perRun  int     // dispatches per run
	ns      float64 // typical time per dispatch
	noise   float64 // relative spread of each dispatch's time
	agg     bool    // one aggregated record per run instead of dispatches
	untimed bool
}

type synthGap struct {
	kind            capture.Kind
	program, kernel string
}

var nsClock = capture.Clock{Domain: "monotonic", Unit: "ns", Timed: true, Description: "ns on the test's monotonic clock"}

// read returns the function Side.Add takes: it streams the dispatches.
func (s synth) read(seed int64) func(capture.Sink) (*capture.Capture, error) {
	return func(sink capture.Sink) (*capture.Capture, error) {
		rng := rand.New(rand.NewSource(seed))
		c := &capture.Capture{Source: capture.Source{Path: s.path, Format: "synthetic", Bytes: 1000}, Clock: s.clock}
		in := c.Accounting.InputFor("records")
		var t int64
		for _, sp := range s.progs {
			pid := c.AddProgram(capture.Program{Name: sp.name, Instances: int64(sp.runs)})
			kids := make([]capture.KernelID, len(sp.kernels))
			for i, k := range sp.kernels {
				kids[i] = c.AddKernel(capture.Kernel{Program: pid, Name: k.name, Resolved: true, Category: "kernel"})
			}
			for run := 0; run < sp.runs; run++ {
				for i, k := range sp.kernels {
					if k.agg {
						var sum int64
						for j := 0; j < k.perRun; j++ {
							sum += dur(rng, k)
						}
						d := capture.Dispatch{Program: pid, Queue: capture.NoQueue, Kernel: kids[i], Instance: int64(run), Index: -1, Ordinal: -1,
							Aggregate: &capture.Aggregate{Count: int64(k.perRun), Device: sum, DeviceValid: !k.untimed}}
						in.Read++
						in.Used++
						sink.Dispatch(c, &d)
						continue
					}
					for j := 0; j < k.perRun; j++ {
						d := capture.Dispatch{Program: pid, Queue: capture.NoQueue, Kernel: kids[i], Instance: int64(run), Index: int64(j), Ordinal: -1}
						if !k.untimed && s.clock.Timed {
							n := dur(rng, k)
							d.Device = capture.Interval{Begin: t, End: t + n, Valid: true}
							t += n
						}
						in.Read++
						in.Used++
						sink.Dispatch(c, &d)
					}
				}
			}
		}
		for _, g := range s.gaps {
			gap := c.Accounting.Gap(g.kind, g.program)
			gap.Summary = "a synthetic " + string(g.kind)
			gap.Add(capture.Item{What: "injected by the test", Program: g.program, Kernel: g.kernel})
		}
		c.Accounting.SortGaps()
		return c, nil
	}
}

func dur(rng *rand.Rand, k synthKernel) int64 {
	v := k.ns * (1 + k.noise*rng.NormFloat64())
	if v < 1 {
		v = 1
	}
	return int64(v)
}

// side builds a side from synthetic captures, seeded one after another.
func side(label string, seed int64, caps ...synth) *Side {
	s := NewSide(label)
	for i, c := range caps {
		if err := s.Add(c.read(seed + int64(i))); err != nil {
			panic(err)
		}
	}
	return s
}

// baseline is side A of the injected-changes scenario.
func baseline() synth {
	return synth{path: "a.trace", clock: nsClock, progs: []synthProg{
		{name: "decode", runs: 20, kernels: []synthKernel{
			{name: "matmul", perRun: 8, ns: 76000, noise: 0.05},
			{name: "attention", perRun: 4, ns: 41000, noise: 0.05},
			{name: "copy", perRun: 3, ns: 3100, noise: 0.05},
			{name: "gather", perRun: 2, ns: 5200, noise: 0.05},
			{name: "unary", perRun: 6, ns: 2200, noise: 0.05},
			{name: "allreduce", perRun: 2, ns: 9000, noise: 0.05, agg: true},
		}},
		{name: "prefill", runs: 8, kernels: []synthKernel{
			{name: "matmul", perRun: 30, ns: 80000, noise: 0.05},
			{name: "softmax", perRun: 10, ns: 12000, noise: 0.05},
		}},
		{name: "warmup", runs: 1, kernels: []synthKernel{{name: "fill", perRun: 3, ns: 1000, noise: 0.05}}},
	}}
}

// changed is side B: matmul in decode 20% slower per dispatch, gather
// removed, scale added, copy twice as many dispatches at the same time per
// dispatch, program warmup removed and embed added; the rest unchanged.
func changed() synth {
	s := baseline()
	s.path = "b.trace"
	dec := &s.progs[0]
	dec.kernels[0].ns *= 1.2                                                                                                   // matmul
	dec.kernels[2].perRun *= 2                                                                                                 // copy
	dec.kernels[3] = synthKernel{name: "scale", perRun: 2, ns: 2400, noise: 0.05}                                              // gather → scale
	s.progs[2] = synthProg{name: "embed", runs: 5, kernels: []synthKernel{{name: "lookup", perRun: 2, ns: 7000, noise: 0.05}}} // warmup → embed
	return s
}
