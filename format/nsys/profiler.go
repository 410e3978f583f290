package nsys

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/sqlitein"
)

// What the profiler says about itself and about times it could not place
// in the session: rows timed before the session start, DIAGNOSTIC_EVENT
// warnings and errors, and the profiler's own overhead.

const (
	// BeforeSession notes rows timed before ANALYSIS_DETAILS.startTime:
	// real work (NCCL init before cudaProfilerStart, say), in the tables.
	// A negative time is never a measurement: such rows are invalid_event
	// gaps, not in the tables, and not counted here.
	BeforeSession capture.Kind = "before_session"
	// ProfilerOverhead notes the profiler's own cost, by type.
	ProfilerOverhead capture.Kind = "profiler_overhead"
)

func init() { capture.RegisterNote(BeforeSession, ProfilerOverhead) }

// early counts rows timed at or after zero and before the session start.
type early struct {
	device, runtime int64
	first           int64
}

// add counts a row starting at start; untimed rows (start = end = 0) are
// counted elsewhere and never here, negative ones are invalid.
func (e *early) add(start int64, session int64, hasSession bool, device bool) {
	if start < 0 || !hasSession || start >= session {
		return
	}
	if e.device+e.runtime == 0 || start < e.first {
		e.first = start
	}
	if device {
		e.device++
	} else {
		e.runtime++
	}
}

func (r *reader) earlyGap() {
	e := r.early
	if e.device+e.runtime == 0 {
		return
	}
	g := r.c.Accounting.Gap(BeforeSession, "")
	g.Summary = fmt.Sprintf("rows timed before the session start (ANALYSIS_DETAILS.startTime %d ns): activity before profiling began (for example NCCL set-up before cudaProfilerStart); they are in the tables as timed. Rows at negative times are invalid_event, not in the tables", r.sessionStart)
	g.SetFigure("device_rows", e.device)
	g.SetFigure("runtime_rows", e.runtime)
	g.Add(capture.Item{What: fmt.Sprintf("earliest at %d ns", e.first), Time: capture.TimeOf(e.first)})
	g.Count = e.device + e.runtime // Add counted the item
}

