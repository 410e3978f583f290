package all

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// subdir makes the directory name in dir and returns its path: each arm
// of a fixture writes its input into a directory of its own.
func subdir(t *testing.T, dir, name string) string {
	t.Helper()
	d := filepath.Join(dir, name)
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// eachFixture runs check as a subtest for every reader's promise fixtures,
// readers in name order, named reader/variant.
func eachFixture(t *testing.T, check func(t *testing.T, reader string, fx promiseFixture)) {
	names := slices.Sorted(maps.Keys(promiseFixtures))
	for _, reader := range names {
		for _, fx := range promiseFixtures[reader] {
			t.Run(strings.Trim(reader+"/"+fx.variant, "/"), func(t *testing.T) { check(t, reader, fx) })
		}
	}
}

// edited makes a fixture arm from rows: the arm for change writes base's
// rows as change leaves them (write puts them under dir, returning the
// path). The identity edit is the base arm.
func edited[R any](base func() []R, write func(t *testing.T, dir string, rows []R) string) func(change func([]R) []R) func(*testing.T, string) string {
	return func(change func([]R) []R) func(*testing.T, string) string {
		return func(t *testing.T, dir string) string { return write(t, dir, change(base())) }
	}
}

func unchanged[R any](rows []R) []R { return rows }

// picked makes a fixture's records arm from rows (see promiseFixture.records).
func picked[R any](base func() []R, write func(t *testing.T, dir string, rows []R) string) func(*testing.T, string, func(int) []int) string {
	return func(t *testing.T, dir string, pick func(int) []int) string {
		rows := base()
		var out []R
		for _, i := range pick(len(rows)) {
			out = append(out, rows[i])
		}
		return write(t, dir, out)
	}
}

// pickedLines is picked over the lines of a text a fixture writes whole.
func pickedLines(text func() string, name string) func(*testing.T, string, func(int) []int) string {
	return picked(func() []string { return strings.SplitAfter(strings.TrimSuffix(text(), "\n"), "\n") },
		func(t *testing.T, dir string, lines []string) string {
			var b strings.Builder
			for _, l := range lines {
				b.WriteString(strings.TrimSuffix(l, "\n") + "\n")
			}
			return fixture.Write(t, dir, name, []byte(b.String()))
		})
}

// dbFixture is the fixture of a reader of SQLite databases: the dispatch
// rows base gives, written by write; unreadable and impossible edit row 1,
// the repeat writes row 1 twice. A database is written whole: a cut at a
// page boundary is refused from its header's page count (rows missing from
// a file that is whole cannot be seen: the reader's docs/formats page).
func dbFixture[R any](base func() []R, write func(t *testing.T, dir string, rows []R) string, unreadable, impossible func(row *R), repeatKind capture.Kind) promiseFixture {
	with := edited(base, write)
	return promiseFixture{
		base:       with(unchanged[R]),
		unreadable: with(func(rs []R) []R { unreadable(&rs[1]); return rs }),
		impossible: with(func(rs []R) []R { impossible(&rs[1]); return rs }),
		repeated:   with(func(rs []R) []R { return append(rs, rs[1]) }),
		repeatKind: repeatKind,
		cut: func(t *testing.T, dir string) string {
			return sqliteCutLastPage(t, write(t, dir, base()))
		},
		cutIsError: true,
		records:    picked(base, write),
	}
}

// sqlValue is a fixture row's value in an INSERT: NULL where the row
// leaves it empty (the edits that blank a column).
func sqlValue(v string) string {
	if v == "" {
		return "NULL"
	}
	return v
}
