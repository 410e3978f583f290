// Package sqlitein opens a reader's input as a read-only SQLite database
// through modernc.org/sqlite, a pure-Go SQLite (so `go install` needs no C
// toolchain), and lists what the database holds so readers can look
// tables and columns up by name.
//
// It does not link the engine itself: its package initialisation costs
// about 10 ms of start-up, which the tally command does not pay (see
// Engine). A program that reads SQLite imports _ "modernc.org/sqlite";
// format/all and tally-full do.
package sqlitein

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/tallyprof/tally/format"
)

// Engine is the SQLite engine the readers of this package's databases
// name as their format.Format.Engine: linked when a program imports
// modernc.org/sqlite, which registers the database/sql driver "sqlite".
var Engine = &format.Engine{
	Name:   "SQLite",
	Import: "modernc.org/sqlite",
	Linked: func() bool { return slices.Contains(sql.Drivers(), "sqlite") },
}

// Magic is the first 16 bytes of every SQLite 3 database file.
var Magic = []byte("SQLite format 3\x00")

// IsSQLite reports whether head starts with the SQLite magic.
func IsSQLite(head []byte) bool { return bytes.HasPrefix(head, Magic) }

// DB is an open database and its schema: table name → column names.
type DB struct {
	*sql.DB
	Path    string
	Tables  map[string][]string
	Views   map[string]bool
	columns map[string]map[string]bool
	tmp     string // a temporary copy to remove on Close
	disk    string // the file SQLite opened (Path, or tmp)
}

// Open opens in read-only. SQLite opens databases by path, so input that
// is not a plain regular file — standard input, a pipe, gzip data, bytes in
// memory — is first copied (decompressed) to a temporary file that Close
// removes, bounded by the spool limit (format.Input.TempFile); a character
// device is refused (format.Input.RandomAccess). A
// file that is not SQLite, or whose schema cannot be read (damaged, cut),
// ends in a format.Error naming it.
func Open(in *format.Input) (*DB, error) {
	path, tmp, err := onDisk(in)
	if err != nil {
		return nil, err
	}
	d, err := open(in.Path, path)
	if err != nil {
		if tmp {
			format.RemoveTempFile(path)
		}
		return nil, err
	}
	if tmp {
		d.tmp = path
	}
	return d, nil
}

// onDisk returns a path SQLite can open holding in's (decompressed) bytes,
// and whether it is a temporary copy (format.Input.TempFile: bounded by the
// spool limit, removed on a signal).
func onDisk(in *format.Input) (string, bool, error) {
	if !in.IsStream() && !in.Gzip {
		if st, err := os.Stat(in.Path); err == nil && st.Mode().IsRegular() {
			return in.Path, false, nil
		}
	}
	name, err := in.TempFile("tally-sqlite-*.db", "SQLite")
	if err != nil {
		return "", false, err
	}
	return name, true, nil
}

