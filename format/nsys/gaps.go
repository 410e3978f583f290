package nsys

import (
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/units"
)

// graphTrace counts whole-graph executions (CUDA graphs traced as a unit:
// their kernels are not in the kernel table).
func (r *reader) graphTrace() error {
	if !r.db.Has(graphTable) || !r.db.HasColumn(graphTable, "start") {
		return nil
	}
	var n, ns sql.NullInt64
	if err := r.db.QueryRow(`SELECT count(*), sum("end" - start) FROM `+graphTable).Scan(&n, &ns); err != nil {
		return r.db.QueryError(graphTable, err)
	}
	if n.Int64 == 0 {
		return nil
	}
	g := r.c.Accounting.Gap(capture.GraphKernelsUntraced, "")
	g.SetFigure("graph_executions", n.Int64)
	g.SetFigure("graph_gpu_ns", ns.Int64)
	return nil
}

func (r *reader) gaps() {
	a := &r.c.Accounting
	if !r.db.Has(kernelTable) || r.byCat[0] == 0 {
		g := a.Gap(capture.EmptyCapture, "")
		g.Summary = noKernelTable
		what := "the export has no " + kernelTable + " table (nsys creates a table only when it has rows)"
		if r.db.Has(kernelTable) {
			what = "the " + kernelTable + " table has no usable rows"
		}
		var traced []string
		for _, p := range r.capture {
			if p[0] == "CAPTURE_EVENT_TYPE" {
				traced = append(traced, p[1])
			}
		}
		if len(traced) > 0 {
			what += "; the capture traced " + strings.Join(traced, ", ")
		}
		if !r.db.Has("META_DATA_EXPORT") && !r.db.Has("StringIds") {
			what += "; this SQLite database has no nsys export tables (META_DATA_EXPORT, StringIds) at all: is it an Nsight Systems export?"
		}
		g.Add(capture.Item{What: what})
	}
	if r.graphLaunch.n > 0 || a.Find(capture.GraphKernelsUntraced) != nil {
		g := a.Gap(capture.GraphKernelsUntraced, "")
		mode := ""
		if r.graphMode != "" {
			mode = " (graph trace mode " + r.graphMode + ")"
		}
		g.Summary = "CUDA graph launches whose kernels are not in the export" + mode + ": nsys traced each graph as a whole, so its kernels are missing from the tables; record with --cuda-graph-trace=node"
		if r.graphLaunch.n > 0 {
			g.SetFigure("graph_launches", r.graphLaunch.n)
			g.Add(capture.Item{What: fmt.Sprintf("%d cudaGraphLaunch calls without kernels, first at %d ns", r.graphLaunch.n, r.graphLaunch.first), Time: capture.TimeOf(r.graphLaunch.first)})
			g.Count = r.graphLaunch.n
			r.rtRows.Lose(g, "graph launch whose kernels are not in the export", r.graphLaunch.n, "")
		}
		if n, ok := g.Figure("graph_executions"); ok && g.Count == 0 {
			g.Count = n
		}
	}
	if r.orphans.n > 0 {
		g := a.Gap(capture.GPUEventWithoutLaunch, "")
		g.AddN(r.orphans.n)
		g.Summary = "device work with no runtime/driver call of the same correlation id in the same process: it is in the tables, under no NVTX range (the launch fell outside the export's window, or API tracing skipped it)"
		g.SetFigure("total_ns", r.orphans.ns)
		for i, n := range r.orphans.byCat {
			if n > 0 {
				g.SetFigure(categories[i], n)
			}
		}
		g.Add(capture.Item{What: fmt.Sprintf("%d device rows between %d and %d ns", r.orphans.n, r.orphans.first, r.orphans.end), Time: capture.TimeOf(r.orphans.first)})
		g.Count = r.orphans.n
	}
	if len(r.unlaunched) > 0 {
		g := a.Gap(capture.LaunchWithoutGPUEvent, "")
		g.Summary = "launch, copy and set calls with no device row of the same correlation id: the work ran after the export's end or window, or was never executed"
		names := slices.Sorted(maps.Keys(r.unlaunched))
		for _, n := range names {
			st := r.unlaunched[n]
			g.Count += st.n - 1
			g.Add(capture.Item{What: fmt.Sprintf("%s between %d and %d ns", units.Plural(int64(st.n), "call", "calls"), st.first, st.last), Kernel: n, Time: capture.TimeOf(st.first)})
			r.rtRows.Lose(g, "launch without GPU work in the export", st.n, "")
		}
	}
	if r.multi.launches > 0 {
		g := a.Gap(capture.GraphLaunch, "")
		g.AddN(r.multi.launches)
		g.Summary = "launches with several kernels under one correlation id (CUDA graphs traced with --cuda-graph-trace=node): each kernel is in the tables, linked to the graph's launch"
		g.SetFigure("max_kernels_per_launch", r.multi.max)
	}
	if r.decrease > 0 {
		g := a.Gap(capture.ClockDecrease, "")
		g.AddN(r.decrease)
		g.Summary = "device rows that start before a row launched earlier on the same stream: a stream runs its work in launch order, so these timestamps are out of order (GPU-to-host clock mapping, or a writer that reordered rows)"
	}
	if r.untimed > 0 {
		g := a.Gap(capture.UntimedInput, "")
		g.AddN(r.untimed)
		g.Summary = "device rows with start = end = 0: CUPTI could not time them; in the tables with an unknown duration, never as 0 ns"
	}
	if r.nvtx.read > 0 {
		nv := r.c.Accounting.InputFor("NVTX rows")
		nv.Read = r.nvtx.read
		nv.Used = r.nvtx.all
		nv.Ignore("marks, domain rows and ranges without an end", r.nvtx.marks, "") // host annotations
	}
}
