package nsys

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/sqlitein"
)

const (
	kernelTable  = "CUPTI_ACTIVITY_KIND_KERNEL"
	memcpyTable  = "CUPTI_ACTIVITY_KIND_MEMCPY"
	memsetTable  = "CUPTI_ACTIVITY_KIND_MEMSET"
	runtimeTable = "CUPTI_ACTIVITY_KIND_RUNTIME"
	graphTable   = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"
)

// categories, indexed by the cat column of the activity query.
var categories = []string{"kernel", "memcpy", "memset"}

// noKernelTable is the statement issue 11 asks for, word for word.
const noKernelTable = "no CUDA kernel activity in this export; with CUDA graphs, nsys records their kernels only with --cuda-graph-trace=node"

// sqlOnly makes the reader take the SQL path everywhere; tests compare
// the two paths with it.
var sqlOnly bool

// testHookDirect, when set, is told which tables the direct path read.
var testHookDirect func(merge, nvtx bool)

type reader struct {
	db   *sqlitein.DB
	sink capture.Sink
	c    *capture.Capture

	capture      [][2]string
	graphMode    string
	sessionStart int64
	hasSession   bool
	sessionCmp   bool  // compare times with sessionStart (same timeline: not normalised)
	ceiling      int64 // longest interval accepted as measured, ns

	nvtx     nvtxRanges
	ops      *nvtxOps         // host-op attribution, when asked (ops.go)
	direct   *plan            // the device and runtime tables are scanned directly (direct.go); nil: through SQL
	nvDirect bool             // NVTX_EVENTS was scanned directly
	names    map[int64]string // StringIds values of the ids used
	copyKind map[int64]string

	progs    map[int32]capture.ProgramID // by NVTX name index; -1 = outside
	progInst []int64                     // per kept NVTX range: its instance ordinal, -1 until used
	kernels  map[kkey]capture.KernelID
	queues   map[qkey]capture.QueueID
	qstate   []qstate
	byCat    [3]int64
	d        capture.Dispatch

	orphans     orphanStats
	unlaunched  map[string]*launchStats
	graphLaunch launchStats
	multi       struct{ launches, max int64 }
	decrease    int64
	untimed     int64
	early       early
	rows        *capture.InputCount
	rtRows      *capture.InputCount
}

type kkey struct {
	prog   capture.ProgramID
	cat    int8
	nameID int64
}

type qkey struct{ pid, dev, stream int64 }

type qstate struct{ lastCorr, lastStart int64 }

type orphanStats struct {
	n, ns      int64
	byCat      [3]int64
	first, end int64
}

type launchStats struct {
	n           int64
	first, last int64
}

func (r *reader) read() (*capture.Capture, error) {
	r.progs = map[int32]capture.ProgramID{}
	r.kernels = map[kkey]capture.KernelID{}
	r.queues = map[qkey]capture.QueueID{}
	r.unlaunched = map[string]*launchStats{}
	r.rows = r.c.Accounting.InputFor("activity rows")
	if err := r.meta(); err != nil {
		return nil, err
	}
	// The first pass of the direct scans runs while NVTX loads.
	var planErr error
	planned := make(chan struct{})
	go func() {
		defer close(planned)
		if !sqlOnly {
			r.direct, planErr = r.plan()
		}
	}()
	nvErr := r.loadNVTX()
	<-planned
	if nvErr != nil {
		return nil, nvErr
	}
	if planErr != nil {
		r.direct = nil // read through SQL, which states any damage as SQLite sees it
	}
	if testHookDirect != nil {
		testHookDirect(r.direct != nil, r.nvDirect)
	}
	if r.ops != nil {
		if err := r.nameOpRanges(); err != nil {
			return nil, err
		}
		r.ops.build()
	}
	r.progInst = make([]int64, len(r.nvtx.ranges))
	for i := range r.progInst {
		r.progInst[i] = -1
	}
	if err := r.loadNames(); err != nil {
		return nil, err
	}
	if err := r.merge(); err != nil {
		return nil, err
	}
	if err := r.graphTrace(); err != nil {
		return nil, err
	}
	if err := r.overhead(); err != nil {
		return nil, err
	}
	if r.ops != nil {
		r.finishOps()
	}
	r.gaps()
	r.earlyGap()
	r.inventory()
	if err := r.diagnostics(&r.c.Inventory[len(r.c.Inventory)-1]); err != nil {
		return nil, err
	}
	return r.c, nil
}

// strings looks ids up in StringIds (only the ids in use: the table can
// hold millions of strings).
//
// A value longer than capture.MaxName is cut here and counted once
// (long_name): the SQLite driver reads it whole (up to SQLite's own limit
// of 1e9 bytes a value), but the map keeps only the cut form.
func (r *reader) strings(ids []int64) (map[int64]string, error) {
	if !r.db.Has("StringIds") {
		return map[int64]string{}, nil
	}
	m, err := r.db.Strings("StringIds", "id", "value", ids)
	for id, v := range m {
		if cut, ok := capture.CutName(v); ok {
			r.c.Accounting.LongName(int64(len(v)), v[:min(len(v), 200)], "StringIds id "+itoa(id))
			m[id] = cut
		}
	}
	return m, err
}

func (r *reader) distinct(table, col string) ([]int64, error) {
	if !r.db.HasColumn(table, col) {
		return nil, nil
	}
	rows, err := r.db.Query(fmt.Sprintf(`SELECT DISTINCT %s FROM %s WHERE %s IS NOT NULL`, sqlitein.Quote(col), sqlitein.Quote(table), sqlitein.Quote(col)))
	if err != nil {
		return nil, r.db.QueryError(table, err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, r.db.QueryError(table, err)
		}
		out = append(out, v)
	}
	return out, r.db.RowsErr(table, rows)
}