func open(name, path string) (*DB, error) {
	hint := "export the capture as SQLite (nsys export --type sqlite; rocprofv3 --output-format rocpd)"
	f, err := os.Open(path)
	if err != nil {
		return nil, format.FileError(name, err, "", "%v", err)
	}
	var head [100]byte
	n, _ := io.ReadFull(f, head[:])
	st, serr := f.Stat()
	f.Close()
	if !IsSQLite(head[:n]) {
		return nil, format.ByteError(name, 0, hint, "not an SQLite database (no \"SQLite format 3\" header)")
	}
	if serr == nil {
		if want, ok := headerSize(head[:n]); ok && st.Size() < want {
			return nil, format.ByteError(name, st.Size(), "the file was cut (an incomplete copy or download, a full disk): copy or export it again",
				"the database is cut: its header says %d bytes, the file ends at byte %d", want, st.Size())
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, format.FileError(name, err, "", "%v", err)
	}
	// immutable=1: no locks, no journal, works in read-only directories;
	// the reader never writes. The page cache is capped at 16 MiB per
	// connection: sorts beyond it spill to temporary files.
	u := url.URL{Scheme: "file", Path: abs, RawQuery: "mode=ro&immutable=1&_pragma=cache_size(-16384)"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, format.FileError(name, err, "", "opening the database: %v", err)
	}
	d := &DB{DB: db, Path: name, disk: abs, Tables: map[string][]string{}, Views: map[string]bool{}, columns: map[string]map[string]bool{}}
	if err := d.schema(); err != nil {
		db.Close()
		return nil, format.FileError(name, err, "the file is damaged or was cut while being copied; export it again", "cannot read the database schema: %v", err)
	}
	return d, nil
}

// headerSize is the database size an SQLite 3 header records (page size ×
// page count), when the header says it is current: SQLite keeps the count
// at offset 28 valid exactly when the "version-valid-for" number at offset
// 92 equals the change counter at offset 24 (every writer since 3.7.0).
// A database is written whole, so a file shorter than this was cut —
// however cleanly, at a page boundary — and rows of its last pages are
// missing. SQLite refuses such a file as "malformed"; this says what
// happened, and at which byte.
func headerSize(h []byte) (int64, bool) {
	if len(h) < 100 {
		return 0, false
	}
	page := int64(binary.BigEndian.Uint16(h[16:18]))
	if page == 1 {
		page = 65536
	}
	pages := int64(binary.BigEndian.Uint32(h[28:32]))
	if page < 512 || page&(page-1) != 0 || pages == 0 || binary.BigEndian.Uint32(h[24:28]) != binary.BigEndian.Uint32(h[92:96]) {
		return 0, false
	}
	return page * pages, true
}

// Close closes the database and removes its temporary copy, if any.
func (d *DB) Close() error {
	err := d.DB.Close()
	if d.tmp != "" {
		if rerr := format.RemoveTempFile(d.tmp); err == nil {
			err = rerr
		}
	}
	return err
}

func (d *DB) schema() error {
	rows, err := d.Query(`SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')`)
	if err != nil {
		return err
	}
	var tables []string
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			rows.Close()
			return err
		}
		if typ == "view" {
			d.Views[name] = true
		} else {
			tables = append(tables, name)
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, t := range tables {
		cols, err := d.tableColumns(t)
		if err != nil {
			return err
		}
		d.Tables[t] = cols
		set := map[string]bool{}
		for _, c := range cols {
			set[c] = true
		}
		d.columns[t] = set
	}
	return nil
}

func (d *DB) tableColumns(t string) ([]string, error) {
	rows, err := d.Query(`SELECT name FROM pragma_table_info(?)`, t)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

// Has reports whether table exists (a table, not a view).
func (d *DB) Has(table string) bool { _, ok := d.Tables[table]; return ok }

// HasColumn reports whether table has column.
func (d *DB) HasColumn(table, column string) bool { return d.columns[table][column] }

// Col returns the quoted column expression table.column, or NULL when the
// column does not exist in this database's version of the table.
func (d *DB) Col(alias, table, column string) string {
	if !d.HasColumn(table, column) {
		return "NULL"
	}
	return alias + "." + Quote(column)
}

// Quote quotes an identifier.
func Quote(id string) string { return `"` + strings.ReplaceAll(id, `"`, `""`) + `"` }

// Unknown lists the tables not in known (by exact name or by a prefix
// ending in '*'), sorted, for the inventory.
func (d *DB) Unknown(known []string) []string {
	var out []string
	for t := range d.Tables {
		if !matches(t, known) {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// UnknownColumns lists the columns of table not in known.
func (d *DB) UnknownColumns(table string, known []string) []string {
	var out []string
	for _, c := range d.Tables[table] {
		if !matches(c, known) {
			out = append(out, c)
		}
	}
	return out
}

func matches(s string, known []string) bool {
	for _, k := range known {
		if k == s || (strings.HasSuffix(k, "*") && strings.HasPrefix(s, k[:len(k)-1])) {
			return true
		}
	}
	return false
}

// QueryError wraps an error met while reading rows (a damaged page deep in
// the file shows only then) as a format.Error naming the table.
func (d *DB) QueryError(table string, err error) error {
	var fe *format.Error
	if errors.As(err, &fe) {
		return err
	}
	return format.FileError(d.Path, err, "the file is damaged or was cut while being copied; export it again", "reading table %s: %v", table, err)
}

// RowsErr returns the error that ended a rows loop, as QueryError.
func (d *DB) RowsErr(table string, rows *sql.Rows) error {
	if err := rows.Err(); err != nil {
		return d.QueryError(table, err)
	}
	return nil
}

// Strings loads the values of the given StringIds-style ids in one query
// per batch; ids absent from the table are absent from the map.
func (d *DB) Strings(table, idCol, valCol string, ids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	const batch = 500
	for i := 0; i < len(ids); i += batch {
		part := ids[i:min(len(ids), i+batch)]
		q := fmt.Sprintf(`SELECT %s, %s FROM %s WHERE %s IN (%s)`, Quote(idCol), Quote(valCol), Quote(table), Quote(idCol), strings.TrimSuffix(strings.Repeat("?,", len(part)), ","))
		args := make([]any, len(part))
		for j, id := range part {
			args[j] = id
		}
		rows, err := d.Query(q, args...)
		if err != nil {
			return nil, d.QueryError(table, err)
		}
		for rows.Next() {
			var id int64
			var v sql.NullString
			if err := rows.Scan(&id, &v); err != nil {
				rows.Close()
				return nil, d.QueryError(table, err)
			}
			if v.Valid {
				out[id] = v.String
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, d.QueryError(table, err)
		}
	}
	return out, nil
}
