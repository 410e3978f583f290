package duckdbcheck

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/export"
)

// The documented queries run on datasets of hostile inputs (found by the
// output sweep): a kernel name that is not UTF-8 (DuckDB refused the whole
// dataset: "Invalid string encoding found in Parquet file"), and an input
// whose one dispatch has impossible times, so no dispatch row at all (the
// dispatches/*/*.parquet glob matched nothing: "No files found").
func TestHostileDatasets(t *testing.T) {
	const header = `"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp"` + "\n"
	row := func(id, name, start, end string) string {
		return `"KERNEL_DISPATCH","Agent 4",1,1,834304,` + id + `,10,"` + name + `",` + id + `,` + start + `,` + end + "\n"
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	qs := docQueries(t)
	for _, c := range []struct {
		name, csv string
		kernels   []string // the dispatches' kernel column, in order
	}{
		{"name not UTF-8", header + row("1", "bad\xff\xfe(end", "1000", "2000") + row("2", "ok", "3000", "4000"), []string{"bad\uFFFD\uFFFD(end", "ok"}},
		{"no dispatch row", header + row("1", "k", "2000", "1000"), nil},
	} {
		dir := t.TempDir()
		in := filepath.Join(dir, "kernel_trace.csv")
		if err := os.WriteFile(in, []byte(c.csv), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "ds")
		if _, err := export.Run([]string{in}, export.Options{To: export.Parquet, Out: out}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, q := range qs {
			query(t, db, strings.ReplaceAll(q, "'OUT/", "'"+out+"/"))
		}
		var got []string
		for _, r := range query(t, db, "SELECT kernel FROM read_parquet('"+out+"/dispatches/*/*.parquet', hive_partitioning = true) ORDER BY start_ns") {
			got = append(got, r[0].(string))
		}
		if strings.Join(got, "|") != strings.Join(c.kernels, "|") {
			t.Errorf("%s: got kernels %q, want %q", c.name, got, c.kernels)
		}
	}
}
