package diff

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/tallyprof/tally/capture"
)

// Status says on which sides a program or kernel was found.
type Status string

const (
	Matched Status = "matched" // on both sides
	Added   Status = "added"   // only on side B
	Removed Status = "removed" // only on side A
)

// Result is a comparison of two sides, program by program. Rows never
// compare one program's kernel with another program's.
type Result struct {
	A, B *Side
	// Notes are header remarks about how the sides differ (clocks).
	Notes    []string
	Programs []Program
}

// Program is one program's comparison.
type Program struct {
	Name   string
	Status Status
	// RunsA and RunsB count the samples (runs) of each side.
	RunsA, RunsB int
	// LeftOutA and LeftOutB count the runs of each side left out of the
	// samples because they failed or never ended (partial sums).
	LeftOutA, LeftOutB int
	// ClockA and ClockB are the program's clock on each side.
	ClockA, ClockB *capture.Clock
	// Unit of every compared time; "" when times are not compared.
	Unit string
	// TimeRefused says why times are not compared ("" when they are).
	TimeRefused string
	// UntimedA and UntimedB count dispatches without a device time (in
	// the counts, not in the times).
	UntimedA, UntimedB int64
	Dispatches         Metric // dispatches per run
	Total              Metric // device time per run
	Kernels            []Kernel
	// GapsA and GapsB are the gaps each side scopes to this program.
	GapsA, GapsB []*capture.Gap
}

// Kernel is one kernel's comparison within its program.
type Kernel struct {
	Name, List, Category string
	Status               Status
	Dispatches           Metric // dispatches per run
	PerDispatch          Metric // time per single dispatch, per run
	PerRun               Metric // device time per run (aggregated sums included)
	// AggregatedA and AggregatedB count dispatches known only through
	// aggregated records: in the counts and totals, never per dispatch.
	AggregatedA, AggregatedB int64
	// GapsA and GapsB are the kinds of the program's gaps whose listed
	// items name this kernel on that side (e.g. an unfinished dispatch of
	// it): the row is missing what they describe.
	GapsA, GapsB []capture.Kind
	// anonymous: no side's catalog names the kernel; Name is its label
	// (program:#id), which says what an unresolved_name tag would.
	anonymous bool
}

// TimeMetric is the kernel's speed: time per dispatch, or time per run
// when a side has no single timed dispatch (aggregated records only).
func (k *Kernel) TimeMetric() *Metric {
	if k.PerDispatch.Compared {
		return &k.PerDispatch
	}
	if k.Dispatches.Changed() {
		return &Metric{} // per-run time follows the count: not a speed
	}
	return &k.PerRun
}

// Changes names what changed: "added", "removed", "more dispatches",
// "fewer dispatches", "slower", "faster"; empty when nothing did
// significantly.
func (k *Kernel) Changes() []string {
	switch k.Status {
	case Added:
		return []string{"added"}
	case Removed:
		return []string{"removed"}
	}
	var out []string
	if d := &k.Dispatches; d.Changed() {
		out = append(out, direction(d, "more dispatches", "fewer dispatches"))
	}
	if t := k.TimeMetric(); t.Changed() {
		out = append(out, direction(t, "slower", "faster"))
	}
	return out
}

// Changes names what changed in the whole program: "more dispatches",
// "fewer dispatches" per run, "slower", "faster" in time per run.
func (p *Program) Changes() []string {
	if p.Status != Matched {
		return nil
	}
	var out []string
	if d := &p.Dispatches; d.Changed() {
		out = append(out, direction(d, "more dispatches", "fewer dispatches"))
	}
	if t := &p.Total; t.Changed() {
		out = append(out, direction(t, "slower", "faster"))
	}
	return out
}

func direction(m *Metric, up, down string) string {
	if m.B.Center > m.A.Center {
		return up
	}
	return down
}

// compareSides builds the result.
func compareSides(a, b *Side) *Result {
	r := &Result{A: a, B: b}
	names := append([]string(nil), a.order...)
	for _, n := range b.order {
		if a.programs[n] == nil {
			names = append(names, n)
		}
	}
	for _, n := range names {
		r.Programs = append(r.Programs, compareProgram(n, a, b))
	}
	r.Notes = clockNotes(a, b)
	missingRanks(a, b)
	r.Notes = append(r.Notes, rankNote(a, b)...)
	return r
}

