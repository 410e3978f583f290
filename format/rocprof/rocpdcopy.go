package rocprof

import (
	"database/sql"
	"fmt"
	"strconv"

	"github.com/tallyprof/tally/format/internal/sqlitein"
)

// copies reads a run's rocpd_memory_copy rows as memcpy dispatches, as the
// CSV and JSON readers do: named by their name string (the direction), on
// a queue per (source, destination) agent, linked to their HIP call by the
// event's stack_id. The table has no thread, so a copy belongs to no
// marker range: "(no marker range)" when the run has ranges, else the
// whole capture. Columns are looked up by name; a run without the table
// has no copies.
func (rr *rocpdReader) copies(t map[string]string) error {
	mc := t["rocpd_memory_copy"]
	if mc == "" || !rr.db.HasColumn(mc, "start") || !rr.db.HasColumn(mc, "end") {
		return nil
	}
	guid := func(alias, table string) string {
		if rr.db.HasColumn(mc, "guid") && rr.db.HasColumn(table, "guid") {
			return " AND " + alias + ".guid = m.guid"
		}
		return ""
	}
	var joins string
	cols := `m.start, m."end"`
	add := func(alias, logical, col, sel string) {
		table := t[logical]
		if table == "" || !rr.db.HasColumn(mc, col) || !rr.db.HasColumn(table, "id") {
			cols += ", NULL"
			return
		}
		joins += fmt.Sprintf(" LEFT JOIN %s %s ON %s.id = m.%s%s", sqlitein.Quote(table), alias, alias, sqlitein.Quote(col), guid(alias, table))
		cols += ", " + rr.db.Col(alias, table, sel)
	}
	add("n", "rocpd_string", "name_id", "string")
	add("src", "rocpd_info_agent", "src_agent_id", "absolute_index")
	add("srcn", "rocpd_info_agent", "src_agent_id", "name")
	add("dst", "rocpd_info_agent", "dst_agent_id", "absolute_index")
	add("dstn", "rocpd_info_agent", "dst_agent_id", "name")
	add("ev", "rocpd_event", "event_id", "stack_id")
	cols += ", " + rr.db.Col("m", mc, "src_agent_id") + ", " + rr.db.Col("m", mc, "dst_agent_id")
	rows, err := rr.db.Query(`SELECT ` + cols + ` FROM ` + sqlitein.Quote(mc) + ` m` + joins)
	if err != nil {
		return rr.db.QueryError(mc, err)
	}
	defer rows.Close()
	b := rr.b
	in := b.c.Accounting.InputFor("copy rows")
	var n int64
	for rows.Next() {
		var start, end, srcIdx, dstIdx, corr, srcID, dstID sql.NullInt64
		var name, srcName, dstName sql.NullString
		if err := rows.Scan(&start, &end, &name, &srcIdx, &srcName, &dstIdx, &dstName, &corr, &srcID, &dstID); err != nil {
			return rr.db.QueryError(mc, err)
		}
		n++
		in.Read++
		at := pos{mc + " row", n}
		if !start.Valid || !end.Valid {
			b.noTimes(in, at.String())
			continue
		}
		label := func(idx sql.NullInt64, nm sql.NullString, id sql.NullInt64) string {
			if idx.Valid {
				return fmt.Sprintf("agent %d (%s)", idx.Int64, nm.String)
			}
			return "agent " + strconv.FormatInt(id.Int64, 10)
		}
		prog, inst := rr.program(sql.NullInt64{}, start.Int64)
		r := row{
			prog: prog, instance: inst,
			queue: b.copyQueue(label(srcIdx, srcName, srcID), label(dstIdx, dstName, dstID), name.String),
			start: start.Int64, end: end.Int64, copy: true,
		}
		if corr.Valid && corr.Int64 > 0 {
			r.corr = uint64(corr.Int64)
		}
		dir := name.String
		if dir == "" {
			dir = "(direction not named)"
		}
		r.kernel = b.kernel(prog, []byte("memory copy "+dir), 0, false, "memcpy")
		unit := b.unit
		b.unit = in
		b.emit(&r, at)
		b.unit = unit
	}
	return rr.db.RowsErr(mc, rows)
}
