// Package duckdbcheck verifies tally's Parquet datasets with an independent
// reader: DuckDB opens an exported dataset and runs the example queries of
// docs/export.md verbatim. It is its own module so that the tally binary
// stays pure Go (DuckDB needs cgo); .ci/run runs it.
package duckdbcheck

import (
	"database/sql"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/tallyprof/tally/export"
	"github.com/tallyprof/tally/format"
	_ "github.com/tallyprof/tally/format/all"
	"github.com/tallyprof/tally/inputs"
	"github.com/tallyprof/tally/internal/gen/collgen"
)

const (
	example   = "../../examples/decode-fault.kept"
	manifests = "../../examples/kernels"
)

// docQueries returns the ```sql blocks of docs/export.md.
func docQueries(t *testing.T) []string {
	b, err := os.ReadFile("../../docs/export.md")
	if err != nil {
		t.Fatal(err)
	}
	var qs []string
	for _, m := range regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		qs = append(qs, m[1])
	}
	if len(qs) != 5 {
		t.Fatalf("docs/export.md has %d sql blocks, want the 5 example queries (breakdown, top kernels, steps, incomplete captures, stragglers)", len(qs))
	}
	return qs
}

func query(t *testing.T, db *sql.DB, q string) [][]any {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]any
	for rows.Next() {
		v := make([]any, len(cols))
		p := make([]any, len(cols))
		for i := range v {
			p[i] = &v[i]
		}
		if err := rows.Scan(p...); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDatasetQueries exports the example and a twin of it (as ranks 0 and
// 1: the same file named twice, or a byte-for-byte copy, is read once, so
// the twin ends with one more empty line) and runs the documented queries,
// checking their answers against tally's own tables.
func TestDatasetQueries(t *testing.T) {
	out := filepath.Join(t.TempDir(), "ds")
	opt := export.Options{To: export.Parquet, Out: out, Reader: format.Options{Manifests: []string{manifests}}}
	data, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	twin := filepath.Join(t.TempDir(), "twin.kept")
	if err := os.WriteFile(twin, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := export.Run([]string{example, twin}, opt); err != nil {
		t.Fatal(err)
	}
	run := inputs.Expand([]string{example}, "").Read(inputs.Options{Reader: format.Options{Manifests: []string{manifests}}})
	if err := run.Err(); err != nil {
		t.Fatal(err)
	}
	res := run.Inputs[0]
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	qs := docQueries(t)
	sub := func(q string) string { return strings.ReplaceAll(q, "'OUT/", "'"+out+"/") }

	// 1. Top kernels per program across ranks: the first row of each
	// program is tally's costliest kernel of that program, twice over.
	top := query(t, db, sub(qs[1]))
	firstOf := map[string][]any{}
	for _, r := range top {
		if _, ok := firstOf[r[0].(string)]; !ok {
			firstOf[r[0].(string)] = r
		}
	}
	for _, pt := range res.Tables.Programs {
		r := firstOf[pt.Program.Name]
		if r == nil {
			t.Fatalf("program %s missing from the top-kernels query: %v", pt.Program.Name, top)
		}
		// The same kernel name can have rows in several lists (init, main):
		// the query sums them, so compare with the sum by name.
		var want, disp int64
		for _, k := range pt.Kernels {
			if k.Kernel.Name == r[1].(string) {
				want += k.Total
				disp += k.Dispatches
			}
		}
		if got := toI64(r[3]); got != 2*want || toI64(r[2]) != 2*disp || toI64(r[4]) != 2 {
			t.Errorf("program %s top kernel %v: want device_ns %d, dispatches %d over 2 ranks", pt.Program.Name, r, 2*want, 2*disp)
		}
		if r[1].(string) != pt.Kernels[0].Kernel.Name {
			t.Errorf("program %s: top kernel %v, tally's is %s", pt.Program.Name, r[1], pt.Kernels[0].Kernel.Name)
		}
	}

	// 2. Slowest rank per step: both ranks are the same input, so each
	// step's slowest and fastest agree, and every run of p41 is a step.
	steps := query(t, db, sub(qs[2]))
	runs := map[string]int{}
	for _, r := range steps {
		runs[r[0].(string)]++
		if toI64(r[3]) != toI64(r[4]) || toI64(r[5]) != 2 {
			t.Errorf("step %v: two copies of one input differ", r)
		}
	}
	if runs["p41"] != 5 || runs["p96"] != 1 {
		t.Errorf("steps per program %v, want p41:5 p96:1", runs)
	}

	// 3. Every incomplete capture: both inputs, each with every counted gap
	// tally's own accounting holds.
	inc := query(t, db, sub(qs[3]))
	want := map[string]bool{}
	for _, g := range res.Capture.Accounting.Gaps {
		if !g.Kind.IsNote() {
			want[string(g.Kind)] = true
		}
	}
	if len(want) == 0 || len(inc) != 2*len(want) {
		t.Fatalf("incomplete-capture query: %d rows, want %d (%d gaps × 2 inputs): %v", len(inc), 2*len(want), len(want), inc)
	}
	kinds := map[string]int{}
	for _, r := range inc {
		kinds[r[3].(string)]++
	}
	for k := range want {
		if kinds[k] != 2 {
			t.Errorf("gap %s: %d rows, want one per input: %v", k, kinds[k], inc)
		}
	}
}

// TestDatasetTypes checks what DuckDB sees: typed columns, nulls (never 0)
// where the input recorded no time, dictionary-encoded names, and the
// per-rank partition files.
func TestDatasetTypes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "ds")
	opt := export.Options{To: export.Parquet, Out: out, Reader: format.Options{Manifests: []string{manifests}}}
	if _, err := export.Run([]string{example}, opt); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	glob := "'" + out + "/dispatches/*/*.parquet'"
	types := map[string]string{}
	for _, r := range query(t, db, "DESCRIBE SELECT * FROM read_parquet("+glob+", hive_partitioning = true)") {
		types[r[0].(string)] = r[1].(string)
	}
	for col, want := range map[string]string{"start_ns": "BIGINT", "end_ns": "BIGINT", "launch_start_ns": "BIGINT",
		"launch_end_ns": "BIGINT", "run": "BIGINT", "kernel": "VARCHAR", "program": "VARCHAR", "category": "VARCHAR",
		"queue": "VARCHAR", "kernel_id": "UBIGINT", "dispatches": "BIGINT"} {
		if types[col] != want {
			t.Errorf("column %s is %q, want %s", col, types[col], want)
		}
	}
	n := query(t, db, "SELECT count(*), count(start_ns), count(launch_start_ns), sum(dispatches), min(device_ns) FROM read_parquet("+glob+")")
	if toI64(n[0][0]) != 287 || toI64(n[0][1]) != 287 || toI64(n[0][3]) != 287 || toI64(n[0][4]) <= 0 {
		t.Errorf("rows, timed rows, dispatches, min device_ns = %v", n[0])
	}
	// The breakdown table: one device row, whose busy and idle columns add
	// up to its window.
	bd := query(t, db, "SELECT count(*), sum(window_ns), sum(window_ns - (busy_compute_ns + busy_comm_ns + busy_memcpy_ns + busy_memset_ns + "+
		"idle_host_wait_ns + idle_launch_latency_ns + idle_other_stream_ns + idle_unrecorded_ns + idle_unexplained_ns)) FROM read_parquet('"+out+"/breakdown.parquet')")
	if toI64(bd[0][0]) != 1 || toI64(bd[0][1]) <= 0 || toI64(bd[0][2]) != 0 {
		t.Errorf("breakdown rows, window, window − (busy + idle) = %v, want 1, > 0, 0", bd[0])
	}
	// The documented host-wait query, verbatim: the one device row, its
	// share within 0..100.
	hw := query(t, db, strings.ReplaceAll(docQueries(t)[0], "'OUT/", "'"+out+"/"))
	if len(hw) != 1 || toI64(hw[0][2]) != toI64(bd[0][1]) {
		t.Errorf("host-wait query: %v, want one row of window %v", hw, bd[0][1])
	} else if pct, ok := hw[0][3].(float64); !ok || pct < 0 || pct > 100 {
		t.Errorf("host-wait share %v, want a number within 0..100", hw[0][3])
	}
	enc := query(t, db, "SELECT encodings FROM parquet_metadata('"+out+"/dispatches/rank=0/input-00000.parquet') WHERE path_in_schema = 'kernel'")
	if len(enc) == 0 || !strings.Contains(enc[0][0].(string), "DICTIONARY") {
		t.Errorf("kernel column encodings %v, want dictionary", enc)
	}
}

func toI64(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	case uint64:
		return int64(x)
	case float64:
		return int64(x)
	case *big.Int:
		return x.Int64()
	}
	return -1 << 62
}

