package nsys

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/tallyprof/tally/capture"
)

// The launch of a device row is the runtime row with the same correlation
// id in the same process. Neither table has an index, and holding every
// runtime row in a map would make memory grow with the capture, so both
// are read sorted by (process, correlation id) — SQLite sorts with bounded
// memory, spilling to temporary files — and joined in one merge pass.
// Dispatches therefore stream in (process, correlation id) order.

// activityQuery is the UNION ALL of the device tables present, with the
// columns each has (a column absent in this export version reads NULL).
func (r *reader) activityQuery() (string, bool) {
	var parts []string
	for cat, t := range []string{kernelTable, memcpyTable, memsetTable} {
		if !r.db.Has(t) || !r.db.HasColumn(t, "start") || !r.db.HasColumn(t, "end") {
			continue
		}
		name := "NULL"
		switch cat {
		case 0:
			name = r.db.Col("a", t, "demangledName")
		case 1:
			name = r.db.Col("a", t, "copyKind")
		}
		grid := "NULL"
		if cat == 0 {
			grid = r.db.Col("a", t, "gridId")
		}
		parts = append(parts, fmt.Sprintf(`SELECT %d AS cat, a.start AS s, a."end" AS e, %s AS dev, %s AS stream, %s AS corr, %s AS gpid, %s AS name, %s AS grid FROM %s a`,
			cat, r.db.Col("a", t, "deviceId"), r.db.Col("a", t, "streamId"), r.db.Col("a", t, "correlationId"), r.db.Col("a", t, "globalPid"), name, grid, t))
	}
	if len(parts) == 0 {
		// No device table: still walk the runtime rows, to count the
		// launches (graph launches above all) that have no device work.
		return `SELECT 0, 0, 0, 0, 0, 0, 0, 0, 0 WHERE 0`, true
	}
	// Ordered by every column read, so that a row repeated in the export
	// comes right after its first copy (see repeat).
	return `SELECT cat, s, e, dev, stream, corr, gpid, name, grid FROM (` + strings.Join(parts, " UNION ALL ") +
		`) ORDER BY (gpid >> 24), corr, s, e, cat, dev, stream, name, grid, gpid`, true
}

// activity is one device row as read.
type activity struct {
	cat                                       int8
	s, e, dev, stream, corr, gpid, name, grid sql.NullInt64
}

// repeats reports whether a is the row before it (prev) again: the same
// process, correlation id, category, times, device, stream, name and grid
// id. nsys correlation ids are not a row's identity (graph kernels traced
// as nodes share their launch's), but a kernel's gridId is unique per
// execution, and a stream runs one operation at a time, so two distinct
// timed rows of one stream never share both times: a row equal in all of
// these is one record written twice. Untimed rows (start = end = 0)
// without a grid id carry nothing to tell them apart and are never called
// repeats.
func (a *activity) repeats(prev *activity) bool {
	if *a != *prev {
		return false
	}
	return a.grid.Valid || !(a.s.Int64 == 0 && a.e.Int64 == 0)
}

// rtCursor is a cursor over the runtime rows in (process, correlation) order.
type rtCursor struct {
	src        func(*rtCursor) (bool, error) // fills the next row; nil: no runtime rows
	ok         bool
	pid, corr  int64
	start, end int64
	tid        int64
	name       sql.NullInt64
	matched    bool
	hasPid     bool
}

func (rt *rtCursor) next() error {
	if rt.src == nil {
		rt.ok = false
		return nil
	}
	ok, err := rt.src(rt)
	if err != nil || !ok {
		rt.ok = false
		return err
	}
	rt.ok, rt.matched = true, false
	return nil
}

// sqlRuntime reads the runtime query's rows.
func sqlRuntime(rows *sql.Rows) func(*rtCursor) (bool, error) {
	return func(rt *rtCursor) (bool, error) {
		if !rows.Next() {
			return false, rows.Err()
		}
		var pid, corr, start, end, tid sql.NullInt64
		if err := rows.Scan(&pid, &corr, &start, &end, &tid, &rt.name); err != nil {
			return false, err
		}
		rt.pid, rt.hasPid = pid.Int64, pid.Valid
		rt.corr, rt.start, rt.end, rt.tid = corr.Int64, start.Int64, end.Int64, tid.Int64
		if !corr.Valid {
			rt.corr = -1 << 62
		}
		return true, nil
	}
}

// directRuntime reads the runtime rows of the direct path, as sqlRuntime
// would have them.
func directRuntime(f *feed[rrow]) func(*rtCursor) (bool, error) {
	return func(rt *rtCursor) (bool, error) {
		x, err := f.next()
		if err != nil || x == nil {
			return false, err
		}
		rt.hasPid = x.null&rNullTid == 0
		rt.pid = 0
		if rt.hasPid {
			rt.pid = x.tid >> 24
		}
		rt.corr, rt.start, rt.end, rt.tid = x.corr, x.start, x.end, x.tid
		if x.null&rNullCorr != 0 {
			rt.corr = -1 << 62
		}
		rt.name = sql.NullInt64{Int64: x.name, Valid: x.null&rNullName == 0}
		return true, nil
	}
}

