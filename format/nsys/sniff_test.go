package nsys

import (
	"path/filepath"
	"testing"

	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// An export is claimed by its schema: tables (or an index or view) named
// as Nsight Systems names them. Another program's database is not, though
// its rows mention those names.
func TestSniffBySchema(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		sql  []string
		want format.Confidence
	}{
		{"generated export", nil, format.Certain},
		{"real export", []string{"testdata/h100_2gpu_1s.sqlite"}, format.Certain},
		{"a table of the name", []string{`CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT)`}, format.Certain},
		{"quoted", []string{`CREATE TABLE "CUPTI_ACTIVITY_KIND_KERNEL" (start INTEGER)`}, format.Certain},
		{"a row naming it", []string{`CREATE TABLE notes (body TEXT)`, `INSERT INTO notes VALUES ('StringIds CUPTI_ACTIVITY_KIND_KERNEL NVTX_EVENTS')`}, format.No},
		{"a longer name", []string{`CREATE TABLE StringIdsBackup (x INTEGER)`}, format.No},
		{"another database", []string{`CREATE TABLE t (x INTEGER)`}, format.No},
	} {
		var p string
		switch {
		case tc.sql == nil:
			p = genDB(t, genOpts{kernels: 2})
		case filepath.Ext(tc.sql[0]) == ".sqlite":
			p = tc.sql[0]
		default:
			p = fixture.SQLite(t, filepath.Join(dir, tc.name+".db"), tc.sql...)
		}
		if got := Sniff(fixture.Read(t, p)); got != tc.want {
			t.Errorf("%s: Sniff = %v, want %v", tc.name, got, tc.want)
		}
	}
}
