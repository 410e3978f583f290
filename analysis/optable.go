package analysis

import (
	"math"
	"sort"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/perfmodel"
)

// OpOptions selects the op table's level and the peaks its roofline
// compares with.
type OpOptions struct {
	// Outer groups dispatches by the outermost host op around their launch
	// instead of the innermost (--op-level outer).
	Outer bool
	// Peaks overrides the peak figures the trace's device picks.
	Peaks perfmodel.Override
}

// OpTable is one capture's dispatches by host op: one row per op name, the
// device time no op could be attributed, and the device time no model
// covers, as figures. The table is per capture, not per program: an op
// launches kernels in every step, and its calls are counted once. Every
// timed dispatch is in exactly one of: a row with a model (Modelled), a
// row without one (Unmodelled), or under no op (Unattributed).
type OpTable struct {
	// Level is "inner" or "outer".
	Level string
	// Source says how the reader attributed dispatches (capture.OpSource);
	// "" when the format records no host ops: its programs and kernels
	// stand for the op, and every dispatch is unattributed.
	Source string
	// DeviceName is the accelerator the trace names (capture.OpDevice).
	DeviceName string
	// Unit is the unit of every device time here (the capture's clock);
	// rates are computed only when it is "ns".
	Unit string
	// Dispatches, Timed and Device cover every dispatch of the capture.
	Dispatches, Timed, Device int64
	// Unattributed is the dispatches whose launch lies under no op (or
	// whose launch call is not in the trace), with their costliest kernels.
	Unattributed OpFigures
	// NoLaunch is the part of Unattributed whose launch call is not in the
	// trace (link no-launch, the gpu_event_without_launch gap): the rest
	// was launched outside any recorded host op.
	NoLaunchDispatches, NoLaunch int64
	// Modelled is the device time of attributed dispatches whose op has a
	// cost model; Unmodelled the rest of the attributed device time, of
	// which NoShapes had no recorded shapes (record_shapes off) and
	// NoModel had shapes but an op outside the modelled families (or args
	// the formula does not fit).
	Modelled, Unmodelled, NoShapes, NoModel int64
	// Peaks names where the peak figures come from ("H100 SXM", "--peak-
	// tflops"); "" when no peak is known for the trace's device.
	Peaks string
	// Roofs are the distinct peak pairs the modelled signatures were
	// compared with, per dtype (the roofline chart's lines).
	Roofs []Roof
	Rows  []OpRow
}

// Roof is one dtype's peaks.
type Roof struct {
	DType        string
	TFLOPS, TBps float64
}

func (t *OpTable) addRoof(r Roof) {
	if r.TFLOPS <= 0 && r.TBps <= 0 {
		return
	}
	for _, o := range t.Roofs {
		if o == r {
			return
		}
	}
	t.Roofs = append(t.Roofs, r)
}

// OpFigures are counts and device time with the kernels behind them.
type OpFigures struct {
	Dispatches, Timed, Device int64
	// Kernels are every kernel behind the figures, costliest first.
	Kernels []OpKernel
}

// OpKernel is one kernel under an op.
type OpKernel struct {
	Name       string
	Dispatches int64
	Device     int64
}

// OpRow is one op name at the table's level.
type OpRow struct {
	Name string
	// Signatures counts the distinct call signatures (shapes, dtypes,
	// module path) of the name that launched dispatches.
	Signatures int
	// Calls counts the op's calls that launched at least one dispatch,
	// directly or through ops inside them; Host is their summed host
	// duration (ns), HostValid false when not recorded.
	Calls     int64
	Host      int64
	HostValid bool
	// GraphLaunches counts graph launches under the op's calls: their
	// kernels are attributed to it.
	GraphLaunches int64
	OpFigures
	// Share is Device over the table's Device.
	Share float64
	Roof  Roofline
	// Sigs are the modelled signatures, costliest first (not merged
	// across inputs).
	Sigs []OpSignature
}

// OpSignature is one modelled call signature of an op: its shapes, dtypes
// and concrete inputs, over every module path it ran under (Paths).
type OpSignature struct {
	Dims, Types, Concrete string
	Paths                 int
	Calls                 int64
	Device                int64
	Cost                  perfmodel.Cost // one call's
	Peak                  perfmodel.Peak
	Roof                  Roofline
}

// addSig adds a modelled signature, merged with one of the same shapes
// (the same call under another module path). Linear in the row's
// signatures: rows have few distinct shapes.
func (row *OpRow) addSig(s OpSignature) {
	for i := range row.Sigs {
		o := &row.Sigs[i]
		if o.Dims == s.Dims && o.Types == s.Types && o.Concrete == s.Concrete {
			o.Paths += s.Paths
			o.Calls = capture.SatAdd(o.Calls, s.Calls)
			o.Device = capture.SatAdd(o.Device, s.Device)
			o.Roof.add(&s.Roof)
			return
		}
	}
	row.Sigs = append(row.Sigs, s)
}

