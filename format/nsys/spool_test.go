package nsys

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
	"github.com/tallyprof/tally/format/internal/sqlitein"
)

// A .sqlite.gz that inflates far beyond its size (a database header, then
// 64 MiB of zeros, in 64 KiB) is not inflated into TMPDIR without bound:
// it ends in a *format.Error naming the file, the limit and how to raise
// it, and no temporary copy is left. A real export inflates and reads
// under the same limit.
func TestSpoolLimit(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv(format.SpoolLimitEnv, "")
	saved := format.SpoolFloor
	defer func() { format.SpoolFloor = saved }()
	format.SpoolFloor = 4 << 20 // the real sample inflates to 2.2 MB
	gzFile := func(name string, data []byte) string {
		return fixture.Write(t, t.TempDir(), name, fixture.Gzip(t, data))
	}
	bomb := gzFile("bomb.sqlite.gz", append(append([]byte{}, sqlitein.Magic...), make([]byte, 64<<20)...))
	_, err := format.ReadFile(bomb, Name, nil, nil)
	var fe *format.Error
	var le *format.SpoolLimitError
	if !errors.As(err, &fe) || !errors.As(err, &le) || fe.Path != bomb || !strings.Contains(err.Error(), "spool limit of") || !strings.Contains(err.Error(), format.SpoolLimitEnv+"=") {
		t.Errorf("gzip bomb: %v; want a *format.Error naming the file, the spool limit and %s", err, format.SpoolLimitEnv)
	}
	good := fixture.Read(t, sample)
	if c, err := format.ReadFile(gzFile("real.sqlite.gz", good), Name, nil, nil); err != nil || c.Accounting.Input[0].Read == 0 {
		t.Errorf("a real export under the limit: got %v, want it read", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("got %v left in TMPDIR, want nothing", left)
	}
}
