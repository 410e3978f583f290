package sqlitein

import (
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/format/internal/fixture"
)

// makeDB creates a database at a new path with the statements run in order.
func makeDB(t testing.TB, pragmas string, stmts ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := sql.Open("sqlite", "file:"+path+pragmas)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("got error %v, want none, from\n%s", err, q)
		}
	}
	return path
}

func openDB(t testing.TB, path string) *DB {
	t.Helper()
	d, err := Open(&format.Input{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// scanAll reads every row by a direct scan, as text lines "rowid|v|v…"
// (NULL for NULL), in the form sqlRows gives.
func scanAll(d *DB, table string, cols []string, kinds []Kind) ([]string, error) {
	s, err := d.Scan(table, cols, kinds)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var out []string
	for s.Next() {
		f := []string{fmt.Sprint(s.Rowid())}
		for i, k := range kinds {
			switch k {
			case Int:
				if v, ok := s.Int(i); ok {
					f = append(f, fmt.Sprint(v))
				} else {
					f = append(f, "NULL")
				}
			case Text:
				if v, ok := s.Text(i); ok {
					f = append(f, "'"+string(v)+"'")
				} else {
					f = append(f, "NULL")
				}
			}
		}
		out = append(out, strings.Join(f, "|"))
	}
	return out, s.Err()
}

// sqlRows is scanAll through SQL.
func sqlRows(t *testing.T, d *DB, table string, cols []string, kinds []Kind) []string {
	t.Helper()
	var sel []string
	for _, c := range cols {
		sel = append(sel, d.Col("t", table, c))
	}
	rows, err := d.Query(`SELECT rowid, ` + strings.Join(sel, ", ") + ` FROM ` + Quote(table) + ` t ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id int64
		vals := make([]sql.NullInt64, len(cols))
		texts := make([]sql.NullString, len(cols))
		dest := []any{&id}
		for i, k := range kinds {
			if k == Int {
				dest = append(dest, &vals[i])
			} else {
				dest = append(dest, &texts[i])
			}
		}
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		f := []string{fmt.Sprint(id)}
		for i, k := range kinds {
			switch {
			case k == Int && vals[i].Valid:
				f = append(f, fmt.Sprint(vals[i].Int64))
			case k == Text && texts[i].Valid:
				f = append(f, "'"+texts[i].String+"'")
			default:
				f = append(f, "NULL")
			}
		}
		out = append(out, strings.Join(f, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestScanMatchesSQL: the direct scan reads what SQL reads, row for row,
// on B-trees several levels deep (small pages), records that overflow
// their page, every integer width, NULLs, BLOBs, and records written
// before an ALTER TABLE ADD COLUMN (shorter than the schema).
func TestScanMatchesSQL(t *testing.T) {
	ints := []int64{0, 1, -1, 127, -128, 128, 32767, -32768, 1 << 23, -(1 << 23), math.MaxInt32, math.MinInt32, 1 << 40, -(1 << 47), math.MaxInt64, math.MinInt64}
	var vals []string
	for i, v := range ints {
		vals = append(vals, fmt.Sprintf("(%d, %d, 'x%d', NULL)", v, -v, i))
	}
	for _, ps := range []int{512, 4096, 65536} {
		t.Run(fmt.Sprint(ps), func(t *testing.T) {
			path := makeDB(t, fmt.Sprintf("?_pragma=page_size(%d)", ps),
				`CREATE TABLE t (a INTEGER, b INTEGER NOT NULL, c TEXT, d BLOB)`,
				`INSERT INTO t VALUES `+strings.Join(vals, ", "),
				`WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM c WHERE i < 20000)
					INSERT INTO t SELECT i * 1000003, i % 7, CASE WHEN i % 997 = 0 THEN printf('%.*c', 3000 + i, 'z') WHEN i % 5 = 0 THEN NULL ELSE 'r' || i END,
					CASE WHEN i % 3 = 0 THEN x'00ff10' END FROM c`,
				`DELETE FROM t WHERE a % 11 = 3`, // rowid gaps, freed cells
				`ALTER TABLE t ADD COLUMN e INTEGER`,
				`INSERT INTO t VALUES (5, 6, 'after', NULL, 77)`,
			)
			d := openDB(t, path)
			cols := []string{"a", "b", "c", "d", "e", "absent"}
			kinds := []Kind{Int, Int, Text, Text, Int, Int}
			got, err := scanAll(d, "t", cols, kinds)
			if err != nil {
				t.Fatal(err)
			}
			want := sqlRows(t, d, "t", cols, kinds)
			if len(got) != len(want) || len(got) < 18000 {
				t.Fatalf("got %d rows, want %d (SQL)", len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("row %d: got %.200s, want %.200s", i, got[i], want[i])
				}
			}
		})
	}
}

// TestScanUnsupported: what the scanner does not read is an *Unsupported
// error (the caller reads through SQL), never a wrong value.
func TestScanUnsupported(t *testing.T) {
	cases := []struct {
		name   string
		pragma string
		stmts  []string
		col    string
		kind   Kind
	}{
		{"without rowid", "", []string{`CREATE TABLE t (a INTEGER PRIMARY KEY, b INTEGER) WITHOUT ROWID`, `INSERT INTO t VALUES (1, 2)`}, "b", Int},
		{"utf-16", "?_pragma=encoding('UTF-16le')", []string{`CREATE TABLE t (a INTEGER, b TEXT)`, `INSERT INTO t VALUES (1, 'x')`}, "b", Text},
		{"real value", "", []string{`CREATE TABLE t (a INTEGER, b)`, `INSERT INTO t VALUES (1, 2.5)`}, "b", Int},
		{"text in an integer column", "", []string{`CREATE TABLE t (a INTEGER, b INTEGER)`, `INSERT INTO t VALUES (1, 'seven')`}, "b", Int},
		{"integer in a text column", "", []string{`CREATE TABLE t (a INTEGER, b)`, `INSERT INTO t VALUES (1, 7)`}, "b", Text},
		{"real affinity", "", []string{`CREATE TABLE t (a INTEGER, b REAL)`, `INSERT INTO t VALUES (1, 2)`}, "b", Int},
		{"rowid alias", "", []string{`CREATE TABLE t (b INTEGER PRIMARY KEY, a INTEGER)`, `INSERT INTO t VALUES (1, 2)`}, "b", Int},
		{"default", "", []string{`CREATE TABLE t (a INTEGER)`, `INSERT INTO t VALUES (1)`, `ALTER TABLE t ADD COLUMN b INTEGER DEFAULT 9`}, "b", Int},
		{"generated", "", []string{`CREATE TABLE t (a INTEGER, b INTEGER AS (a * 2))`, `INSERT INTO t (a) VALUES (1)`}, "b", Int},
	}
	for _, c := range cases {
		d := openDB(t, makeDB(t, c.pragma, c.stmts...))
		_, err := scanAll(d, "t", []string{c.col}, []Kind{c.kind})
		var u *Unsupported
		if !errors.As(err, &u) || !Fallback(err) {
			t.Errorf("%s: got %v, want an *Unsupported error", c.name, err)
		}
	}
	// Negative arm: the same kinds of values the scanner does read.
	d := openDB(t, makeDB(t, "", `CREATE TABLE t (a INTEGER, b TEXT)`, `INSERT INTO t VALUES (1, 'x'), (NULL, NULL)`))
	if got, err := scanAll(d, "t", []string{"a", "b"}, []Kind{Int, Text}); err != nil || strings.Join(got, ",") != "1|1|'x',2|NULL|NULL" {
		t.Errorf("got %q, %v; want 1|1|'x',2|NULL|NULL", got, err)
	}
}

// TestScanLoop: a child pointer back to an ancestor (a damaged file) ends
// the scan with *Corrupt, not an endless walk.
func TestScanLoop(t *testing.T) {
	path := makeDB(t, "?_pragma=page_size(512)", `CREATE TABLE t (a INTEGER, b TEXT)`,
		`WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM c WHERE i < 3000) INSERT INTO t SELECT i, 'row ' || i FROM c`)
	d := openDB(t, path)
	var root int64
	if err := d.QueryRow(`SELECT rootpage FROM sqlite_master WHERE name = 't'`).Scan(&root); err != nil {
		t.Fatal(err)
	}
	d.Close()
	data := fixture.Read(t, path)
	pg := data[(root-1)*512:]
	if pg[0] != interiorTable {
		t.Fatalf("root page type %#x, want an interior page", pg[0])
	}
	binary.BigEndian.PutUint32(pg[8:], uint32(root)) // right-most child: the root itself
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	d = openDB(t, path)
	_, err := scanAll(d, "t", []string{"a"}, []Kind{Int})
	var c *Corrupt
	if !errors.As(err, &c) {
		t.Fatalf("got %v, want a *Corrupt error", err)
	}
}

// FuzzScan: whatever the bytes, a scan ends in rows or an error — never a
// panic or a hang.
//
//	go test -run '^$' -fuzz FuzzScan -fuzztime 60s ./format/internal/sqlitein/
func FuzzScan(f *testing.F) {
	path := makeDB(f, "?_pragma=page_size(512)", `CREATE TABLE t (a INTEGER, b TEXT, c INTEGER)`,
		`WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM c WHERE i < 300) INSERT INTO t SELECT i, printf('%.*c', i, 'q'), -i FROM c`)
	data := fixture.Read(f, path)
	f.Add(data, uint16(600), byte(0))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, at uint16, b byte) {
		if len(data) > 0 {
			data = append([]byte(nil), data...)
			data[int(at)%len(data)] = b
		}
		scanFile(t, filepath.Join(dir, "f.db"), data)
	})
}

// TestScanMutations is FuzzScan's property on fixed random mutations.
func TestScanMutations(t *testing.T) {
	path := makeDB(t, "?_pragma=page_size(512)", `CREATE TABLE t (a INTEGER, b TEXT, c INTEGER)`,
		`WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM c WHERE i < 300) INSERT INTO t SELECT i, printf('%.*c', i, 'q'), -i FROM c`)
	data := fixture.Read(t, path)
	rng := rand.New(rand.NewSource(4))
	p := filepath.Join(t.TempDir(), "m.db")
	for range 500 {
		d := append([]byte(nil), data...)
		for range 1 + rng.Intn(6) {
			d[512+rng.Intn(len(d)-512)] = byte(rng.Intn(256)) // page 1 holds the schema
		}
		scanFile(t, p, d)
	}
}

func scanFile(t *testing.T, p string, data []byte) {
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Open(&format.Input{Path: p})
	if err != nil {
		return
	}
	defer d.Close()
	if !d.Has("t") {
		return
	}
	_, _ = scanAll(d, "t", []string{"a", "b", "c"}, []Kind{Int, Text, Int})
}
