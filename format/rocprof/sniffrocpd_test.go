package rocprof

import (
	"path/filepath"
	"testing"

	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// A rocpd database is claimed by its schema (rocpd_ tables and views),
// not by "rocpd_" anywhere in it: another program's rows may mention it.
func TestSniffRocpdBySchema(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		p    string
		want format.Confidence
	}{
		{"generated rocpd", genRocpd(t), format.Certain},
		{"a row naming it", fixture.SQLite(t, filepath.Join(dir, "notes.db"), `CREATE TABLE notes (body TEXT)`, `INSERT INTO notes VALUES ('see rocpd_kernel_dispatch')`), format.No},
		{"another database", fixture.SQLite(t, filepath.Join(dir, "t.db"), `CREATE TABLE t (x INTEGER)`), format.No},
	} {
		if got := SniffRocpd(fixture.Read(t, tc.p)); got != tc.want {
			t.Errorf("%s: SniffRocpd = %v, want %v", tc.name, got, tc.want)
		}
	}
}