// Roofline is an op's modelled work against its device time, additive
// over signatures and inputs; the rates are derived (methods).
type Roofline struct {
	// Family is the cost model's family ("gemm", "attention", …), "mixed"
	// when signatures differ, "" when none is modelled.
	Family string
	// DType is the compute type, "mixed" when signatures differ.
	DType string
	// FLOPs over the device time FLOPsNS of the signatures with a FLOP
	// model; Bytes over BytesNS likewise.
	FLOPs, Bytes     float64
	FLOPsNS, BytesNS int64
	// Modelled, NoShapes, NoModel split the row's device time.
	Modelled, NoShapes, NoModel int64
	// Ideal is the time (ns) the modelled work takes at the roofline:
	// per signature max(FLOPs / peak FLOP/s, bytes / peak bandwidth);
	// ComputeIdeal and MemoryIdeal its two terms summed separately; PeakNS
	// the device time of the signatures whose peaks are known.
	Ideal, ComputeIdeal, MemoryIdeal float64
	PeakNS                           int64
}

// TFLOPS is the achieved TFLOP/s.
func (r *Roofline) TFLOPS() (float64, bool) {
	if r.FLOPsNS <= 0 || r.FLOPs <= 0 {
		return 0, false
	}
	return finiteRate(r.FLOPs / float64(r.FLOPsNS) / 1e3) // FLOP/ns = GFLOP/s
}

// TBps is the achieved TB/s (bytes moved at least, per device time).
func (r *Roofline) TBps() (float64, bool) {
	if r.BytesNS <= 0 || r.Bytes <= 0 {
		return 0, false
	}
	return finiteRate(r.Bytes / float64(r.BytesNS) / 1e3) // B/ns = GB/s
}

// Intensity is FLOPs per byte, over the signatures with both.
func (r *Roofline) Intensity() (float64, bool) {
	if r.FLOPs <= 0 || r.Bytes <= 0 || r.FLOPsNS != r.BytesNS {
		return 0, false
	}
	return finiteRate(r.FLOPs / r.Bytes)
}

// OfPeak is the fraction of the roofline achieved: the time the modelled
// work would take at the device's peaks over the time it took.
func (r *Roofline) OfPeak() (float64, bool) {
	if r.PeakNS <= 0 || r.Ideal <= 0 {
		return 0, false
	}
	return finiteRate(r.Ideal / float64(r.PeakNS))
}

// finiteRate is v when a report can print it: figures summed past
// float64's range (or a peak of 1e-300 TFLOP/s) have no rate, never an
// Inf that fails the JSON report.
func finiteRate(v float64) (float64, bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// Bound says which roof limits the op: "compute" or "memory"; "" unknown.
func (r *Roofline) Bound() string {
	switch {
	case r.PeakNS <= 0:
		return ""
	case r.ComputeIdeal >= r.MemoryIdeal:
		return "compute"
	}
	return "memory"
}

func (r *Roofline) add(o *Roofline) {
	r.Family = joinKind(r.Family, o.Family)
	r.DType = joinKind(r.DType, o.DType)
	r.FLOPs += o.FLOPs
	r.Bytes += o.Bytes
	r.FLOPsNS = capture.SatAdd(r.FLOPsNS, o.FLOPsNS)
	r.BytesNS = capture.SatAdd(r.BytesNS, o.BytesNS)
	r.Modelled = capture.SatAdd(r.Modelled, o.Modelled)
	r.NoShapes = capture.SatAdd(r.NoShapes, o.NoShapes)
	r.NoModel = capture.SatAdd(r.NoModel, o.NoModel)
	r.Ideal += o.Ideal
	r.ComputeIdeal += o.ComputeIdeal
	r.MemoryIdeal += o.MemoryIdeal
	r.PeakNS = capture.SatAdd(r.PeakNS, o.PeakNS)
}

func joinKind(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "" || a == b:
		return a
	}
	return "mixed"
}

