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

func newTable(w io.Writer, to string, columns []string, id string) (*table, error) {
	t := &table{bw: bufio.NewWriterSize(w, 256<<10), id: id}
	if to == JSONL {
		t.json = json.NewEncoder(&t.jbuf)
		return t, nil
	}
	t.csv = csv.NewWriter(t.bw)
	return t, t.csv.Write(append(slices.Clip(columns), ExportIDColumn))
}

// write writes one row: v is the row struct, cells its CSV cells.
func (t *table) write(v any, cells func([]string) []string) error {
	t.rows++
	if t.json != nil {
		t.jbuf.Reset()
		if err := t.json.Encode(v); err != nil {
			return err
		}
		// Encode ends the object with "}\n": the id is its last key.
		t.bw.Write(bytes.TrimSuffix(t.jbuf.Bytes(), []byte("}\n")))
		t.bw.WriteString(`,"` + ExportIDColumn + `":"`)
		t.bw.WriteString(t.id)
		_, err := t.bw.WriteString("\"}\n")
		return err
	}
	t.rec = cells(t.rec[:0])
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

// writeTabular is --to csv|jsonl: OUT holds dispatch (or kernel) rows, and
// OUT.gaps.csv (.jsonl) beside it the accounting of every input. Both are
// written under temporary names and renamed only when both are complete,
// the gaps file first: a kill between the renames leaves the gaps file
// without its table (no OUT, or the previous one, whose rows carry another
// export id), never a new table beside an old accounting that may call it
// complete. Every row of both files carries the export id, and the gaps
// file's last line states the table's rows and bytes (CheckPair).
func writeTabular(paths []string, opt Options) ([]*Input, error) {
	if err := needRegularFile(opt.Out, opt.To); err != nil {
		return nil, err
	}
	id, err := newExportID(time.Now())
	if err != nil {
		return nil, err
	}
	gapsPath := opt.Out + ".gaps." + opt.To
	out, err := checkedfile.Create(opt.Out)
	if err != nil {
		return nil, err
	}
	defer out.Abort()
	outBytes := &countio.Writer{W: out}
	gaps, err := checkedfile.Create(gapsPath)
	if err != nil {
		return nil, err
	}
	defer gaps.Abort()

	cols := dispatchColumns
	if opt.PerKernel {
		cols = kernelColumns
	}
	t, err := newTable(outBytes, opt.To, cols, id)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", opt.Out, err)
	}
	var ins []*Input
	if opt.PerKernel {
		// Kernel rows need each input's tables only: read in parallel,
		// then write in input order.
		ins, err = readInputs(paths, opt, opt.Workers, func(in *Input) capture.Sink {
			return capture.SinkFunc(func(c *capture.Capture, d *capture.Dispatch) {
				in.Written.count(c, d)
				in.ranks.add(in.Rank(c, d.Queue), c, d)
			})
		}, nil)
		if err != nil {
			return nil, err
		}
		for _, in := range ins {
			for _, r := range kernelRows(in) {
				if err := t.write(&r, r.cells); err != nil {
					return nil, fmt.Errorf("writing %s: %w", opt.Out, err)
				}
			}
		}
	} else {
		// Dispatch rows stream into the one file as they are read: one
		// input at a time keeps each input's rows together and in order.
		var (
			row  DispatchRow
			st   rowStore
			werr error
		)
		ins, err = readInputs(paths, opt, 1, func(in *Input) capture.Sink {
			return capture.SinkFunc(func(c *capture.Capture, d *capture.Dispatch) {
				in.Written.count(c, d)
				if werr != nil {
					return
				}
				row.fill(in, c, d, &st)
				werr = t.write(&row, row.cells)
			})
		}, func(*Input) error {
			if werr != nil {
				return fmt.Errorf("writing %s: %w", opt.Out, werr)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if err := t.flush(); err != nil {
		return nil, fmt.Errorf("writing %s: %w", opt.Out, err)
	}
	gt, err := newTable(gaps, opt.To, gapColumns, id)
	if err == nil {
		rows := append(allGapRows(ins, opt.skipped), outputRow(opt.Out, t.rows, outBytes.N, id))
		for _, r := range rows {
			if err = gt.write(&r, r.cells); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = gt.flush()
	}
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", gapsPath, err)
	}
	if err := commitAll(gaps, out); err != nil {
		return nil, err
	}
	return ins, nil
}

// outputRow is the gaps file's last line: the table it belongs to, by
// name (beside it), rows, bytes and export id.
func outputRow(out string, rows, size int64, id string) GapRow {
	return GapRow{Input: -1, Path: filepath.Base(out), Record: "export", Kind: OutputKind, Count: rows, Used: size, Unit: "rows", Note: true,
		Summary: fmt.Sprintf("the table this accounting describes: %d rows, %d bytes, every row with export_id %s; a table beside it that differs is from another export", rows, size, id)}
}

func (r *DispatchRow) cells(rec []string) []string {
	return append(rec, r.Rank, strconv.Itoa(int(r.Input)), r.Program, optI(r.Run), r.Kernel, optU(r.KernelID),
		strconv.FormatBool(r.Resolved), r.Category, r.List, r.Queue, r.Device, optI(r.Index), optI(r.Ordinal),
		itoa(r.Dispatches), optI(r.StartNS), optI(r.EndNS), optI(r.DeviceNS),
		optI(r.LaunchStartNS), optI(r.LaunchEndNS), optI(r.LaunchNS), r.Link)
}

func (r *KernelRow) cells(rec []string) []string {
	return append(rec, r.Rank, strconv.Itoa(int(r.Input)), r.Program, r.Kernel, optU(r.KernelID),
		strconv.FormatBool(r.Resolved), r.Category, r.List, itoa(r.Dispatches), itoa(r.Timed), itoa(r.Aggregated),
		optI(r.DeviceNS), optI(r.MinNS), optI(r.MaxNS), itoa(r.Launched), optI(r.LaunchNS),
		strconv.FormatFloat(r.ShareOfProg, 'f', 6, 64))
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
