package export

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/checkedfile"
	"github.com/tallyprof/tally/internal/countio"
	"github.com/tallyprof/tally/internal/safetext"
)

// table writes rows of one kind as CSV (header first; null is an empty
// cell) or as JSON Lines (one object per row; null is null). Every row ends
// with the export's id (ExportIDColumn).
type table struct {
	bw   *bufio.Writer
	csv  *csv.Writer
	json *json.Encoder
	jbuf bytes.Buffer
	rec  []string
	id   string
	rows int64
}

// columns are row type T's column names in order: its Parquet schema's, so
// a CSV header names the columns the dataset's table has (JSON Lines keys
// are the same names, from the json tags).
func columns[T any]() []string {
	fields := parquet.SchemaOf(new(T)).Fields()
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name()
	}
	return names
}

func newTable(w io.Writer, to string, columns []string, id string) (*table, error) {
	t := &table{bw: bufio.NewWriterSize(w, 256<<10), id: id}
	if to == JSONL {
		t.json = json.NewEncoder(&t.jbuf)
		return t, nil
	}
	t.csv = csv.NewWriter(t.bw)
	return t, t.csv.Write(append(slices.Clip(columns), ExportIDColumn))
}

// row is a pointer to a row struct (DispatchRow, KernelRow, OpRow,
// GapRow): JSON Lines encode the struct, CSV writes its cells.
type row interface {
	cells(rec []string) []string
}

// write writes one row.
func (t *table) write(r row) error {
	t.rows++
	if t.json != nil {
		t.jbuf.Reset()
		if err := t.json.Encode(r); err != nil {
			return err
		}
		// Encode ends the object with "}\n": the id is its last key.
		t.bw.Write(bytes.TrimSuffix(t.jbuf.Bytes(), []byte("}\n")))
		t.bw.WriteString(`,"` + ExportIDColumn + `":"`)
		t.bw.WriteString(t.id)
		_, err := t.bw.WriteString("\"}\n")
		return err
	}
	t.rec = r.cells(t.rec[:0])
	// CSV quoting keeps a cell's commas and newlines, but `cat` of the
	// file would still run a name's escape sequences: escape controls.
	for i, c := range t.rec {
		for j := 0; j < len(c); j++ { // printable ASCII (nearly every cell) needs no call
			if b := c[j]; b < 0x20 || b >= 0x7f {
				t.rec[i] = safetext.Escape(c)
				break
			}
		}
	}
	t.rec = append(t.rec, t.id)
	return t.csv.Write(t.rec)
}

// rowOf is *R when it is a row.
type rowOf[R any] interface {
	*R
	row
}

// writeRows writes rows in order, up to the first error.
func writeRows[R any, P rowOf[R]](t *table, rows []R) error {
	for i := range rows {
		if err := t.write(P(&rows[i])); err != nil {
			return err
		}
	}
	return nil
}

func (t *table) flush() error {
	if t.csv != nil {
		t.csv.Flush()
		if err := t.csv.Error(); err != nil {
			return err
		}
	}
	return t.bw.Flush()
}

// commitAll commits the table and its gaps file (a variable so a test can
// stop between the two renames, as a SIGKILL can).
var commitAll = checkedfile.CommitAll

// tabular is --to csv|jsonl: OUT holds dispatch (or kernel) rows, and
// OUT.gaps.csv (.jsonl) beside it the accounting of every input. Both are
// written under temporary names and renamed only when both are complete,
// the gaps file first: a kill between the renames leaves the gaps file
// without its table (no OUT, or the previous one, whose rows carry another
// export id), never a new table beside an old accounting that may call it
// complete. Every row of both files carries the export id, and the gaps
// file's last line states the table's rows and bytes (CheckPair).
type tabular struct {
	readErr
	opt       Options
	id        string
	gapsPath  string
	out, gaps *checkedfile.Pending
	outBytes  *countio.Writer
	t         *table
	// Dispatch rows: the row being written and the first write error.
	row  DispatchRow
	st   rowStore
	werr error
}

func openTabular(opt Options) (*tabular, error) {
	if err := needRegularFile(opt.Out, opt.To); err != nil {
		return nil, err
	}
	id, err := newExportID(time.Now())
	if err != nil {
		return nil, err
	}
	w := &tabular{opt: opt, id: id, gapsPath: opt.Out + ".gaps." + opt.To}
	if w.out, err = checkedfile.Create(opt.Out); err != nil {
		return nil, err
	}
	w.outBytes = &countio.Writer{W: w.out}
	if w.gaps, err = checkedfile.Create(w.gapsPath); err != nil {
		w.abort()
		return nil, err
	}
	cols := columns[DispatchRow]()
	switch {
	case opt.PerKernel:
		cols = columns[KernelRow]()
	case opt.PerOp:
		cols = columns[OpRow]()
	}
	if w.t, err = newTable(w.outBytes, opt.To, cols, id); err != nil {
		w.abort()
		return nil, fmt.Errorf("writing %s: %w", opt.Out, err)
	}
	return w, nil
}

