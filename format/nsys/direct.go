package nsys

import (
	"cmp"
	"database/sql"
	"slices"
	"sync"

	"github.com/tallyprof/tally/format/internal/sqlitein"
)

// The device and runtime tables are read by direct scans of their B-trees
// (sqlitein.Scanner) rather than through SQL's ORDER BY, which sorts every
// row in modernc.org/sqlite: the plan below yields the same rows in the
// same order as activityQuery and the runtime query, so the merge cannot
// tell them apart. A first pass over each table finds its processes and
// checks that each process's rows are nearly in order (windowCheck); the
// second scans each table once per process, sorts through a window, and
// merges. Anything the scanner leaves to SQL, a damaged page, more
// processes than maxPids or rows too far out of order, and the reader
// takes the SQL path instead — before it has used a single row.

// maxPids bounds the per-process scans of the second pass; beyond it a
// table is sorted by SQL.
const maxPids = 16

// pidKey is a process as the sort key sees it: NULL sorts first.
type pidKey struct {
	valid bool
	pid   int64
}

func cmpPid(a, b pidKey) int {
	if a.valid != b.valid {
		if a.valid {
			return 1
		}
		return -1
	}
	return cmp.Compare(a.pid, b.pid)
}

// arow is a device row as scanned: v holds s, e, dev, stream, corr, gpid,
// name, grid (0 when NULL; bit i of null set).
type arow struct {
	v    [8]int64
	null uint8
	cat  int8
}

const (
	aS, aE, aDev, aStream, aCorr, aGpid, aName, aGrid = 0, 1, 2, 3, 4, 5, 6, 7
)

func (a *arow) pid() pidKey {
	if a.null&(1<<aGpid) != 0 {
		return pidKey{}
	}
	return pidKey{true, a.v[aGpid] >> 24}
}

// cmpNull compares two nullable integers, NULL first (SQLite's order).
func cmpNull(a, b int64, an, bn bool) int {
	if an || bn {
		switch {
		case an && bn:
			return 0
		case an:
			return -1
		}
		return 1
	}
	return cmp.Compare(a, b)
}

// cmpArow is activityQuery's ORDER BY: (gpid >> 24), corr, s, e, cat, dev,
// stream, name, grid, gpid.
func cmpArow(a, b *arow) int {
	if c := cmpPid(a.pid(), b.pid()); c != 0 {
		return c
	}
	col := func(i int) int { return cmpNull(a.v[i], b.v[i], a.null&(1<<i) != 0, b.null&(1<<i) != 0) }
	if c := col(aCorr); c != 0 {
		return c
	}
	if c := col(aS); c != 0 {
		return c
	}
	if c := col(aE); c != 0 {
		return c
	}
	if c := cmp.Compare(a.cat, b.cat); c != 0 {
		return c
	}
	for _, i := range [...]int{aDev, aStream, aName, aGrid, aGpid} {
		if c := col(i); c != 0 {
			return c
		}
	}
	return 0
}

// activity converts to the merge's row.
func (a *arow) activity(out *activity) {
	n := func(i int) sql.NullInt64 { return sql.NullInt64{Int64: a.v[i], Valid: a.null&(1<<i) == 0} }
	out.cat = a.cat
	out.s, out.e, out.dev, out.stream = n(aS), n(aE), n(aDev), n(aStream)
	out.corr, out.gpid, out.name, out.grid = n(aCorr), n(aGpid), n(aName), n(aGrid)
}

// rrow is a runtime row as scanned.
type rrow struct {
	tid, corr, start, end, name, rowid int64
	null                               uint8 // rNull* bits
}

const (
	rNullTid = 1 << iota
	rNullCorr
	rNullStart
	rNullEnd
	rNullName
)

func (r *rrow) pid() pidKey {
	if r.null&rNullTid != 0 {
		return pidKey{}
	}
	return pidKey{true, r.tid >> 24}
}

// cmpRrow is the runtime query's ORDER BY (globalTid >> 24),
// correlationId; rows equal in both (SQL leaves them in any order) stay in
// file order.
func cmpRrow(a, b *rrow) int {
	if c := cmpPid(a.pid(), b.pid()); c != 0 {
		return c
	}
	if c := cmpNull(a.corr, b.corr, a.null&rNullCorr != 0, b.null&rNullCorr != 0); c != 0 {
		return c
	}
	return cmp.Compare(a.rowid, b.rowid)
}

// scanSpec is one table as the direct path reads it.
type scanSpec struct {
	table string
	cat   int8
	cols  []string
}

