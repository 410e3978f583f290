package rocprof

import (
	"database/sql"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/outerrange"
	"github.com/tallyprof/tally/format/internal/sqlitein"
)

// rocpd is rocprofv3's SQLite output (the default since ROCm 7.0). Its
// physical tables are named <table><run uuid>; the plain names are views,
// and the convenience views (kernels, …) INNER JOIN dispatches to agent,
// event, symbol, queue, thread and region-name rows, so a dispatch whose
// related row is missing silently disappears from them. This reader reads
// the base tables with LEFT JOINs on (id, guid), keeps every dispatch, and
// counts the rows a view would have dropped (note view_dropped_rows).

// RocpdName is the registered name of the rocpd reader.
const RocpdName = "rocpd"

func init() {
	format.Register(format.Format{
		Name:        RocpdName,
		Description: "AMD rocprofv3 rocpd SQLite database (the default output since ROCm 7.0)",
		Sniff:       SniffRocpd,
		Read:        ReadRocpd,
		Engine:      sqlitein.Engine,
		Uses:        []format.Option{},
	})
}

// SniffRocpd recognises an SQLite database whose schema text names rocpd
// tables.
func SniffRocpd(head []byte) format.Confidence {
	if rocpdSchema(head) {
		return format.Certain
	}
	return format.No
}

// rocpdTables are the logical tables read, by their view name.
var rocpdTables = []string{
	"rocpd_kernel_dispatch", "rocpd_info_kernel_symbol", "rocpd_info_agent", "rocpd_info_queue",
	"rocpd_info_thread", "rocpd_event", "rocpd_string", "rocpd_region", "rocpd_metadata", "rocpd_memory_copy",
}

// rocpdSchema tells a rocpd database by its schema: a rocpd_ table, view
// or index named in SQL.
var rocpdSchema = sqlitein.SchemaNames(`rocpd_`)