func compareProgram(name string, a, b *Side) Program {
	pa, pb := a.programs[name], b.programs[name]
	p := Program{Name: name, Status: Matched}
	switch {
	case pa == nil:
		p.Status = Added
	case pb == nil:
		p.Status = Removed
	}
	var keysA, keysB []sampleKey
	var sa, sb samples
	if pa != nil {
		keysA = pa.keys()
		sa = programSamples(keysA, pa)
		p.RunsA, p.UntimedA, p.ClockA, p.LeftOutA = len(keysA), sa.untimed, &pa.clock, len(pa.leftOut)
		p.GapsA = scopedGaps(a, name)
	}
	if pb != nil {
		keysB = pb.keys()
		sb = programSamples(keysB, pb)
		p.RunsB, p.UntimedB, p.ClockB, p.LeftOutB = len(keysB), sb.untimed, &pb.clock, len(pb.leftOut)
		p.GapsB = scopedGaps(b, name)
	}
	p.TimeRefused = timeRefusal(pa, pb)
	timed := p.TimeRefused == ""
	if timed {
		if pa != nil {
			p.Unit = pa.clock.Unit
		} else {
			p.Unit = pb.clock.Unit
		}
	}
	p.Dispatches = compare(sa.dispatches, sb.dispatches, true)
	if timed {
		p.Total = compare(timesOf(sa.perRun, sa.timed), timesOf(sb.perRun, sb.timed), false)
	}

	pa, pb = alias(pa, pb), alias(pb, pa)
	keys := kernelKeys(pa, pb)
	for _, kk := range keys {
		var ka, kb *kernSide
		if pa != nil {
			ka = pa.kernels[kk]
		}
		if pb != nil {
			kb = pb.kernels[kk]
		}
		k := Kernel{Name: kernelName(ka, kb), List: kk.list, Status: Matched,
			anonymous: (ka == nil || !ka.kernel.Resolved) && (kb == nil || !kb.kernel.Resolved)}
		var ksa, ksb samples
		switch {
		case ka == nil:
			k.Status = Added
		case kb == nil:
			k.Status = Removed
		}
		if ka != nil {
			k.Category = ka.kernel.Category
			ksa = kernelSamples(keysA, ka)
			k.GapsA = kernelGaps(p.GapsA, pa, ka.kernel.Name)
		}
		if kb != nil {
			if k.Category == "" {
				k.Category = kb.kernel.Category
			}
			ksb = kernelSamples(keysB, kb)
			k.GapsB = kernelGaps(p.GapsB, pb, kb.kernel.Name)
		}
		k.AggregatedA, k.AggregatedB = ksa.aggregated, ksb.aggregated
		k.Dispatches = compare(ksa.dispatches, ksb.dispatches, true)
		if timed {
			k.PerDispatch = compare(ksa.perDispatch, ksb.perDispatch, false)
			k.PerRun = compare(timesOf(ksa.perRun, ksa.timed), timesOf(ksb.perRun, ksb.timed), false)
		}
		p.Kernels = append(p.Kernels, k)
	}
	sortKernels(p.Kernels)
	return p
}

// kernelName is the kernel's display name: a catalog name from either
// side before an anonymous label.
func kernelName(ka, kb *kernSide) string {
	switch {
	case ka == nil:
		return kb.kernel.Name
	case kb == nil || ka.kernel.Resolved || !kb.kernel.Resolved:
		return ka.kernel.Name
	}
	return kb.kernel.Name
}

// timesOf drops a side's time samples when none of its dispatches had a
// time: its zeros are "unknown", not "instant".
func timesOf(v []float64, timed int64) []float64 {
	if timed == 0 {
		return nil
	}
	return v
}

// timeRefusal says why a program's times cannot be compared, or "".
func timeRefusal(pa, pb *progSide) string {
	for _, s := range []struct {
		label string
		p     *progSide
	}{{"A", pa}, {"B", pb}} {
		if s.p == nil {
			continue
		}
		if s.p.mixedUnits {
			return fmt.Sprintf("side %s's inputs time this program in different units", s.label)
		}
		if !s.p.clock.Timed {
			return fmt.Sprintf("side %s's input carries no times", s.label)
		}
	}
	if pa == nil || pb == nil {
		return ""
	}
	ca, cb := pa.clock, pb.clock
	if ca.Unit != cb.Unit {
		return fmt.Sprintf("A is timed in %s and B in %s: times on different clocks are not comparable", unitWord(ca.Unit), unitWord(cb.Unit))
	}
	if ca.Unit != "ns" && ca.Domain != cb.Domain {
		return fmt.Sprintf("A's ticks are on the %q clock and B's on %q: tick rates may differ", ca.Domain, cb.Domain)
	}
	return ""
}

