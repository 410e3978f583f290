package export

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tallyprof/tally/internal/checkedfile"
)

// TestParquetFileAfterCleanup: a dispatches file created after a signal's
// cleanup removed the dataset's temporary directory fails, and does not
// bring the directory back. Found by the second sweep: tally export --to
// parquet of a 300 MB kept trace, SIGINT 0.1 s in, left
// .pq.tmpNNN/dispatches/rank=0/input-00000.parquet behind (MkdirAll made
// the removed directory again).
func TestParquetFileAfterCleanup(t *testing.T) {
	d, err := checkedfile.CreateDir(filepath.Join(t.TempDir(), "pq"), datasetMarker)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(d.Temp(), "dispatches", "rank=0", "input-00000.parquet")
	f, err := createParquet[DispatchRow](d, p)
	if err != nil {
		t.Fatalf("before the cleanup: got %v, want the file", err)
	}
	f.abort()
	os.RemoveAll(d.Temp()) // the signal handler's cleanup
	if f, err := createParquet[DispatchRow](d, p); err == nil {
		f.abort()
		t.Error("after the cleanup: got a file, want an error")
	}
	if _, err := os.Stat(d.Temp()); err == nil {
		t.Errorf("after the cleanup: got %s made again, want it gone", d.Temp())
	}
}