// uuidSuffix is compiled on first use: start-up pays for no regexp.
var uuidSuffix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^_?[0-9A-Fa-f][0-9A-Fa-f_-]*$`) })

// runs groups the physical tables by run suffix: suffix → logical → name.
func runs(db *sqlitein.DB) map[string]map[string]string {
	out := map[string]map[string]string{}
	for t := range db.Tables {
		for _, l := range rocpdTables {
			rest, ok := strings.CutPrefix(t, l)
			if !ok || (rest != "" && !uuidSuffix().MatchString(rest)) {
				continue
			}
			if out[rest] == nil {
				out[rest] = map[string]string{}
			}
			out[rest][l] = t
		}
	}
	return out
}

type rocpdReader struct {
	db      *sqlitein.DB
	b       *builder
	marks   outerrange.Set
	markNm  []string
	runNo   int64
	dropped map[string]int64
}

// ReadRocpd reads a rocpd SQLite database.
func ReadRocpd(in *format.Input, opts *format.Options, sink capture.Sink) (*capture.Capture, error) {
	db, err := sqlitein.Open(in)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	c := &capture.Capture{Clock: boottimeClock}
	rr := &rocpdReader{db: db, b: newBuilder(c, sink, "dispatch rows"), dropped: map[string]int64{}}
	rr.b.setCeiling(ceilingOf(opts))
	rs := runs(db)
	var suffixes []string
	for s, m := range rs {
		if m["rocpd_kernel_dispatch"] != "" {
			suffixes = append(suffixes, s)
		}
	}
	sort.Strings(suffixes)
	if len(suffixes) == 0 {
		if db.Has("rocpd_op") || db.Has("rocpd_api") {
			return nil, format.FileError(in.Path, nil, "tally reads rocprofv3's rocpd (schema 3); convert RPD traces with rocmProfileData's own tools", "this is a rocmProfileData (RPD) database, an older, different schema with the same table prefix")
		}
		if len(rs) == 0 {
			hint := "give a rocprofv3 results.db (rocprofv3 --output-format rocpd)"
			if db.Has("StringIds") || db.Has("CUPTI_ACTIVITY_KIND_KERNEL") {
				hint = "this looks like an Nsight Systems export: read it with --format nsys"
			}
			return nil, format.FileError(in.Path, nil, hint, "no rocpd tables in this SQLite database")
		}
	}
	inv := capture.Section{Title: "rocpd"}
	for _, s := range suffixes {
		if err := rr.run(s, rs[s], &inv); err != nil {
			return nil, err
		}
	}
	rr.finish(&inv)
	return c, nil
}

// run reads one profiling run (one uuid's set of tables).
func (rr *rocpdReader) run(suffix string, t map[string]string, inv *capture.Section) error {
	if v := rr.metadata(t["rocpd_metadata"]); v != "" {
		inv.Add("schema_version", v)
	}
	inv.Add("run", strings.TrimPrefix(suffix, "_"))
	rr.b.ids = idSet{} // dispatch ids, thread rows and ranges are per run
	rr.marks, rr.markNm = outerrange.Set{}, nil
	rr.runNo++
	if err := rr.loadMarkers(t); err != nil {
		return err
	}
	inv.Add("outermost marker ranges", int64(rr.marks.Len()))
	kd := t["rocpd_kernel_dispatch"]
	for _, col := range []string{"id", "start", "end"} {
		if !rr.db.HasColumn(kd, col) {
			return format.FileError(rr.db.Path, nil, "", "table %s has no %s column: not a rocpd schema this reader knows", kd, col)
		}
	}
	guid := func(alias, table string) string {
		if rr.db.HasColumn(kd, "guid") && rr.db.HasColumn(table, "guid") {
			return " AND " + alias + ".guid = kd.guid"
		}
		return ""
	}
	join := func(alias, logical, col string) (string, string) {
		table := t[logical]
		if table == "" || !rr.db.HasColumn(kd, col) || !rr.db.HasColumn(table, "id") {
			return "", "1" // absent table: the view could not exist either
		}
		return fmt.Sprintf(" LEFT JOIN %s %s ON %s.id = kd.%s%s", sqlitein.Quote(table), alias, alias, sqlitein.Quote(col), guid(alias, table)),
			alias + ".id IS NOT NULL"
	}
	var joins strings.Builder
	var present []string
	joined := map[string]bool{}
	for _, j := range []struct{ alias, logical, col, what string }{
		{"ks", "rocpd_info_kernel_symbol", "kernel_id", "kernel symbol"},
		{"ag", "rocpd_info_agent", "agent_id", "agent"},
		{"qu", "rocpd_info_queue", "queue_id", "queue"},
		{"th", "rocpd_info_thread", "tid", "thread"},
		{"ev", "rocpd_event", "event_id", "event"},
		{"rn", "rocpd_string", "region_name_id", "region name"},
	} {
		sqlJoin, ok := join(j.alias, j.logical, j.col)
		joins.WriteString(sqlJoin)
		joined[j.alias] = sqlJoin != ""
		present = append(present, ok)
	}
	col := func(alias, logical, c string) string {
		if t[logical] == "" {
			return "NULL"
		}
		return rr.db.Col(alias, t[logical], c)
	}
	// The internal correlation id is the event's stack_id (generateRocpd.cpp;
	// its correlation_id column holds the external id).
	corrCol := "NULL"
	if joined["ev"] {
		corrCol = col("ev", "rocpd_event", "stack_id")
	}
	if err := rr.loadAPI(t); err != nil {
		return err
	}
	q := `SELECT kd.start, kd."end", ` + rr.db.Col("kd", kd, "dispatch_id") + `, ` + rr.db.Col("kd", kd, "agent_id") + `, ` +
		rr.db.Col("kd", kd, "queue_id") + `, ` + rr.db.Col("kd", kd, "kernel_id") + `, ` + rr.db.Col("kd", kd, "tid") + `, ` +
		col("ks", "rocpd_info_kernel_symbol", "display_name") + `, ` + col("ks", "rocpd_info_kernel_symbol", "kernel_name") + `, ` +
		col("ag", "rocpd_info_agent", "absolute_index") + `, ` + col("ag", "rocpd_info_agent", "name") + `, ` + corrCol + `, ` +
		strings.Join(present, ", ") + ` FROM ` + sqlitein.Quote(kd) + ` kd` + joins.String()
	rows, err := rr.db.Query(q)
	if err != nil {
		return rr.db.QueryError(kd, err)
	}
	defer rows.Close()
	what := []string{"kernel symbol", "agent", "queue", "thread", "event", "region name"}
	var n int64
	for rows.Next() {
		n++
		var start, end, dispatchID, agentID, queueID, kernelID, tid, agIndex sql.NullInt64
		var display, symbol, agName sql.NullString
		var corr sql.NullInt64
		ok := make([]bool, len(what))
		dest := []any{&start, &end, &dispatchID, &agentID, &queueID, &kernelID, &tid, &display, &symbol, &agIndex, &agName, &corr}
		for i := range ok {
			dest = append(dest, &ok[i])
		}
		if err := rows.Scan(dest...); err != nil {
			return rr.db.QueryError(kd, err)
		}
		rr.b.unit.Read++
		at := pos{kd + " row", n}
		for i, has := range ok {
			if !has {
				rr.dropped[what[i]]++
			}
		}
		for _, has := range ok {
			if !has {
				rr.dropped["any"]++
				break
			}
		}
		if !start.Valid || !end.Valid {
			rr.b.noTimes(rr.b.unit, at.String())
			continue
		}
		prog, inst := rr.program(tid, start.Int64)
		agent := "agent " + strconv.FormatInt(agentID.Int64, 10)
		if agIndex.Valid {
			agent = fmt.Sprintf("agent %d (%s)", agIndex.Int64, agName.String)
		}
		r := row{
			prog: prog, instance: inst,
			queue: rr.b.queue([]byte(agent), strconv.AppendInt(nil, queueID.Int64, 10)),
			start: start.Int64, end: end.Int64,
			dispatchID: uint64(dispatchID.Int64), hasDispatchID: dispatchID.Valid,
		}
		if corr.Valid && corr.Int64 > 0 {
			r.corr = uint64(corr.Int64)
		}
		name := display.String
		if name == "" {
			name = symbol.String
		}
		if !kernelID.Valid || kernelID.Int64 == 0 {
			name = "" // rocpd stores these as "unknown_kernel"
		}
		r.kernel = rr.b.kernel(prog, []byte(name), uint64(kernelID.Int64), kernelID.Valid, "kernel")
		rr.b.emit(&r, at)
	}
	if err := rows.Err(); err != nil {
		return rr.db.QueryError(kd, err)
	}
	if err := rr.copies(t); err != nil {
		return err
	}
	rr.b.linkDone(inv, t["rocpd_region"]+" (HIP API regions)")
	return nil
}

// loadAPI reads the run's HIP API calls: regions whose event category is a
// HIP domain, with the event's stack_id as their internal correlation id.
func (rr *rocpdReader) loadAPI(t map[string]string) error {
	return rr.eachRegion(t, "e", "stack_id", `c.string LIKE 'HIP\_%' ESCAPE '\'`, func() func(*regionRow) {
		in := rr.b.c.Accounting.InputFor("API regions")
		return func(r *regionRow) {
			in.Read++
			// A host call: without its id or times it only links nothing.
			if !r.col.Valid || r.col.Int64 <= 0 || !r.start.Valid || !r.end.Valid {
				in.Ignore("no correlation id or times", 1, "")
				return
			}
			if !rr.b.link.addAPI(uint64(r.col.Int64), r.name.String, r.start.Int64, r.end.Int64) {
				in.Ignore("no correlation id or times", 1, "")
				return
			}
			in.Used++
		}
	})
}