func before(p1, c1, p2, c2 int64) bool { return p1 < p2 || (p1 == p2 && c1 < c2) }

func (r *reader) merge() error {
	r.rtRows = r.c.Accounting.InputFor("runtime rows")
	if r.direct != nil {
		act, rtf := r.startDirect(r.direct)
		defer act.stop()
		rt := &rtCursor{}
		if rtf != nil {
			defer rtf.stop()
			rt.src = directRuntime(rtf)
		}
		if err := rt.next(); err != nil {
			return r.db.QueryError(runtimeTable, err)
		}
		return r.mergeRows(act.next, rt)
	}
	q, ok := r.activityQuery()
	if !ok {
		return nil
	}
	rt := &rtCursor{}
	if r.db.Has(runtimeTable) && r.db.HasColumn(runtimeTable, "correlationId") {
		rows, err := r.db.Query(`SELECT globalTid >> 24, correlationId, start, "end", globalTid, ` + r.db.Col("r", runtimeTable, "nameId") +
			` FROM ` + runtimeTable + ` r ORDER BY (globalTid >> 24), correlationId`)
		if err != nil {
			return r.db.QueryError(runtimeTable, err)
		}
		defer rows.Close()
		rt.src = sqlRuntime(rows)
	}
	if err := rt.next(); err != nil {
		return r.db.QueryError(runtimeTable, err)
	}
	rows, err := r.db.Query(q)
	if err != nil {
		return r.db.QueryError(kernelTable, err)
	}
	defer rows.Close()
	next := func(a *activity) (bool, error) {
		if !rows.Next() {
			return false, rows.Err()
		}
		return true, rows.Scan(&a.cat, &a.s, &a.e, &a.dev, &a.stream, &a.corr, &a.gpid, &a.name, &a.grid)
	}
	return r.mergeRows(next, rt)
}

// mergeRows joins the device rows (in activityQuery's order) with the
// runtime rows (in the runtime query's order), rt on its first row.
func (r *reader) mergeRows(next func(*activity) (bool, error), rt *rtCursor) error {
	var lastPid, lastCorr int64 = -1, -1
	var perLaunch int64
	var a, prev activity
	havePrev := false
	for {
		more, err := next(&a)
		if err != nil {
			return r.db.QueryError(kernelTable, err)
		}
		if !more {
			break
		}
		r.rows.Read++
		if havePrev && a.repeats(&prev) {
			r.repeat(&a)
			continue
		}
		prev, havePrev = a, true
		cat, s, e, dev, stream, corr, gpid, name := a.cat, a.s, a.e, a.dev, a.stream, a.corr, a.gpid, a.name
		pid := gpid.Int64 >> 24
		if !gpid.Valid {
			pid = -1
		}
		c := corr.Int64
		if !corr.Valid {
			c = -1 << 62
		}
		// Advance the runtime cursor up to this row's (process, id).
		for rt.ok && before(rt.pid, rt.corr, pid, c) {
			r.unmatched(rt)
			if err := rt.next(); err != nil {
				return r.db.QueryError(runtimeTable, err)
			}
		}
		launched := corr.Valid && gpid.Valid && rt.ok && rt.pid == pid && rt.corr == c
		if launched && !rt.matched {
			r.early.add(rt.start, r.sessionStart, r.sessionCmp, false)
			rt.matched = true
			r.rtRows.Read++
			r.rtRows.Used++
		}
		// Kernels of one graph launch traced as nodes share its id.
		if cat == 0 && corr.Valid && pid == lastPid && c == lastCorr {
			perLaunch++
			if perLaunch == 2 {
				r.multi.launches++
			}
			r.multi.max = max(r.multi.max, perLaunch)
		} else if cat == 0 {
			perLaunch = 1
			lastPid, lastCorr = pid, c
		}
		if !s.Valid || !e.Valid {
			g := r.invalid()
			g.Add(capture.Item{What: "start or end is NULL", Where: categoryTable[cat]})
			r.rows.Lose(g, "no start or end", 1, "")
			continue
		}
		r.dispatch(cat, s.Int64, e.Int64, pid, dev.Int64, stream.Int64, c, name, launched, rt)
	}
	for rt.ok {
		r.unmatched(rt)
		if err := rt.next(); err != nil {
			return r.db.QueryError(runtimeTable, err)
		}
	}
	return nil
}