func (r *reader) loadNames() error {
	var ids []int64
	if r.direct != nil {
		ids = r.direct.nameIDs // found by the first pass
	} else {
		k, err := r.distinct(kernelTable, "demangledName")
		if err != nil {
			return err
		}
		rt, err := r.distinct(runtimeTable, "nameId")
		if err != nil {
			return err
		}
		ids = append(k, rt...)
	}
	var err error
	if r.names, err = r.strings(uniq(ids)); err != nil {
		return err
	}
	r.copyKind = map[int64]string{}
	if r.db.HasColumn("ENUM_CUDA_MEMCPY_OPER", "label") {
		rows, err := r.db.Query(`SELECT id, label FROM ENUM_CUDA_MEMCPY_OPER`)
		if err != nil {
			return r.db.QueryError("ENUM_CUDA_MEMCPY_OPER", err)
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var l sql.NullString
			if err := rows.Scan(&id, &l); err != nil {
				return r.db.QueryError("ENUM_CUDA_MEMCPY_OPER", err)
			}
			r.copyKind[id] = l.String
		}
		return r.db.RowsErr("ENUM_CUDA_MEMCPY_OPER", rows)
	}
	return nil
}

// program returns the program for a launch on thread tid at ts (ok false:
// no launch known) and the dispatch's instance: the ordinal of its NVTX
// range among its program's ranges, 0 outside every range.
func (r *reader) program(tid, ts int64, ok bool) (capture.ProgramID, int64) {
	g := int32(-1)
	if ok {
		g = r.nvtx.set.Outermost(tid, ts)
	}
	key := int32(-1)
	if g >= 0 {
		key = r.nvtx.ranges[g]
	}
	p, seen := r.progs[key]
	if !seen {
		name := "(whole capture)"
		if r.nvtx.all > 0 {
			name = "(no NVTX range)"
		}
		if key >= 0 {
			name = r.nvtx.names[key]
		}
		p = r.c.AddProgram(capture.Program{Name: name})
		r.progs[key] = p
		if key < 0 {
			r.c.Programs[p].Instances = 1
		}
	}
	if g < 0 {
		return p, 0
	}
	if r.progInst[g] < 0 {
		r.progInst[g] = r.c.Programs[p].Instances
		r.c.Programs[p].Instances++
	}
	return p, r.progInst[g]
}

func (r *reader) queue(pid, dev, stream int64) capture.QueueID {
	k := qkey{pid, dev, stream}
	if q, ok := r.queues[k]; ok {
		return q
	}
	q := r.c.AddQueue(capture.Queue{Name: fmt.Sprintf("stream %d (pid %d)", stream, pidOf(pid<<24)), Device: fmt.Sprintf("GPU %d", dev)})
	r.queues[k] = q
	r.qstate = append(r.qstate, qstate{lastCorr: -1 << 63, lastStart: -1 << 63})
	return q
}

func (r *reader) kernel(p capture.ProgramID, cat int8, nameID int64, hasName bool) capture.KernelID {
	k := kkey{p, cat, nameID}
	if !hasName {
		k.nameID = -1 << 62
	}
	if id, ok := r.kernels[k]; ok {
		return id
	}
	var name string
	resolved := true
	switch cat {
	case 0:
		var found bool
		name, found = r.names[nameID]
		if !hasName || !found || name == "" {
			resolved = false
			name = r.c.Programs[p].Name + ":#" + itoa(nameID)
			if !hasName {
				name = r.c.Programs[p].Name + ":#?"
			}
			g := r.c.Accounting.Gap(capture.UnresolvedName, r.c.Programs[p].Name)
			g.Summary = "kernels whose name id is NULL or missing from StringIds (a pruned or partial export): shown by the id, never guessed"
			g.Add(capture.Item{What: "name id not in StringIds", Kernel: name})
		}
	case 1:
		name = "memcpy"
		if l := r.copyKind[nameID]; hasName && l != "" {
			name += " " + l
		} else if hasName {
			name += " kind " + itoa(nameID)
		}
	case 2:
		name = "memset"
	}
	id := r.c.AddKernel(capture.Kernel{Program: p, Name: name, ID: uint64(nameID), HasID: hasName && cat == 0, Resolved: resolved, Category: categories[cat]})
	r.kernels[k] = id
	return id
}

// trimVersion drops a call name's version suffix (`_v\d+$`, as in
// cudaLaunchKernel_v7000); written out, it runs once per unmatched runtime
// row and costs start-up nothing.
func trimVersion(name string) string {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	if i < len(name) && i >= 2 && name[i-2:i] == "_v" {
		return name[:i-2]
	}
	return name
}

// launchKind classifies a runtime/driver call by its name without the
// version suffix: "launch" for calls that put work on a stream, "graph"
// for graph launches, "" for the rest.
func launchKind(name string) string {
	n := trimVersion(name)
	switch {
	case strings.HasPrefix(n, "cudaGraphLaunch") || strings.HasPrefix(n, "cuGraphLaunch"):
		return "graph"
	case strings.Contains(n, "LaunchKernel") || strings.HasPrefix(n, "cudaLaunch") || strings.HasPrefix(n, "cuLaunch"),
		strings.HasPrefix(n, "cudaMemcpy") || strings.HasPrefix(n, "cuMemcpy"),
		strings.HasPrefix(n, "cudaMemset") || strings.HasPrefix(n, "cuMemset"):
		return "launch"
	}
	return ""
}