// roofOf is one signature's roofline: its calls' modelled work over its
// device time at the given peaks.
func roofOf(cost perfmodel.Cost, calls, device int64, peak perfmodel.Peak) Roofline {
	r := Roofline{Family: cost.Family, DType: string(cost.DType), Modelled: device}
	n := float64(calls)
	if cost.HasFLOPs {
		r.FLOPs, r.FLOPsNS = cost.FLOPs*n, device
	}
	if cost.HasBytes {
		r.Bytes, r.BytesNS = cost.Bytes*n, device
	}
	// Ideal time in ns: FLOPs / (TFLOP/s · 1e3 FLOP/ns per TFLOP/s).
	known := false
	if cost.HasFLOPs && peak.TFLOPS > 0 {
		r.ComputeIdeal, known = r.FLOPs/(peak.TFLOPS*1e3), true
	}
	if cost.HasBytes && peak.TBps > 0 {
		r.MemoryIdeal, known = r.Bytes/(peak.TBps*1e3), true
	}
	if cost.HasFLOPs && peak.TFLOPS <= 0 {
		known = false // a compute-bound op without its compute peak is not placed
	}
	if math.IsInf(r.ComputeIdeal, 0) || math.IsInf(r.MemoryIdeal, 0) {
		known = false // a peak so small the ideal time overflows: not placed
	}
	if known {
		r.Ideal, r.PeakNS = max(r.ComputeIdeal, r.MemoryIdeal), device
	} else {
		r.ComputeIdeal, r.MemoryIdeal = 0, 0
	}
	return r
}

// Table builds capture c's op table from what the aggregator saw.
func (a *OpAggregator) Table(c *capture.Capture, opt OpOptions) *OpTable {
	lv := 0
	t := &OpTable{Level: "inner", Source: c.OpSource, DeviceName: c.OpDevice, Unit: c.Clock.Unit}
	if opt.Outer {
		lv, t.Level = 1, "outer"
	}
	l := &a.level[lv]
	ns := t.Unit == "ns" && c.Clock.Timed
	// Kernels per op, from the pairs.
	kerns := map[capture.OpID][]OpKernel{}
	for _, key := range l.order {
		p := l.pairs[key]
		op, k := capture.OpID(int32(key>>32)), int(uint32(key))
		name := "#" + itoa(k)
		if k < len(c.Kernels) {
			name = c.Kernels[k].Name
		}
		kerns[op] = append(kerns[op], OpKernel{Name: name, Dispatches: p.dispatches, Device: p.device})
	}
	rows := map[string]*OpRow{}
	var names []string
	peaksFrom := ""
	for id := range l.ops {
		s := &l.ops[id]
		if s.dispatches == 0 {
			continue
		}
		t.Dispatches = capture.SatAdd(t.Dispatches, s.dispatches)
		t.Timed = capture.SatAdd(t.Timed, s.timed)
		t.Device = capture.SatAdd(t.Device, s.device)
		o := c.Op(capture.OpID(id))
		if o == nil {
			f := &t.Unattributed
			f.Dispatches, f.Timed, f.Device = s.dispatches, s.timed, s.device
			f.Kernels = kerns[capture.OpID(id)]
			continue
		}
		row := rows[o.Name]
		if row == nil {
			row = &OpRow{Name: o.Name}
			rows[o.Name] = row
			names = append(names, o.Name)
		}
		row.Signatures++
		row.Calls = capture.SatAdd(row.Calls, o.Calls)
		row.Host = capture.SatAdd(row.Host, o.HostNS)
		row.HostValid = row.HostValid || o.HostValid
		row.GraphLaunches = capture.SatAdd(row.GraphLaunches, o.GraphLaunches)
		row.Dispatches = capture.SatAdd(row.Dispatches, s.dispatches)
		row.Timed = capture.SatAdd(row.Timed, s.timed)
		row.Device = capture.SatAdd(row.Device, s.device)
		row.Kernels = append(row.Kernels, kerns[capture.OpID(id)]...)
		cost, ok := perfmodel.Model(o.Name, o.Dims, o.Types, o.Concrete)
		switch {
		case ok && ns:
			peak := opt.Peaks.Resolve(c.OpDevice, cost.DType)
			if peak.From != "" {
				peaksFrom = peak.From
			}
			t.addRoof(Roof{DType: string(cost.DType), TFLOPS: peak.TFLOPS, TBps: peak.TBps})
			r := roofOf(cost, o.Calls, s.device, peak)
			row.Roof.add(&r)
			row.addSig(OpSignature{Dims: o.Dims, Types: o.Types, Concrete: o.Concrete, Paths: 1,
				Calls: o.Calls, Device: s.device, Cost: cost, Peak: peak, Roof: r})
		case ok:
			row.Roof.add(&Roofline{Family: cost.Family, Modelled: s.device})
		case o.Dims == "":
			row.Roof.NoShapes = capture.SatAdd(row.Roof.NoShapes, s.device)
		default:
			row.Roof.NoModel = capture.SatAdd(row.Roof.NoModel, s.device)
		}
	}
	t.Peaks = peaksFrom
	t.NoLaunchDispatches, t.NoLaunch = a.noLaunch.dispatches, a.noLaunch.device
	for _, n := range names {
		t.Rows = append(t.Rows, *rows[n])
	}
	t.finish()
	return t
}