// regionRow is one row of regionQuery: the column asked for, start, end
// and name.
type regionRow struct {
	col, start, end sql.NullInt64
	name            sql.NullString
}

// eachRegion runs regionQuery(t, alias, col, where); when it runs, open is
// called once and the function it returns gets every row. A missing table
// or column is no query and no call.
func (rr *rocpdReader) eachRegion(t map[string]string, alias, col, where string, open func() func(*regionRow)) error {
	rg := t["rocpd_region"]
	q := rr.regionQuery(t, alias, col, where)
	if q == "" {
		return nil
	}
	rows, err := rr.db.Query(q)
	if err != nil {
		return rr.db.QueryError(rg, err)
	}
	defer rows.Close()
	row := open()
	var r regionRow
	for rows.Next() {
		if err := rows.Scan(&r.col, &r.start, &r.end, &r.name); err != nil {
			return rr.db.QueryError(rg, err)
		}
		row(&r)
	}
	return rr.db.RowsErr(rg, rows)
}

// regionQuery selects a run's regions (r) with their event (e), the
// event's category string (c) and the region's name (n): first the
// column col of alias, then start, end and name, filtered by where (which
// may end in an ORDER BY). It is "" when a table or column is missing.
func (rr *rocpdReader) regionQuery(t map[string]string, alias, col, where string) string {
	rg, ev, st := t["rocpd_region"], t["rocpd_event"], t["rocpd_string"]
	if rg == "" || ev == "" || st == "" {
		return ""
	}
	tables := map[string]string{"r": rg, "e": ev, "c": st, "n": st}
	for _, c := range [][2]string{{rg, "start"}, {rg, "end"}, {rg, "event_id"}, {rg, "name_id"}, {ev, "category_id"}, {st, "string"}, {tables[alias], col}} {
		if !rr.db.HasColumn(c[0], c[1]) {
			return ""
		}
	}
	g := func(a, b string) string {
		if rr.db.HasColumn(tables[a], "guid") && rr.db.HasColumn(tables[b], "guid") {
			return " AND " + a + ".guid = " + b + ".guid"
		}
		return ""
	}
	return `SELECT ` + alias + `.` + sqlitein.Quote(col) + `, r.start, r."end", n.string FROM ` + sqlitein.Quote(rg) + ` r
		JOIN ` + sqlitein.Quote(ev) + ` e ON e.id = r.event_id` + g("e", "r") + `
		JOIN ` + sqlitein.Quote(st) + ` c ON c.id = e.category_id` + g("c", "e") + `
		LEFT JOIN ` + sqlitein.Quote(st) + ` n ON n.id = r.name_id` + g("n", "r") + `
		WHERE ` + where
}

