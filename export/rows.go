package export

import (
	"github.com/tallyprof/tally/capture"
)

// DispatchRow is one row of the dispatch table (CSV, JSON Lines, Parquet
// dispatches/). A row is one dispatch, or one aggregated record standing
// for Dispatches dispatches known only by sums: its start and end are then
// null and DeviceNS is the sum. Times are integers in ns on the program's
// clock (programs table); null when not recorded, never 0 for "unknown".
// Columns are documented in docs/export.md; never rename one.
type DispatchRow struct {
	Rank    string `parquet:"rank,dict" json:"rank"`
	Input   int32  `parquet:"input" json:"input"`
	Program string `parquet:"program,dict" json:"program"`
	Run     *int64 `parquet:"run,optional" json:"run"`
	KernelColumns
	Queue   string `parquet:"queue,dict" json:"queue"`
	Device  string `parquet:"device,dict" json:"device"`
	Index   *int64 `parquet:"index,optional" json:"index"`
	Ordinal *int64 `parquet:"ordinal,optional" json:"ordinal"`
	// Dispatches is 1, or the count of an aggregated record.
	Dispatches    int64  `parquet:"dispatches" json:"dispatches"`
	StartNS       *int64 `parquet:"start_ns,optional" json:"start_ns"`
	EndNS         *int64 `parquet:"end_ns,optional" json:"end_ns"`
	DeviceNS      *int64 `parquet:"device_ns,optional" json:"device_ns"`
	LaunchStartNS *int64 `parquet:"launch_start_ns,optional" json:"launch_start_ns"`
	LaunchEndNS   *int64 `parquet:"launch_end_ns,optional" json:"launch_end_ns"`
	LaunchNS      *int64 `parquet:"launch_ns,optional" json:"launch_ns"`
	Link          string `parquet:"link,dict" json:"link"`
}

// fill sets r from dispatch d of input in. Pointers in r point into r's
// own storage (st), so a row is reused without allocating.
func (r *DispatchRow) fill(in *input, c *capture.Capture, d *capture.Dispatch, st *rowStore) {
	*r = DispatchRow{Rank: in.rankOf(c, d.Queue), Input: int32(in.Index), Dispatches: d.Count(), Link: d.Link.String()}
	if int(d.Program) >= 0 && int(d.Program) < len(c.Programs) {
		r.Program = c.Programs[d.Program].Name
	}
	if int(d.Kernel) >= 0 && int(d.Kernel) < len(c.Kernels) {
		r.KernelColumns.set(&c.Kernels[d.Kernel], &st.kid)
	}
	if d.List != "" {
		r.List = d.List
	}
	if d.Queue >= 0 && int(d.Queue) < len(c.Queues) {
		r.Queue, r.Device = c.Queues[d.Queue].Name, c.Queues[d.Queue].Device
	}
	r.Run = st.opt(0, d.Instance, d.Instance >= 0)
	r.Index = st.opt(1, d.Index, d.Index >= 0)
	r.Ordinal = st.opt(2, d.Ordinal, d.Ordinal >= 0)
	if ag := d.Aggregate; ag != nil {
		r.DeviceNS = st.opt(3, ag.Device, ag.DeviceValid)
		r.LaunchNS = st.opt(4, ag.Launch, ag.LaunchValid)
		return
	}
	if d.Device.Valid {
		r.StartNS = st.opt(5, d.Device.Begin, true)
		r.EndNS = st.opt(6, d.Device.End, true)
		r.DeviceNS = st.opt(3, d.Device.End-d.Device.Begin, true)
	}
	if d.Launch.Valid {
		r.LaunchStartNS = st.opt(7, d.Launch.Begin, true)
		r.LaunchEndNS = st.opt(8, d.Launch.End, true)
		r.LaunchNS = st.opt(4, d.Launch.End-d.Launch.Begin, true)
	}
}

// rowStore holds the values a row's optional fields point to.
type rowStore struct {
	v   [9]int64
	kid uint64
}

func (s *rowStore) opt(i int, v int64, ok bool) *int64 {
	if !ok {
		return nil
	}
	s.v[i] = v
	return &s.v[i]
}

// KernelColumns are the kernel of a dispatch row or a kernel row: its name
// (program:#id when its program's catalog does not name it), its id when
// it has one, whether a catalog named it, its category and its list. Both
// rows embed it, so the five columns stand in one order in every table.
type KernelColumns struct {
	Kernel   string  `parquet:"kernel,dict" json:"kernel"`
	KernelID *uint64 `parquet:"kernel_id,optional" json:"kernel_id"`
	Resolved bool    `parquet:"resolved" json:"resolved"`
	Category string  `parquet:"category,dict" json:"category"`
	List     string  `parquet:"list,dict" json:"list"`
}