// TestStragglerQuery exports a generated job of 16 ranks with a planted
// slow rank and runs the documented straggler query: it names the planted
// rank, last in every instance, and the others' summed waits.
func TestStragglerQuery(t *testing.T) {
	cfg := collgen.Default()
	cfg.Ranks, cfg.Slow, cfg.MissingRank, cfg.Instances = 16, 11, -1, 10
	cfg.Delay = max(cfg.Delay, 2*int64(cfg.Ranks)*cfg.Step)
	dir := t.TempDir()
	paths, err := collgen.WriteDir(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "ds")
	if _, err := export.Run(paths, export.Options{To: export.Parquet, Out: out}); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := strings.ReplaceAll(docQueries(t)[4], "'OUT/", "'"+out+"/")
	rows := query(t, db, q)
	var wait int64
	for r := range cfg.Ranks {
		if r != cfg.Slow {
			wait += cfg.Delay - int64(r)*cfg.Step
		}
	}
	wait *= int64(cfg.Instances)
	if len(rows) != 1 || toI64(rows[0][0]) != int64(cfg.Slow) || toI64(rows[0][1]) != int64(cfg.Instances) || toI64(rows[0][2]) != wait {
		t.Errorf("straggler query: got %v, want [[%d %d %d]]", rows, cfg.Slow, cfg.Instances, wait)
	}
}