func (w *tabular) abort() {
	if w.gaps != nil {
		w.gaps.Abort()
	}
	w.out.Abort()
}

// workers: kernel rows need each input's tables only, so inputs are read
// in parallel and written in input order at the end; dispatch rows stream
// into the one file as they are read, one input at a time, which keeps
// each input's rows together and in order.
func (w *tabular) workers() int {
	if w.opt.PerKernel || w.opt.PerOp {
		return 0
	}
	return 1
}

func (w *tabular) sink(in *input) capture.Sink {
	if w.opt.PerOp {
		return capture.SinkFunc(func(c *capture.Capture, d *capture.Dispatch) { in.Written.count(c, d) })
	}
	if w.opt.PerKernel {
		return capture.SinkFunc(func(c *capture.Capture, d *capture.Dispatch) {
			in.Written.count(c, d)
			in.ranks.add(in.rankOf(c, d.Queue), c, d)
		})
	}
	return capture.SinkFunc(func(c *capture.Capture, d *capture.Dispatch) {
		in.Written.count(c, d)
		if w.werr != nil {
			return
		}
		w.row.fill(in, c, d, &w.st)
		w.werr = w.t.write(&w.row)
	})
}

func (w *tabular) done(in *input) error {
	if in.Err != nil {
		return in.Err
	}
	if w.werr != nil {
		return fmt.Errorf("writing %s: %w", w.opt.Out, w.werr)
	}
	return nil
}

func (w *tabular) write(ins []*input, run *analysis.Run) error {
	opt, t := w.opt, w.t
	for _, in := range ins {
		var err error
		switch {
		case opt.PerKernel:
			err = writeRows(t, kernelRows(in))
		case opt.PerOp:
			err = writeRows(t, opRows(in))
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", opt.Out, err)
		}
	}
	if err := t.flush(); err != nil {
		return fmt.Errorf("writing %s: %w", opt.Out, err)
	}
	gt, err := newTable(w.gaps, opt.To, columns[GapRow](), w.id)
	if err == nil {
		err = writeRows(gt, append(allGapRows(ins, run), outputRow(opt.Out, t.rows, w.outBytes.N, w.id)))
	}
	if err == nil {
		err = gt.flush()
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", w.gapsPath, err)
	}
	return commitAll(w.gaps, w.out)
}

// outputRow is the gaps file's last line: the table it belongs to, by
// name (beside it), rows, bytes and export id.
func outputRow(out string, rows, size int64, id string) GapRow {
	return GapRow{Input: -1, Path: filepath.Base(out), Record: "export", Kind: OutputKind, Count: rows, Used: size, Unit: "rows", Note: true,
		Summary: fmt.Sprintf("the table this accounting describes: %d rows, %d bytes, every row with export_id %s; a table beside it that differs is from another export", rows, size, id)}
}

func (r *DispatchRow) cells(rec []string) []string {
	rec = r.KernelColumns.cells(append(rec, r.Rank, strconv.Itoa(int(r.Input)), r.Program, optI(r.Run)))
	return append(rec, r.Queue, r.Device, optI(r.Index), optI(r.Ordinal),
		itoa(r.Dispatches), optI(r.StartNS), optI(r.EndNS), optI(r.DeviceNS),
		optI(r.LaunchStartNS), optI(r.LaunchEndNS), optI(r.LaunchNS), r.Link)
}

func (r *KernelRow) cells(rec []string) []string {
	rec = r.KernelColumns.cells(append(rec, r.Rank, strconv.Itoa(int(r.Input)), r.Program))
	return append(rec, itoa(r.Dispatches), itoa(r.Timed), itoa(r.Aggregated),
		optI(r.DeviceNS), optI(r.MinNS), optI(r.MaxNS), itoa(r.Launched), optI(r.LaunchNS),
		strconv.FormatFloat(r.ShareOfProg, 'f', 6, 64))
}

func (kc *KernelColumns) cells(rec []string) []string {
	return append(rec, kc.Kernel, optU(kc.KernelID), strconv.FormatBool(kc.Resolved), kc.Category, kc.List)
}

func (r *GapRow) cells(rec []string) []string {
	known := ""
	if r.SizeKnown != nil {
		known = strconv.FormatBool(*r.SizeKnown)
	}
	return append(rec, strconv.Itoa(int(r.Input)), r.Path, r.Rank, r.Record, r.Kind, r.Program, itoa(r.Count),
		itoa(r.Used), r.Unit, strconv.FormatBool(r.Note), r.First, r.Summary,
		known, optI(r.MissingDeviceTime), optI(r.UnattributedDevTime), optI(r.LostDispatches), r.AffectedBasis)
}

func optI(v *int64) string {
	if v == nil {
		return ""
	}
	return itoa(*v)
}

func optU(v *uint64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatUint(*v, 10)
}
