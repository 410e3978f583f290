package sqlitein

import (
	"database/sql"
	"strings"
)

// Scan opens a direct scan (btree.go) of table's rows in rowid order,
// reading the named columns as kinds says; a column the table lacks
// reads NULL. A table the scanner does not handle is an *Unsupported
// error: read it through SQL.
func (d *DB) Scan(table string, names []string, kinds []Kind) (*Scanner, error) {
	var root sql.NullInt64
	var ddl sql.NullString
	if err := d.QueryRow(`SELECT rootpage, sql FROM sqlite_master WHERE type = 'table' AND name = ?`, table).Scan(&root, &ddl); err != nil {
		return nil, &Unsupported{"no table " + table + ": " + err.Error()}
	}
	if !root.Valid || root.Int64 <= 0 || root.Int64 > 1<<31 {
		return nil, &Unsupported{table + " has no B-tree (a virtual table)"}
	}
	if strings.Contains(strings.ToUpper(ddl.String), "WITHOUT") {
		return nil, &Unsupported{table + " may be a WITHOUT ROWID table"}
	}
	type info struct {
		index      int
		affinity   string
		pk, hidden int64
		dflt       bool
	}
	byName := map[string]info{}
	rows, err := d.Query(`SELECT name, type, dflt_value IS NOT NULL, pk, hidden FROM pragma_table_xinfo(?)`, table)
	if err != nil {
		return nil, &Unsupported{err.Error()}
	}
	i := 0
	for rows.Next() {
		var name, typ string
		var in info
		if err := rows.Scan(&name, &typ, &in.dflt, &in.pk, &in.hidden); err != nil {
			rows.Close()
			return nil, &Unsupported{err.Error()}
		}
		if in.hidden != 0 {
			rows.Close()
			return nil, &Unsupported{table + " has hidden or generated columns"}
		}
		in.index, in.affinity = i, affinity(typ)
		byName[name] = in
		i++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, &Unsupported{err.Error()}
	}
	cols := make([]Column, len(names))
	for j, n := range names {
		in, ok := byName[n]
		cols[j] = Column{Index: -1, Kind: kinds[j]}
		if !ok {
			continue
		}
		switch {
		case in.pk != 0:
			return nil, &Unsupported{n + " is part of the primary key (maybe the rowid)"}
		case in.dflt:
			return nil, &Unsupported{n + " has a default value"}
		case kinds[j] == Int && in.affinity == "REAL":
			return nil, &Unsupported{n + " has REAL affinity"}
		}
		cols[j].Index = in.index
	}
	p, err := openPager(d.disk)
	if err != nil {
		if Fallback(err) {
			return nil, err
		}
		return nil, &Unsupported{err.Error()}
	}
	return newScanner(p, uint32(root.Int64), cols), nil
}

// affinity is a declared type's column affinity (SQLite's §3.1 rules).
func affinity(typ string) string {
	t := strings.ToUpper(typ)
	switch {
	case strings.Contains(t, "INT"):
		return "INTEGER"
	case strings.Contains(t, "CHAR"), strings.Contains(t, "CLOB"), strings.Contains(t, "TEXT"):
		return "TEXT"
	case t == "", strings.Contains(t, "BLOB"):
		return "BLOB"
	case strings.Contains(t, "REAL"), strings.Contains(t, "FLOA"), strings.Contains(t, "DOUB"):
		return "REAL"
	}
	return "NUMERIC"
}