func (rr *rocpdReader) metadata(table string) string {
	if table == "" || !rr.db.HasColumn(table, "tag") || !rr.db.HasColumn(table, "value") {
		return ""
	}
	var v sql.NullString
	_ = rr.db.QueryRow(`SELECT value FROM ` + sqlitein.Quote(table) + ` WHERE tag = 'schema_version'`).Scan(&v)
	return v.String
}

// loadMarkers reads the ROCTx ranges: regions whose event category is a
// MARKER domain, on their thread row. The query leaves out NULL threads
// and times.
func (rr *rocpdReader) loadMarkers(t map[string]string) error {
	return rr.eachRegion(t, "r", "tid", `c.string LIKE 'MARKER%' AND r."end" > r.start AND r.tid IS NOT NULL
		ORDER BY r.tid, r.start, r."end" DESC`, func() func(*regionRow) {
		return func(r *regionRow) {
			if _, kept := rr.marks.Add(r.col.Int64, r.start.Int64, r.end.Int64); kept {
				rr.markNm = append(rr.markNm, markerName(r.name.String))
			}
		}
	})
}

func markerName(s string) string {
	if s = outerrange.TrimInstance(s); s == "" {
		return "(unnamed marker range)"
	}
	return s
}

// program is the outermost ROCTx range open on the dispatch's thread when
// the dispatch started (the table has no launch time), else the whole
// capture.
func (rr *rocpdReader) program(tid sql.NullInt64, start int64) (capture.ProgramID, int64) {
	if rr.marks.Len() == 0 {
		return rr.b.program(wholeCapture), 0
	}
	if tid.Valid {
		if g := rr.marks.Outermost(tid.Int64, start); g >= 0 {
			return rr.b.rangeProgram(rr.markNm[g], rr.runNo<<32|int64(g))
		}
	}
	return rr.b.program(noMarker), 0
}

func (rr *rocpdReader) finish(inv *capture.Section) {
	c := rr.b.c
	if n := rr.dropped["any"]; n > 0 {
		g := c.Accounting.Gap(capture.ViewDroppedRows, "")
		g.AddN(n)
		g.Summary = "dispatch rows that rocpd's own views (kernels, …) drop because a related row is missing; tally reads the base tables and keeps them"
		for _, w := range []string{"kernel symbol", "agent", "queue", "thread", "event", "region name"} {
			if v := rr.dropped[w]; v > 0 {
				g.SetFigure("missing "+w, v)
			}
		}
	}
	rr.b.finish("the database's kernel dispatch table is empty or absent: kernel tracing was not enabled (--kernel-trace / --sys-trace), produced nothing, or the process exited before its buffers were flushed")
	inv.Add("dispatch rows", rr.b.unit.Read)
	inv.Add("dispatches", rr.b.dispatches)
	if rr.b.copies > 0 {
		inv.Add("memory copies", rr.b.copies)
	}
	var known []string
	for _, l := range rocpdTables {
		known = append(known, l+"*")
	}
	if u := rr.db.Unknown(known); len(u) > 0 {
		inv.Add("tables not read", strings.Join(u, ", "))
	}
	c.Inventory = append(c.Inventory, *inv)
}
