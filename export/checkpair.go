package export

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// ErrNotOnePair is wrapped by CheckPair's errors when a table and a gaps
// file were not written by one export.
var ErrNotOnePair = errors.New("the table and the gaps file are not from one export")

// Pair is what CheckPair found: the export both files belong to.
type Pair struct {
	ExportID string
	// Written is the time in the export id (UTC, milliseconds).
	Written time.Time
	// Rows and Bytes are the table's.
	Rows, Bytes int64
}

// CheckPair checks that a csv or jsonl table (OUT) and a gaps file
// (OUT.gaps.csv|jsonl) were written by one tally export: every row of both
// carries one export id, and the gaps file's last line (record export,
// kind output) states the table's rows and size in bytes. A SIGKILL between
// the two renames of an export can leave the new gaps file beside the
// previous table; a copy can mix or cut files: each ends in an error that
// wraps ErrNotOnePair and names both files.
func CheckPair(table, gaps string) (*Pair, error) {
	ts, err := scanTable(table)
	if err != nil {
		return nil, err
	}
	gs, err := scanTable(gaps)
	if err != nil {
		return nil, err
	}
	if gs.output == nil {
		return nil, fmt.Errorf("%s has no line with record %q and kind %q: it is not the gaps file of a csv/jsonl export (written by a tally older than export ids?): %w", gaps, "export", OutputKind, ErrNotOnePair)
	}
	if ts.id != "" && ts.id != gs.id {
		return nil, fmt.Errorf("%s and %s are from different exports: the table's rows carry export_id %s%s, the gaps file's %s%s (a kill between the two renames of an export leaves its gaps file beside the previous table; export again): %w",
			table, gaps, ts.id, when(ts.id), gs.id, when(gs.id), ErrNotOnePair)
	}
	if ts.rows != gs.output.Count || ts.size != gs.output.Used {
		return nil, fmt.Errorf("%s does not match %s: the gaps file (export_id %s) describes a table of %d rows, %d bytes; the table has %d rows, %d bytes (another export's, or changed since; export again): %w",
			table, gaps, gs.id, gs.output.Count, gs.output.Used, ts.rows, ts.size, ErrNotOnePair)
	}
	p := &Pair{ExportID: gs.id, Rows: ts.rows, Bytes: ts.size}
	p.Written, _ = exportIDTime(gs.id)
	return p, nil
}

// CheckOutput is CheckPair for the table out and the gaps file beside it:
// out.gaps.csv or out.gaps.jsonl (when both exist, the one of out's own
// format). It returns the gaps file's name.
func CheckOutput(out string) (gaps string, p *Pair, err error) {
	csvGaps, jsonlGaps := out+".gaps."+CSV, out+".gaps."+JSONL
	_, csvErr := os.Stat(csvGaps)
	_, jsonlErr := os.Stat(jsonlGaps)
	switch {
	case csvErr == nil && jsonlErr == nil:
		gaps = csvGaps
		if isJSONL(out) {
			gaps = jsonlGaps
		}
	case csvErr == nil:
		gaps = csvGaps
	case jsonlErr == nil:
		gaps = jsonlGaps
	default:
		return "", nil, fmt.Errorf("%s has no gaps file beside it (%s or %s): without it nothing says what the table lacks: %w", out, filepath.Base(csvGaps), filepath.Base(jsonlGaps), ErrNotOnePair)
	}
	p, err = CheckPair(out, gaps)
	return gaps, p, err
}

// isJSONL reports whether the file at path starts as JSON Lines rows do.
func isJSONL(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [1]byte
	n, _ := f.Read(b[:])
	return n == 1 && b[0] == '{'
}

// when is " (written TIME)" for a version-7 id.
func when(id string) string {
	if t, ok := exportIDTime(id); ok {
		return " (written " + t.Format(time.RFC3339) + ")"
	}
	return ""
}

// tableScan is what one file holds: its one export id ("" without rows),
// its rows and bytes, and a gaps file's output line.
type tableScan struct {
	id     string
	rows   int64
	size   int64
	output *GapRow
}

// scanTable reads a csv or jsonl export file (told apart by its first
// byte: JSON Lines rows are objects) in one pass, in constant memory.
func scanTable(path string) (*tableScan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	s := &tableScan{size: st.Size()}
	br := bufio.NewReaderSize(f, 256<<10)
	head, _ := br.Peek(1)
	if len(head) == 0 || head[0] == '{' {
		err = s.jsonl(path, br)
	} else {
		err = s.csv(path, br)
	}
	return s, err
}

// row checks one row's export id.
func (s *tableScan) row(path, id string, ok bool) error {
	s.rows++
	if !ok {
		return fmt.Errorf("%s: row %d has no %s: the file was not written by tally export, or by a tally older than export ids", path, s.rows, ExportIDColumn)
	}
	if s.rows == 1 {
		s.id = id
	} else if id != s.id {
		return fmt.Errorf("%s: row %d has export_id %s, row 1 %s: the file mixes the rows of two exports: %w", path, s.rows, id, s.id, ErrNotOnePair)
	}
	return nil
}

func (s *tableScan) jsonl(path string, r io.Reader) error {
	dec := json.NewDecoder(r)
	for {
		var v struct {
			ExportID *string `json:"export_id"`
			Record   string  `json:"record"`
			Kind     string  `json:"kind"`
			Count    int64   `json:"count"`
			Used     int64   `json:"used"`
		}
		if err := dec.Decode(&v); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("%s: row %d: %v", path, s.rows+1, err)
		}
		var id string
		if v.ExportID != nil {
			id = *v.ExportID
		}
		if err := s.row(path, id, v.ExportID != nil); err != nil {
			return err
		}
		if v.Record == "export" && v.Kind == OutputKind {
			s.output = &GapRow{Count: v.Count, Used: v.Used}
		}
	}
}

func (s *tableScan) csv(path string, r io.Reader) error {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return fmt.Errorf("%s: the header line: %v", path, err)
	}
	// Indexes are taken now: ReuseRecord reuses the header's slice.
	col := func(name string) int { return slices.Index(header, name) }
	idCol, recCol, kindCol, countCol, usedCol := col(ExportIDColumn), col("record"), col("kind"), col("count"), col("used")
	if idCol < 0 {
		return fmt.Errorf("%s has no %s column: the file was not written by tally export, or by a tally older than export ids; nothing tells which export it belongs to", path, ExportIDColumn)
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		if err := s.row(path, rec[idCol], true); err != nil {
			return err
		}
		if recCol >= 0 && kindCol >= 0 && countCol >= 0 && usedCol >= 0 && rec[recCol] == "export" && rec[kindCol] == OutputKind {
			n, err1 := strconv.ParseInt(rec[countCol], 10, 64)
			b, err2 := strconv.ParseInt(rec[usedCol], 10, 64)
			if err1 != nil || err2 != nil {
				return fmt.Errorf("%s: row %d (record export, kind %s): count %q and used %q must be integers", path, s.rows, OutputKind, rec[countCol], rec[usedCol])
			}
			s.output = &GapRow{Count: n, Used: b}
		}
	}
}