// labels reads an ENUM_* table's id → label.
func (r *reader) labels(table string) (map[int64]string, error) {
	out := map[int64]string{}
	if !r.db.HasColumn(table, "id") || !r.db.HasColumn(table, "label") {
		return out, nil
	}
	rows, err := r.db.Query(`SELECT id, label FROM ` + sqlitein.Quote(table))
	if err != nil {
		return nil, r.db.QueryError(table, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var l sql.NullString
		if err := rows.Scan(&id, &l); err != nil {
			return nil, r.db.QueryError(table, err)
		}
		out[id] = l.String
	}
	return out, r.db.RowsErr(table, rows)
}

// severityNames are ENUM_DIAGNOSTIC_SEVERITY_LEVEL's labels, used when the
// export lacks the enum table.
var severityNames = map[int64]string{0: "Unknown", 1: "Info", 2: "Warning", 3: "Error", 4: "Verbose"}

// diagnostics counts DIAGNOSTIC_EVENT rows by severity; warnings and errors
// are listed verbatim under producer_warnings.
func (r *reader) diagnostics(inv *capture.Section) error {
	const t = "DIAGNOSTIC_EVENT"
	if !r.db.HasColumn(t, "severity") {
		return nil
	}
	sev, err := r.labels("ENUM_DIAGNOSTIC_SEVERITY_LEVEL")
	if err != nil {
		return err
	}
	rows, err := r.db.Query(`SELECT severity, ` + r.db.Col("d", t, "text") + `, ` + r.db.Col("d", t, "timestamp") + ` FROM ` + t + ` d ORDER BY 3`)
	if err != nil {
		return r.db.QueryError(t, err)
	}
	defer rows.Close()
	in := r.c.Accounting.InputFor("diagnostic rows")
	by := map[string]int64{}
	var order []string
	var g *capture.Gap
	for rows.Next() {
		var s, ts sql.NullInt64
		var text sql.NullString
		if err := rows.Scan(&s, &text, &ts); err != nil {
			return r.db.QueryError(t, err)
		}
		in.Read++
		in.Used++
		name := sev[s.Int64]
		if name == "" {
			name = severityNames[s.Int64]
		}
		if name == "" {
			name = "severity " + itoa(s.Int64)
		}
		if by[name] == 0 {
			order = append(order, name)
		}
		by[name]++
		if n := strings.ToLower(name); n != "warning" && n != "error" {
			continue
		}
		if g == nil {
			g = r.c.Accounting.Gap(capture.ProducerWarnings, "")
			g.Summary = "Nsight Systems reported warnings or errors about this capture (DIAGNOSTIC_EVENT), verbatim: what they name may be missing from the export"
		}
		it := capture.Item{What: name + ": " + text.String, Where: t}
		if ts.Valid {
			it.Time = capture.TimeOf(ts.Int64)
		}
		g.Add(it)
	}
	if err := r.db.RowsErr(t, rows); err != nil {
		return err
	}
	if g != nil {
		for _, n := range order {
			g.SetFigure(strings.ToLower(n), by[n])
		}
	}
	for _, n := range order {
		inv.Add("diagnostic events: "+n, by[n])
	}
	return nil
}

// overhead totals CUPTI_ACTIVITY_KIND_OVERHEAD and PROFILER_OVERHEAD by
// type: the time the profiler itself took (a full command buffer stalls
// the launching thread; the kernels ran later than they would have).
func (r *reader) overhead() error {
	type total struct {
		what    string
		n, ns   int64
		unnamed bool
	}
	var all []total
	cupti, err := r.labels("ENUM_CUPTI_OVERHEAD_TYPE")
	if err != nil {
		return err
	}
	for _, src := range []struct{ table, key string }{
		{"CUPTI_ACTIVITY_KIND_OVERHEAD", "overheadType"},
		{"PROFILER_OVERHEAD", "nameId"},
	} {
		if !r.db.HasColumn(src.table, "start") || !r.db.HasColumn(src.table, "end") {
			continue
		}
		q := `SELECT ` + r.db.Col("o", src.table, src.key) + `, count(*), sum(CASE WHEN o."end" >= o.start THEN o."end" - o.start ELSE 0 END) FROM ` +
			sqlitein.Quote(src.table) + ` o GROUP BY 1 ORDER BY 1`
		rows, err := r.db.Query(q)
		if err != nil {
			return r.db.QueryError(src.table, err)
		}
		var keys []int64
		var part []total
		for rows.Next() {
			var k, n, ns sql.NullInt64
			if err := rows.Scan(&k, &n, &ns); err != nil {
				rows.Close()
				return r.db.QueryError(src.table, err)
			}
			part = append(part, total{what: itoa(k.Int64), n: n.Int64, ns: ns.Int64, unnamed: !k.Valid})
			keys = append(keys, k.Int64)
		}
		if err := r.db.RowsErr(src.table, rows); err != nil {
			rows.Close()
			return err
		}
		rows.Close()
		names := cupti
		if src.key == "nameId" {
			if names, err = r.strings(keys); err != nil {
				return err
			}
		}
		for i := range part {
			label := names[keys[i]]
			switch {
			case part[i].unnamed:
				label = "(no type)"
			case label == "":
				label = src.key + " " + part[i].what
			}
			part[i].what = src.table + ": " + label
		}
		all = append(all, part...)
	}
	var n, ns int64
	for _, t := range all {
		n += t.n
		ns += t.ns
	}
	if n == 0 {
		return nil
	}
	g := r.c.Accounting.Gap(ProfilerOverhead, "")
	g.Summary = "time Nsight Systems itself took (buffer flushes, a full command buffer that stalled launches, module loading): the work traced ran later than it would have unprofiled"
	g.SetFigure("total_ns", ns)
	for _, t := range all {
		g.Add(capture.Item{What: fmt.Sprintf("%s: %d rows, %d ns", t.what, t.n, t.ns)})
	}
	g.Count = n // rows, not types
	return nil
}
