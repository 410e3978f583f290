package export

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tallyprof/tally/internal/checkedfile"
)

// TestKillBetweenRenames: a kill between the two renames of an export (a
// test hook stops there, as a SIGKILL would) leaves the new gaps file
// beside the previous table — never a new table beside the old gaps — and
// CheckPair tells the two apart.
func TestKillBetweenRenames(t *testing.T) {
	for _, to := range []string{CSV, JSONL} {
		t.Run(to, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out."+to)
			gaps := out + ".gaps." + to
			run(t, []string{example}, exampleOpts(to, out))
			first, err := CheckPair(out, gaps)
			if err != nil {
				t.Fatalf("a whole export: got %v, want no error", err)
			}
			if first.Rows != 287 {
				t.Errorf("rows %d, want 287", first.Rows)
			}
			oldOut, oldGaps := read(t, out), read(t, gaps)

			killed := errors.New("killed between the renames")
			commitAll = func(ps ...*checkedfile.Pending) error {
				if len(ps) != 2 || ps[0].Path() != gaps || ps[1].Path() != out {
					t.Errorf("commit order %s, %s; want the gaps file first, then the table", ps[0].Path(), ps[1].Path())
				}
				if err := ps[0].Commit(); err != nil {
					return err
				}
				return killed
			}
			defer func() { commitAll = checkedfile.CommitAll }()
			in := writeSynth(t, t.TempDir(), "b.synth", synthSpec{N: 5, Kernels: 1})
			if _, err := Run([]string{in}, Options{To: to, Out: out, Format: synthFormat}); !errors.Is(err, killed) {
				t.Fatalf("second export: got %v, want the killed error", err)
			}
			if !bytes.Equal(read(t, out), oldOut) || bytes.Equal(read(t, gaps), oldGaps) {
				t.Fatal("want the previous table beside the new gaps file")
			}
			_, err = CheckPair(out, gaps)
			if !errors.Is(err, ErrNotOnePair) || !strings.Contains(err.Error(), "different exports") || !strings.Contains(err.Error(), first.ExportID) {
				t.Fatalf("CheckPair after the kill: %v, want different exports naming %s", err, first.ExportID)
			}
		})
	}
}

// TestCheckPairMismatches: each way a table and a gaps file can fail to
// belong together ends in an error naming it; an untouched pair passes.
func TestCheckPairMismatches(t *testing.T) {
	dir := t.TempDir()
	export := func(name, to string, spec synthSpec) (string, string) {
		out := filepath.Join(dir, name+"."+to)
		run(t, []string{writeSynth(t, dir, name+".synth", spec)}, Options{To: to, Out: out, Format: synthFormat})
		return out, out + ".gaps." + to
	}
	for _, to := range []string{CSV, JSONL} {
		a, aGaps := export("a", to, synthSpec{N: 6, Kernels: 2})
		b, bGaps := export("b", to, synthSpec{N: 6, Kernels: 2})
		empty, emptyGaps := export("empty", to, synthSpec{N: 0})
		_, empty2Gaps := export("empty2", to, synthSpec{N: 0})
		pa, err := CheckPair(a, aGaps)
		if err != nil {
			t.Fatalf("%s: got %v, want no error", to, err)
		}
		if pa.Rows != 6 || pa.Bytes != int64(len(read(t, a))) || time.Since(pa.Written) > time.Hour || time.Since(pa.Written) < 0 {
			t.Errorf("%s: %+v, want 6 rows, %d bytes, written now", to, pa, len(read(t, a)))
		}
		if pb, _ := CheckPair(b, bGaps); pb == nil || pb.ExportID == pa.ExportID {
			t.Errorf("%s: got two exports with one id %s, want distinct ids", to, pa.ExportID)
		}
		// An empty table carries no id, but it is the same bytes as any
		// other export's empty table: its rows and size still tell.
		if p, err := CheckPair(empty, empty2Gaps); err != nil || p.Rows != 0 {
			t.Errorf("%s: an empty table beside another empty export's gaps: got %v, want it accepted with 0 rows", to, err)
		}
		edit := func(name string, b []byte) string {
			p := filepath.Join(dir, name+"."+to)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}
		lines := bytes.SplitAfter(read(t, a), []byte("\n"))
		bLines := bytes.SplitAfter(read(t, b), []byte("\n"))
		noID := bytes.ReplaceAll(read(t, a), []byte(","+ExportIDColumn), nil)
		noID = bytes.ReplaceAll(noID, []byte(`,"`+ExportIDColumn+`":"`+pa.ExportID+`"`), nil)
		noID = bytes.ReplaceAll(noID, []byte(","+pa.ExportID), nil)
		for _, c := range []struct {
			name, table, gaps, want string
		}{
			{"other export's table", b, aGaps, "different exports"},
			{"other export's gaps", a, bGaps, "different exports"},
			{"rows of two exports", edit("mixed", append(bytes.Join(lines[:len(lines)-1], nil), bLines[len(bLines)-2]...)), aGaps, "mixes the rows of two exports"},
			{"a cut table", edit("cut", bytes.Join(lines[:len(lines)-2], nil)), aGaps, "describes a table of 6 rows"},
			{"an empty table beside a full export's gaps", empty, aGaps, "describes a table of 6 rows"},
			{"a full table beside an empty export's gaps", a, emptyGaps, "different exports"},
			{"no export_id", edit("old", noID), aGaps, "no " + ExportIDColumn},
			{"a table as its own gaps file", a, a, "not the gaps file"},
		} {
			_, err := CheckPair(c.table, c.gaps)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, %s: %v, want %q", to, c.name, err, c.want)
			}
		}
	}
}

func TestNewExportID(t *testing.T) {
	now := time.Date(2025, 3, 4, 5, 6, 7, 890e6, time.UTC)
	a, err := newExportID(now)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := newExportID(now)
	if a == b || !exportIDPattern.MatchString(a) || len(a) != 36 {
		t.Fatalf("ids %s, %s: want two different version-7 UUIDs", a, b)
	}
	if got, ok := exportIDTime(a); !ok || !got.Equal(now) {
		t.Errorf("time of %s: %v, want %v", a, got, now)
	}
}