func (r *reader) dispatch(cat int8, start, end, pid, dev, stream, corr int64, name sql.NullInt64, launched bool, rt *rtCursor) {
	p, inst := r.program(rt.tid, rt.start, launched)
	k := r.kernel(p, cat, name.Int64, name.Valid)
	q := r.queue(pid, dev, stream)
	d := &r.d
	*d = capture.Dispatch{Program: p, Queue: q, Kernel: k, Instance: inst, Index: -1, Ordinal: -1, Link: capture.LinkNoLaunch}
	if !(start == 0 && end == 0) {
		// start = end = 0: CUPTI could not time it; never a 0 ns kernel.
		d.Device = capture.Interval{Begin: start, End: end, Valid: true}
	}
	if launched {
		d.Link = capture.LinkLaunched
		if rt.end >= rt.start {
			d.Launch = capture.Interval{Begin: rt.start, End: rt.end, Valid: true}
		}
		if r.ops != nil {
			r.attributeOp(d, rt.tid, rt.start)
		}
	}
	// capture.Checked's rules, held here so that such a row is accounted
	// as lost input and never reaches the early, order and orphan figures.
	if why, ok := capture.ImpossibleTime(d, r.ceiling); !ok {
		g := r.invalid()
		it := capture.Item{What: why, Where: categoryTable[cat], Kernel: r.c.Kernels[k].Name, Queue: capture.QueueOf(q)}
		if d.Device.Valid {
			it.Time = capture.TimeOf(start)
		}
		g.Add(it)
		reason := "longer than the ceiling"
		switch {
		case d.Device.Valid && end < start:
			reason = "end before start"
		case start < 0 || end < 0 || (d.Launch.Valid && (d.Launch.Begin < 0 || d.Launch.End < 0)):
			reason = "negative time"
		}
		r.rows.Lose(g, reason, 1, "")
		return
	}
	r.rows.Used++
	r.byCat[cat]++
	if !d.Device.Valid {
		r.untimed++
	} else {
		r.early.add(start, r.sessionStart, r.sessionCmp, true)
		qs := &r.qstate[q]
		if corr > qs.lastCorr && start < qs.lastStart {
			r.decrease++
		}
		if corr >= qs.lastCorr {
			qs.lastCorr, qs.lastStart = corr, start
		}
	}
	if !launched {
		r.orphans.n++
		r.orphans.byCat[cat]++
		if d.Device.Valid {
			r.orphans.ns += end - start
			if r.orphans.n == 1 || start < r.orphans.first {
				r.orphans.first = start
			}
			r.orphans.end = max(r.orphans.end, end)
		}
	}
	r.sink.Dispatch(r.c, d)
}

// categoryTable names the table of each category, for gap items.
var categoryTable = [...]string{kernelTable, memcpyTable, memsetTable}

// invalid is the gap of device rows whose times are missing or impossible.
func (r *reader) invalid() *capture.Gap {
	g := r.c.Accounting.Gap(capture.InvalidEvent, "")
	g.Summary = "device rows whose times are missing (NULL), negative, reversed or longer than the ceiling for one dispatch, or whose launch call's are: not in the tables, never timed"
	return g
}

// repeat counts a device row that repeats the row before it (see
// activity.repeats): the first is in the tables, the repeat is not.
func (r *reader) repeat(a *activity) {
	g := r.c.Accounting.Gap(capture.DuplicateEvent, "")
	g.Summary = "device rows identical to another in every column tally reads (process, correlation id, times, device, stream, name, grid id): one record written twice, counted once"
	it := capture.Item{What: fmt.Sprintf("correlation id %d, start %d, end %d, device %d, stream %d: again", a.corr.Int64, a.s.Int64, a.e.Int64, a.dev.Int64, a.stream.Int64), Where: categoryTable[a.cat]}
	if a.s.Valid {
		it.Time = capture.TimeOf(a.s.Int64)
	}
	g.Add(it)
	if a.s.Valid && a.e.Valid && a.e.Int64 >= a.s.Int64 {
		g.SetFigure("repeated_ns", capture.SatAdd(figure(g, "repeated_ns"), a.e.Int64-a.s.Int64))
	}
	r.rows.Lose(g, "repeats the row before it", 1, "")
}

func figure(g *capture.Gap, name string) int64 { v, _ := g.Figure(name); return v }

// unmatched accounts for a runtime row no device row joined.
func (r *reader) unmatched(rt *rtCursor) {
	if rt.matched {
		return
	}
	r.early.add(rt.start, r.sessionStart, r.sessionCmp, false)
	r.rtRows.Read++
	name := ""
	if rt.name.Valid {
		name = r.names[rt.name.Int64]
	}
	// A launch call without its device rows is device work the export
	// lacks: gaps() accounts for these rows as lost, under the gap it
	// counts them in.
	switch launchKind(name) {
	case "graph":
		r.graphLaunch.add(rt.start)
	case "launch":
		base := trimVersion(name)
		st := r.unlaunched[base]
		if st == nil {
			st = &launchStats{}
			r.unlaunched[base] = st
		}
		st.add(rt.start)
	default:
		r.rtRows.Ignore("not a launch call", 1, "")
	}
}

func (s *launchStats) add(t int64) {
	if s.n == 0 || t < s.first {
		s.first = t
	}
	s.last = max(s.last, t)
	s.n++
}
