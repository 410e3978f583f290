package format

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tallyprof/tally/format/internal/fixture"
	"github.com/tallyprof/tally/internal/cleanup"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1048576": 1 << 20, "1MiB": 1 << 20, "1M": 1 << 20, "64 GiB": 64 << 30,
		"2k": 2 << 10, "3GB": 3 << 30, "1T": 1 << 40, "unlimited": -1, "Unlimited": -1, " 7B ": 7} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "G", "1.5G", "-1", "12 parsecs", "99999999999T"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
}

// The default limit bounds amplification only: 100 times the compressed
// size, at least 1 GiB, and none for a plain stream; TALLY_SPOOL_LIMIT
// replaces both.
func TestSpoolLimitRule(t *testing.T) {
	t.Setenv(SpoolLimitEnv, "")
	for _, c := range []struct{ compressed, want int64 }{{3 << 20, 1 << 30}, {100 << 20, 100 * 100 << 20}, {-1, -1}} {
		if got, _, err := spoolLimit(c.compressed); err != nil || got != c.want {
			t.Errorf("compressed %d: limit %d, %v; want %d", c.compressed, got, err, c.want)
		}
	}
	t.Setenv(SpoolLimitEnv, "1MiB")
	for _, compressed := range []int64{3 << 20, -1} {
		if got, _, _ := spoolLimit(compressed); got != 1<<20 {
			t.Errorf("%s=1MiB, compressed %d: got limit %d, want %d", SpoolLimitEnv, compressed, got, 1<<20)
		}
	}
	t.Setenv(SpoolLimitEnv, "lots")
	if _, _, err := spoolLimit(-1); err == nil || !strings.Contains(err.Error(), SpoolLimitEnv+`="lots"`) {
		t.Errorf("a bad %s: %v, want an error naming it", SpoolLimitEnv, err)
	}
}

// bomb writes n bytes of zeros, gzipped, as name in a new directory.
func bomb(t *testing.T, name string, n int) string {
	t.Helper()
	p := fixture.Write(t, t.TempDir(), name, gz(t, make([]byte, n)))
	return p
}

// TestTempFileStopsAtLimit: a gzip bomb (64 MiB of zeros in 64 KiB) stops
// at the limit with a *Error naming the file, the limit and how to raise
// it, and leaves no temporary file; data under the limit is copied whole,
// tracked for the signal cleanup until removed.
func TestTempFileStopsAtLimit(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	big := bomb(t, "bomb.sqlite.gz", 64<<20)
	saved := SpoolFloor
	defer func() { SpoolFloor = saved }()
	SpoolFloor = 1 << 20
	for _, c := range []struct{ env, want string }{
		{"1MiB", "spool limit of 1 MiB set by " + SpoolLimitEnv},
		{"", "times the "}, // the default: 100 times the compressed size
	} {
		t.Setenv(SpoolLimitEnv, c.env)
		in, err := Open(big)
		if err != nil {
			t.Fatal(err)
		}
		_, err = in.TempFile("tally-test-*", "SQLite")
		in.Close()
		var fe *Error
		var le *SpoolLimitError
		if !errors.As(err, &fe) || !errors.As(err, &le) || fe.Path != big || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), SpoolLimitEnv+"=") {
			t.Errorf("%s=%q: %v; want a *format.Error naming %s, %q and how to raise the limit", SpoolLimitEnv, c.env, err, big, c.want)
		}
		if left, _ := os.ReadDir(tmp); len(left) > 0 {
			t.Errorf("%s=%q: got %v left in TMPDIR, want nothing", SpoolLimitEnv, c.env, left)
		}
	}
	// Under the limit (512 KiB, floor 1 MiB): copied whole.
	t.Setenv(SpoolLimitEnv, "")
	in, err := Open(bomb(t, "small.gz", 512<<10))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	name, err := in.TempFile("tally-test-*", "SQLite")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(name); !bytes.Equal(b, make([]byte, 512<<10)) {
		t.Errorf("copy of %d bytes, want the 512 KiB inflated", len(b))
	}
	if !slices.Contains(cleanup.Tracked(), name) {
		t.Errorf("%s not tracked for the signal cleanup, want it tracked", name)
	}
	if err := RemoveTempFile(name); err != nil || slices.Contains(cleanup.Tracked(), name) {
		t.Errorf("RemoveTempFile: got %v, tracked %v; want no error and %s untracked", err, cleanup.Tracked(), name)
	}
}

// TestRandomAccessLimit: a plain stream is spooled whole by default and
// stops at TALLY_SPOOL_LIMIT when it is set.
func TestRandomAccessLimit(t *testing.T) {
	data := bytes.Repeat([]byte("MAGIC stream "), 200<<10) // 2.6 MB
	for _, c := range []struct {
		env  string
		fail bool
	}{{"", false}, {"1M", true}, {"unlimited", false}} {
		t.Setenv(SpoolLimitEnv, c.env)
		in, err := Open(fifo(t, data))
		if err != nil {
			t.Fatal(err)
		}
		err = in.RandomAccess("test")
		var fe *Error
		if c.fail != (err != nil) || c.fail && (!errors.As(err, &fe) || !strings.Contains(err.Error(), "1 MiB set by "+SpoolLimitEnv)) {
			t.Errorf("%s=%q: got %v, want an error: %v (a *format.Error naming the 1 MiB set by %s)", SpoolLimitEnv, c.env, err, c.fail, SpoolLimitEnv)
		}
		if !c.fail && in.Size != int64(len(data)) {
			t.Errorf("%s=%q: got %d bytes spooled, want all %d", SpoolLimitEnv, c.env, in.Size, len(data))
		}
		in.Close()
	}
}