func unitWord(u string) string {
	if u == "" {
		return "no unit"
	}
	return u
}

// alias returns p with each anonymous kernel that other names (by the
// same id) keyed by other's name, so the label and the name are one row;
// p itself is not changed. A kernel p also names itself stays apart.
func alias(p, other *progSide) *progSide {
	if p == nil || other == nil || len(other.named) == 0 {
		return p
	}
	q := p
	for i, kk := range p.korder {
		nk, ok := other.named[kk]
		if !ok || q.kernels[nk] != nil {
			continue
		}
		if q == p {
			c := *p
			c.kernels, c.korder = maps.Clone(p.kernels), slices.Clone(p.korder)
			q = &c
		}
		q.kernels[nk] = q.kernels[kk]
		delete(q.kernels, kk)
		q.korder[i] = nk
	}
	return q
}

// kernelKeys lists A's kernels then B's new ones, in first-seen order.
func kernelKeys(pa, pb *progSide) []kernelKey {
	var keys []kernelKey
	seen := map[kernelKey]bool{}
	for _, p := range []*progSide{pa, pb} {
		if p == nil {
			continue
		}
		for _, k := range p.korder {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// sortKernels orders rows by cost: the larger median time per run of
// the two sides, then dispatches, then name.
func sortKernels(ks []Kernel) {
	cost := func(k *Kernel) (float64, float64) {
		var t, d float64
		for _, s := range []*Summary{k.PerRun.A, k.PerRun.B} {
			if s != nil && s.Center > t {
				t = s.Center
			}
		}
		for _, s := range []*Summary{k.Dispatches.A, k.Dispatches.B} {
			if s != nil && s.Center > d {
				d = s.Center
			}
		}
		return t, d
	}
	sort.SliceStable(ks, func(i, j int) bool {
		ti, di := cost(&ks[i])
		tj, dj := cost(&ks[j])
		if ti != tj {
			return ti > tj
		}
		if di != dj {
			return di > dj
		}
		if ks[i].Name != ks[j].Name {
			return ks[i].Name < ks[j].Name
		}
		return ks[i].List < ks[j].List
	})
}

// scopedGaps are the gaps of side s's inputs scoped to program name.
func scopedGaps(s *Side, name string) []*capture.Gap {
	var out []*capture.Gap
	for _, c := range s.Captures {
		for _, g := range c.Accounting.Gaps {
			if g.Program == name && g.Count > 0 {
				out = append(out, g)
			}
		}
	}
	return out
}

// kernelGaps are the kinds among gaps with an item naming kernel, each
// once however many of the side's inputs have it. Items
// name kernels, not lists: when the name is on several of the program's
// rows (hrx init and main lists), the gap stays at the program level
// rather than be pinned on the wrong row.
func kernelGaps(gaps []*capture.Gap, p *progSide, kernel string) []capture.Kind {
	rows := 0
	for _, ks := range p.kernels {
		if ks.kernel.Name == kernel {
			rows++
		}
	}
	if rows != 1 {
		return nil
	}
	var out []capture.Kind
	for _, g := range gaps {
		if slices.Contains(out, g.Kind) {
			continue // the same kind from another input: one entry
		}
		for _, it := range g.Items {
			if it.Kernel == kernel {
				out = append(out, g.Kind)
				break
			}
		}
	}
	return out
}

// clockNotes states how the sides' clocks differ.
func clockNotes(a, b *Side) []string {
	da, db := clockSet(a), clockSet(b)
	if da == db {
		return nil
	}
	return []string{fmt.Sprintf("clocks differ: A %s; B %s. Durations in ns are compared across clock domains; ticks and ns, or ticks of different clocks, are not", da, db)}
}

func clockSet(s *Side) string {
	var parts []string
	seen := map[string]bool{}
	for _, c := range s.Captures {
		for i := range c.Programs {
			if k := clockWords(c.ProgramClock(capture.ProgramID(i))); !seen[k] {
				seen[k] = true
				parts = append(parts, k)
			}
		}
		if len(c.Programs) == 0 {
			if k := clockWords(c.Clock); !seen[k] {
				seen[k] = true
				parts = append(parts, k)
			}
		}
	}
	sort.Strings(parts)
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += ", "
		}
		out += p
	}
	return out
}

func clockWords(k capture.Clock) string {
	if !k.Timed {
		return "untimed"
	}
	return k.Unit + " on the " + k.Domain + " clock"
}