// finish sums the model figures, merges each row's kernels by name and
// orders the kernels and the rows.
func (t *OpTable) finish() {
	t.Modelled, t.NoShapes, t.NoModel = 0, 0, 0
	for i := range t.Rows {
		r := &t.Rows[i]
		r.OpFigures.sortKernels()
		if t.Device > 0 {
			r.Share = float64(r.Device) / float64(t.Device)
		}
		t.Modelled = capture.SatAdd(t.Modelled, r.Roof.Modelled)
		t.NoShapes = capture.SatAdd(t.NoShapes, r.Roof.NoShapes)
		t.NoModel = capture.SatAdd(t.NoModel, r.Roof.NoModel)
		sort.SliceStable(r.Sigs, func(x, y int) bool { return r.Sigs[x].Device > r.Sigs[y].Device })
	}
	t.Unmodelled = capture.SatAdd(t.NoShapes, t.NoModel)
	t.Unattributed.sortKernels()
	sortCostliest(t.Rows, func(r *OpRow) (int64, int64, string) { return r.Device, r.Dispatches, r.Name })
}

// sortKernels merges kernels of one name (an op's signatures, or inputs)
// and orders them costliest first.
func (f *OpFigures) sortKernels() {
	if len(f.Kernels) == 0 {
		return
	}
	idx := map[string]int{}
	var out []OpKernel
	for _, k := range f.Kernels {
		if i, ok := idx[k.Name]; ok {
			out[i].Dispatches = capture.SatAdd(out[i].Dispatches, k.Dispatches)
			out[i].Device = capture.SatAdd(out[i].Device, k.Device)
			continue
		}
		idx[k.Name] = len(out)
		out = append(out, k)
	}
	sortCostliest(out, func(k *OpKernel) (int64, int64, string) { return k.Device, k.Dispatches, k.Name })
	f.Kernels = out
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// MergeOps merges the op tables of a run's inputs: rows by op name,
// kernels by name, every figure added. Signatures stay in each input's
// table. Nil tables (inputs not read) are passed over; nil when none.
func MergeOps(ts []*OpTable) *OpTable {
	var m *OpTable
	rows := map[string]int{}
	for _, t := range ts {
		if t == nil {
			continue
		}
		if m == nil {
			m = &OpTable{Level: t.Level, Source: t.Source, DeviceName: t.DeviceName, Unit: t.Unit, Peaks: t.Peaks}
		}
		if m.Source != t.Source {
			m.Source = "per input (see each input's section)"
		}
		if m.DeviceName != t.DeviceName {
			m.DeviceName = ""
		}
		if m.Unit != t.Unit {
			m.Unit = "" // no rates across clocks
		}
		if m.Peaks != t.Peaks {
			m.Peaks = "per input (see each input's section)"
		}
		m.Dispatches = capture.SatAdd(m.Dispatches, t.Dispatches)
		m.Timed = capture.SatAdd(m.Timed, t.Timed)
		m.Device = capture.SatAdd(m.Device, t.Device)
		m.Unattributed.add(&t.Unattributed)
		for _, r := range t.Roofs {
			m.addRoof(r)
		}
		m.NoLaunchDispatches = capture.SatAdd(m.NoLaunchDispatches, t.NoLaunchDispatches)
		m.NoLaunch = capture.SatAdd(m.NoLaunch, t.NoLaunch)
		for i := range t.Rows {
			r := &t.Rows[i]
			j, ok := rows[r.Name]
			if !ok {
				j = len(m.Rows)
				rows[r.Name] = j
				m.Rows = append(m.Rows, OpRow{Name: r.Name})
			}
			mr := &m.Rows[j]
			mr.Signatures += r.Signatures
			mr.Calls = capture.SatAdd(mr.Calls, r.Calls)
			mr.Host = capture.SatAdd(mr.Host, r.Host)
			mr.HostValid = mr.HostValid || r.HostValid
			mr.GraphLaunches = capture.SatAdd(mr.GraphLaunches, r.GraphLaunches)
			mr.OpFigures.add(&r.OpFigures)
			mr.Roof.add(&r.Roof)
		}
	}
	if m != nil {
		m.finish()
	}
	return m
}

func (f *OpFigures) add(o *OpFigures) {
	f.Dispatches = capture.SatAdd(f.Dispatches, o.Dispatches)
	f.Timed = capture.SatAdd(f.Timed, o.Timed)
	f.Device = capture.SatAdd(f.Device, o.Device)
	f.Kernels = append(f.Kernels, o.Kernels...)
}
