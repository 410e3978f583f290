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
		parts = append(parts, fmt.Sprintf(`SELECT %d AS cat, a.start AS s, a."end" AS e, %s AS dev, %s AS stream, %s AS corr, %s AS gpid, %s AS name FROM %s a`,
			cat, r.db.Col("a", t, "deviceId"), r.db.Col("a", t, "streamId"), r.db.Col("a", t, "correlationId"), r.db.Col("a", t, "globalPid"), name, t))
	}
	if len(parts) == 0 {
		// No device table: still walk the runtime rows, to count the
		// launches (graph launches above all) that have no device work.
		return `SELECT 0, 0, 0, 0, 0, 0, 0, 0 WHERE 0`, true
	}
	return `SELECT cat, s, e, dev, stream, corr, gpid, name FROM (` + strings.Join(parts, " UNION ALL ") +
		`) ORDER BY (gpid >> 24), corr, s`, true
}

// rtCursor is a cursor over the runtime rows in (process, correlation) order.
type rtCursor struct {
	rows       *sql.Rows
	ok         bool
	pid, corr  int64
	start, end int64
	tid        int64
	name       sql.NullInt64
	matched    bool
	hasPid     bool
}

func (rt *rtCursor) next() error {
	if rt.rows == nil || !rt.rows.Next() {
		rt.ok = false
		if rt.rows != nil {
			return rt.rows.Err()
		}
		return nil
	}
	var pid, corr, start, end, tid sql.NullInt64
	if err := rt.rows.Scan(&pid, &corr, &start, &end, &tid, &rt.name); err != nil {
		return err
	}
	rt.ok, rt.matched = true, false
	rt.pid, rt.hasPid = pid.Int64, pid.Valid
	rt.corr, rt.start, rt.end, rt.tid = corr.Int64, start.Int64, end.Int64, tid.Int64
	if !corr.Valid {
		rt.corr = -1 << 62
	}
	return nil
}

func before(p1, c1, p2, c2 int64) bool { return p1 < p2 || (p1 == p2 && c1 < c2) }

func (r *reader) merge() error {
	r.rtRows = r.c.Accounting.InputFor("runtime rows")
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
		rt.rows = rows
	}
	if err := rt.next(); err != nil {
		return r.db.QueryError(runtimeTable, err)
	}
	rows, err := r.db.Query(q)
	if err != nil {
		return r.db.QueryError(kernelTable, err)
	}
	defer rows.Close()
	var lastPid, lastCorr int64 = -1, -1
	var perLaunch int64
	var cat int8
	var s, e, dev, stream, corr, gpid, name sql.NullInt64
	for rows.Next() {
		if err := rows.Scan(&cat, &s, &e, &dev, &stream, &corr, &gpid, &name); err != nil {
			return r.db.QueryError(kernelTable, err)
		}
		r.rows.Read++
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
			r.rows.SkipUnclassified("no start or end", 1, "")
			continue
		}
		r.dispatch(cat, s.Int64, e.Int64, pid, dev.Int64, stream.Int64, c, name, launched, rt)
	}
	if err := rows.Err(); err != nil {
		return r.db.QueryError(kernelTable, err)
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
	if end < start {
		g := r.c.Accounting.Gap(capture.InvalidEvent, "")
		g.Summary = "device rows whose end is before their start: not in the tables"
		g.Add(capture.Item{What: fmt.Sprintf("end %d before start %d", end, start), Kernel: r.c.Kernels[k].Name, Time: capture.TimeOf(start)})
		r.rows.SkipUnclassified("end before start", 1, "")
		return
	}
	r.rows.Used++
	r.byCat[cat]++
	d := &r.d
	*d = capture.Dispatch{Program: p, Queue: q, Kernel: k, Instance: inst, Index: -1, Ordinal: -1, Link: capture.LinkNoLaunch}
	if start == 0 && end == 0 {
		// CUPTI: no timing could be collected; never a 0 ns kernel.
		r.untimed++
	} else {
		d.Device = capture.Interval{Begin: start, End: end, Valid: true}
		r.early.add(start, r.sessionStart, r.sessionCmp, true)
		qs := &r.qstate[q]
		if corr > qs.lastCorr && start < qs.lastStart {
			r.decrease++
		}
		if corr >= qs.lastCorr {
			qs.lastCorr, qs.lastStart = corr, start
		}
	}
	if launched {
		d.Link = capture.LinkLaunched
		if rt.end >= rt.start {
			d.Launch = capture.Interval{Begin: rt.start, End: rt.end, Valid: true}
		}
	} else {
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
	switch launchKind(name) {
	case "graph":
		r.graphLaunch.add(rt.start)
		r.rtRows.SkipUnclassified("graph launch whose kernels are not in the export", 1, "")
	case "launch":
		base := versionSuffix.ReplaceAllString(name, "")
		st := r.unlaunched[base]
		if st == nil {
			st = &launchStats{}
			r.unlaunched[base] = st
		}
		st.add(rt.start)
		r.rtRows.SkipUnclassified("launch without GPU work in the export", 1, "")
	default:
		r.rtRows.SkipUnclassified("not a launch call", 1, "")
	}
}

func (s *launchStats) add(t int64) {
	if s.n == 0 || t < s.first {
		s.first = t
	}
	s.last = max(s.last, t)
	s.n++
}
