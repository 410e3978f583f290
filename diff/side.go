package diff

import (
	"sort"
	"strconv"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
)

// Side is one side of a comparison: the captures given for it (one file, or
// repeated runs of the same workload), with their per-run sums merged by
// program name and kernel name. Inputs keep their own accounting.
type Side struct {
	Label    string
	Captures []*capture.Capture
	// Skipped are the files found in the side's directories that no reader
	// recognises: listed in the header, not read (as in tally report).
	Skipped []analysis.Skipped
	// MissingRanks are the ranks the other side's inputs state and this
	// side's do not (set by Compare, when both sides state ranks).
	MissingRanks []string
	// RunGaps are the gaps of the side's inputs as a run that no input's
	// own accounting holds (analysis.Run.OwnGaps): one recording read
	// twice, two inputs of one rank.
	RunGaps []*capture.Gap

	programs map[string]*progSide
	order    []string // program names in first-seen order
	// leftOut counts the runs left out of the samples because they did
	// not complete (capture.Program.IncompleteRuns), over every input.
	leftOut int
}

// LeftOut is how many runs of the side's inputs were left out of the
// samples because they failed or never ended (capture.Program.
// IncompleteRuns): a run cut short holds partial sums, not a sample.
func (s *Side) LeftOut() int { return s.leftOut }

// sampleKey names one sample: a run (Dispatch.Instance) of one input. An
// input without run numbers (-1) is one sample per input.
type sampleKey struct {
	input int
	run   int64
}

// kernelKey matches kernels across sides within one program: by list and
// catalog name; a kernel without a name by the format's kernel id when it
// has one. Ids are a capture's own numbering (the probe numbers kernels in
// first-use order), so two named kernels never match by id; an anonymous
// one matches the other side's kernel named under its id (idKeys, alias).
type kernelKey struct{ list, name string }

func keyOf(k capture.Kernel) kernelKey {
	if k.HasID && !k.Resolved {
		return idKey(k)
	}
	return kernelKey{k.List, k.Name}
}

func idKey(k capture.Kernel) kernelKey {
	return kernelKey{k.List, "#" + strconv.FormatUint(k.ID, 10)}
}

type progSide struct {
	name  string
	clock capture.Clock
	// mixedUnits is set when this side's inputs time the program in
	// different units, so its times cannot be pooled.
	mixedUnits bool
	runs       map[sampleKey]bool
	kernels    map[kernelKey]*kernSide
	korder     []kernelKey
	// named maps the id key of each named kernel with an id to its name
	// key, so the other side's anonymous label of it can match it.
	named map[kernelKey]kernelKey
	// leftOut lists the runs not sampled because they did not complete.
	leftOut []sampleKey
}

type kernSide struct {
	kernel capture.Kernel
	runs   map[sampleKey]*runSums
}

// NewSide returns an empty side; Add fills it.
func NewSide(label string) *Side {
	return &Side{Label: label, programs: map[string]*progSide{}}
}

// add merges one read capture and what its collector saw. Kernels whose
// program is out of range are ignored (the model check rules them out).
func (s *Side) add(c *capture.Capture, col *collector) {
	input := len(s.Captures)
	s.Captures = append(s.Captures, c)
	// cut holds, per program of c, the runs that did not complete: their
	// sums are partial, so they are not samples (they stay in the input's
	// accounting, as failed_program / incomplete_program gaps).
	cut := make([]map[int64]bool, len(c.Programs))
	for i, p := range c.Programs {
		ps := s.program(p.Name, c.ProgramClock(capture.ProgramID(i)))
		for _, run := range p.IncompleteRuns {
			if cut[i] == nil {
				cut[i] = map[int64]bool{}
			}
			if !cut[i][run] {
				cut[i][run] = true
				ps.leftOut = append(ps.leftOut, sampleKey{input, run})
				s.leftOut++
			}
		}
	}
	for kid, runs := range col.kernels {
		if runs == nil || kid >= len(c.Kernels) {
			continue
		}
		k := c.Kernels[kid]
		if int(k.Program) < 0 || int(k.Program) >= len(c.Programs) {
			continue
		}
		ps := s.programs[c.Programs[k.Program].Name]
		key := keyOf(k)
		if k.HasID && k.Resolved {
			if _, ok := ps.named[idKey(k)]; !ok {
				ps.named[idKey(k)] = key
			}
		}
		ks := ps.kernels[key]
		if ks == nil {
			ks = &kernSide{kernel: k, runs: map[sampleKey]*runSums{}}
			ps.kernels[key] = ks
			ps.korder = append(ps.korder, key)
		} else if k.Resolved && !ks.kernel.Resolved {
			ks.kernel = k // a later input names it
		}
		for run, sums := range runs {
			if cut[k.Program][run] {
				continue
			}
			sk := sampleKey{input, run}
			ps.runs[sk] = true
			if cur := ks.runs[sk]; cur != nil {
				cur.add(sums) // two kernels of one name in one program
			} else {
				v := *sums
				ks.runs[sk] = &v
			}
		}
	}
}

func (s *Side) program(name string, clock capture.Clock) *progSide {
	ps := s.programs[name]
	if ps == nil {
		ps = &progSide{name: name, clock: clock, runs: map[sampleKey]bool{}, kernels: map[kernelKey]*kernSide{}, named: map[kernelKey]kernelKey{}}
		s.programs[name] = ps
		s.order = append(s.order, name)
		return ps
	}
	if clock.Timed && ps.clock.Timed && clock.Unit != ps.clock.Unit {
		ps.mixedUnits = true
	}
	if !ps.clock.Timed {
		ps.clock = clock
	}
	return ps
}

// keys returns the program's samples in a stable order.
func (p *progSide) keys() []sampleKey {
	keys := make([]sampleKey, 0, len(p.runs))
	for k := range p.runs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].input != keys[j].input {
			return keys[i].input < keys[j].input
		}
		return keys[i].run < keys[j].run
	})
	return keys
}

// samples are one kernel's (or the whole program's) per-run values.
type samples struct {
	dispatches  []float64 // per run, 0 where the kernel did not run
	perRun      []float64 // device time per run
	perDispatch []float64 // singleTotal/single, only runs with single timed dispatches
	timed       int64     // dispatches with a device time
	untimed     int64
	aggregated  int64
}

// kernelSamples builds k's samples over the program's runs: a run in which
// the kernel did not run counts 0 dispatches and 0 time.
func kernelSamples(keys []sampleKey, k *kernSide) samples {
	var s samples
	for _, key := range keys {
		r := k.runs[key]
		if r == nil {
			r = &runSums{}
		}
		s.addRun(r)
	}
	return s
}

// programSamples sums every kernel per run.
func programSamples(keys []sampleKey, p *progSide) samples {
	var s samples
	for _, key := range keys {
		var r runSums
		for _, kk := range p.korder {
			if kr := p.kernels[kk].runs[key]; kr != nil {
				r.add(kr)
			}
		}
		s.addRun(&r)
	}
	return s
}

func (s *samples) addRun(r *runSums) {
	s.dispatches = append(s.dispatches, float64(r.dispatches))
	s.perRun = append(s.perRun, float64(r.total))
	if r.single > 0 {
		s.perDispatch = append(s.perDispatch, float64(r.singleTotal)/float64(r.single))
	}
	s.timed += r.timed
	s.untimed += r.dispatches - r.timed
	s.aggregated += r.aggregated
}