// set fills the columns from k; id is the storage KernelID points to when
// k has an id (a dispatch row's own, so a reused row does not allocate).
func (kc *KernelColumns) set(k *capture.Kernel, id *uint64) {
	*kc = KernelColumns{Kernel: k.Name, Resolved: k.Resolved, Category: k.Category, List: k.List}
	if k.HasID {
		*id = k.ID
		kc.KernelID = id
	}
}

// KernelRow is one kernel of one program of one rank of one input (CSV/JSON
// Lines with --per-kernel, Parquet kernels table): an input holding several
// ranks has a row per rank the kernel ran on, with that rank's sums. Min and max are null when any of
// its dispatches came in an aggregated record (a minimum cannot be computed
// from sums) or none was timed.
type KernelRow struct {
	Rank    string `parquet:"rank,dict" json:"rank"`
	Input   int32  `parquet:"input" json:"input"`
	Program string `parquet:"program,dict" json:"program"`
	KernelColumns
	Dispatches  int64   `parquet:"dispatches" json:"dispatches"`
	Timed       int64   `parquet:"timed" json:"timed"`
	Aggregated  int64   `parquet:"aggregated" json:"aggregated"`
	DeviceNS    *int64  `parquet:"device_ns,optional" json:"device_ns"`
	MinNS       *int64  `parquet:"min_ns,optional" json:"min_ns"`
	MaxNS       *int64  `parquet:"max_ns,optional" json:"max_ns"`
	Launched    int64   `parquet:"launched" json:"launched"`
	LaunchNS    *int64  `parquet:"launch_ns,optional" json:"launch_ns"`
	ShareOfProg float64 `parquet:"share" json:"share"`
}

// kernelRows lists input in's kernel table rows: by rank, then in table
// order (rankPrograms).
func kernelRows(in *input) []KernelRow {
	var rows []KernelRow
	for _, rp := range in.rankPrograms() {
		pt := rp.pt
		ns := pt.Clock.Unit == "ns"
		for _, k := range pt.Kernels {
			r := KernelRow{Rank: rp.rank, Input: int32(in.Index), Program: pt.Program.Name,
				Dispatches: k.Dispatches, Timed: k.Timed, Aggregated: k.Aggregated, Launched: k.Launched}
			r.KernelColumns.set(&k.Kernel, new(uint64))
			if k.Timed > 0 {
				// A share is unit-free: a ticks program's too.
				r.ShareOfProg = k.Share
			}
			if ns && k.Timed > 0 {
				r.DeviceNS = i64(k.Total)
				if k.MinMaxKnown {
					r.MinNS, r.MaxNS = i64(k.Min), i64(k.Max)
				}
			}
			if ns && k.Launched > 0 {
				r.LaunchNS = i64(k.LaunchTotal)
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// ProgramRow is one program of one rank of one input (Parquet programs
// table). Dispatches, Timed and DeviceNS are the rank's; Runs, RunsStates,
// the clock and Gaps are the program's over the whole input (the model
// does not split runs or gaps by rank), repeated on each of its ranks' rows.
type ProgramRow struct {
	Rank        string `parquet:"rank,dict" json:"rank"`
	Input       int32  `parquet:"input" json:"input"`
	Program     string `parquet:"program,dict" json:"program"`
	Runs        int64  `parquet:"runs" json:"runs"`
	RunsStates  string `parquet:"run_states" json:"run_states"`
	Dispatches  int64  `parquet:"dispatches" json:"dispatches"`
	Timed       int64  `parquet:"timed" json:"timed"`
	DeviceNS    *int64 `parquet:"device_ns,optional" json:"device_ns"`
	ClockDomain string `parquet:"clock_domain,dict" json:"clock_domain"`
	ClockUnit   string `parquet:"clock_unit,dict" json:"clock_unit"`
	Gaps        int64  `parquet:"gaps" json:"gaps"`
}

func programRows(in *input) []ProgramRow {
	var rows []ProgramRow
	c := in.Capture
	for _, rp := range in.rankPrograms() {
		pt := rp.pt
		r := ProgramRow{Rank: rp.rank, Input: int32(in.Index), Program: pt.Program.Name,
			Runs: pt.Program.Instances, Dispatches: pt.Dispatches, Timed: pt.Timed,
			ClockDomain: pt.Clock.Domain, ClockUnit: pt.Clock.Unit}
		for i, s := range pt.Program.InstanceStates {
			if i > 0 {
				r.RunsStates += " "
			}
			r.RunsStates += s.Name + "=" + itoa(s.Count)
		}
		if pt.Clock.Unit == "ns" && pt.Timed > 0 {
			r.DeviceNS = i64(pt.Total)
		}
		for _, g := range c.Accounting.Gaps {
			if g.Program == pt.Program.Name && !g.Note {
				r.Gaps = capture.SatAdd(r.Gaps, g.Count)
			}
		}
		rows = append(rows, r)
	}
	return rows
}

func i64(v int64) *int64 { return &v }