// activitySpecs are activityQuery's tables; a table the query leaves out
// for lack of a time column is left to SQL altogether (loadNames still
// reads its names).
func (r *reader) activitySpecs() ([]scanSpec, error) {
	var out []scanSpec
	for cat, t := range []string{kernelTable, memcpyTable, memsetTable} {
		if !r.db.Has(t) {
			continue
		}
		if !r.db.HasColumn(t, "start") || !r.db.HasColumn(t, "end") {
			return nil, &sqlitein.Unsupported{Why: t + " lacks a time column"}
		}
		name, grid := "", ""
		switch cat {
		case 0:
			name, grid = "demangledName", "gridId"
		case 1:
			name = "copyKind"
		}
		out = append(out, scanSpec{t, int8(cat), []string{"start", "end", "deviceId", "streamId", "correlationId", "globalPid", name, grid}})
	}
	return out, nil
}

var runtimeCols = []string{"globalTid", "correlationId", "start", "end", "nameId"}

func ints(n int) []sqlitein.Kind { return make([]sqlitein.Kind, n) }

// readArow reads the scanner's current row.
func readArow(s *sqlitein.Scanner, cat int8, a *arow) {
	a.cat, a.null = cat, 0
	for i := range a.v {
		v, ok := s.Int(i)
		a.v[i] = v
		if !ok {
			a.null |= 1 << i
		}
	}
}

func readRrow(s *sqlitein.Scanner, r *rrow) {
	r.null, r.rowid = 0, s.Rowid()
	for i, p := range [...]*int64{&r.tid, &r.corr, &r.start, &r.end, &r.name} {
		v, ok := s.Int(i)
		*p = v
		if !ok {
			r.null |= 1 << i
		}
	}
}

// plan is what the first pass found: the processes of each table, in the
// order the second pass reads them, and the name ids in use.
type plan struct {
	act     []scanSpec
	actPids [][]pidKey
	rt      bool // the runtime table is read
	rtPids  []pidKey
	nameIDs []int64
}

// survey is the first pass over one table, reading only its process
// column gpidCol (globalPid or globalTid), its correlation ids and its name
// ids (nameCol; "": none): its processes, whether a window sorts each, and
// the distinct name ids.
func (r *reader) survey(table, gpidCol, nameCol string) ([]pidKey, []int64, error) {
	s, err := r.db.Scan(table, []string{gpidCol, "correlationId", nameCol}, ints(3))
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	checks := map[pidKey]*windowCheck{}
	names := map[int64]struct{}{}
	var lastPid pidKey
	var last *windowCheck
	lastName, haveName := int64(0), false
	for s.Next() {
		p := pidKey{}
		if v, ok := s.Int(0); ok {
			p = pidKey{true, v >> 24}
		}
		c := last
		if c == nil || p != lastPid {
			if c = checks[p]; c == nil {
				if len(checks) == maxPids {
					return nil, nil, &sqlitein.Unsupported{Why: table + " has rows of more processes than the direct path scans"}
				}
				c = newWindowCheck()
				checks[p] = c
			}
			last, lastPid = c, p
		}
		k, ok := s.Int(1)
		if !ok {
			k = minKey
		}
		c.add(k)
		if v, ok := s.Int(2); ok && (!haveName || v != lastName) {
			names[v] = struct{}{}
			lastName, haveName = v, true
		}
	}
	if err := s.Err(); err != nil {
		return nil, nil, err
	}
	pids := make([]pidKey, 0, len(checks))
	for p, c := range checks {
		if c.bad {
			return nil, nil, &sqlitein.Unsupported{Why: table + " has rows too far out of order for the window"}
		}
		pids = append(pids, p)
	}
	slices.SortFunc(pids, cmpPid)
	ids := make([]int64, 0, len(names))
	for v := range names {
		ids = append(ids, v)
	}
	return pids, ids, nil
}

// plan runs the first pass over every table the merge reads, one
// goroutine per table; any error means: read them through SQL.
func (r *reader) plan() (*plan, error) {
	act, err := r.activitySpecs()
	if err != nil {
		return nil, err
	}
	p := &plan{act: act, actPids: make([][]pidKey, len(act))}
	p.rt = r.db.Has(runtimeTable)
	for _, c := range []string{"correlationId", "globalTid", "start", "end"} {
		if p.rt && !r.db.HasColumn(runtimeTable, c) {
			return nil, &sqlitein.Unsupported{Why: "the runtime table lacks " + c}
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, len(p.act)+1)
	names := make([][]int64, len(p.act)+1)
	for i, sp := range p.act {
		nameCol := "" // kernel names only: copy kinds are ENUM labels
		if sp.cat == 0 {
			nameCol = sp.cols[aName]
		}
		wg.Go(func() {
			p.actPids[i], names[i], errs[i] = r.survey(sp.table, "globalPid", nameCol)
		})
	}
	if p.rt {
		wg.Go(func() {
			p.rtPids, names[len(p.act)], errs[len(p.act)] = r.survey(runtimeTable, "globalTid", "nameId")
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for _, n := range names {
		p.nameIDs = append(p.nameIDs, n...)
	}
	return p, nil
}
