package export

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/checkedfile"
	"github.com/tallyprof/tally/internal/safetext"
)

// table writes rows of one kind as CSV (header first; null is an empty
// cell) or as JSON Lines (one object per row; null is null).
type table struct {
	bw   *bufio.Writer
	csv  *csv.Writer
	json *json.Encoder
	rec  []string
}

func newTable(w io.Writer, to string, columns []string) (*table, error) {
	t := &table{bw: bufio.NewWriterSize(w, 256<<10)}
	if to == JSONL {
		t.json = json.NewEncoder(t.bw)
		return t, nil
	}
	t.csv = csv.NewWriter(t.bw)
	return t, t.csv.Write(columns)
}

// write writes one row: v is the row struct, cells its CSV cells.
func (t *table) write(v any, cells func([]string) []string) error {
	if t.json != nil {
		return t.json.Encode(v)
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

// writeTabular is --to csv|jsonl: OUT holds dispatch (or kernel) rows, and
// OUT.gaps.csv (.jsonl) beside it the accounting of every input. Both are
// written under temporary names and renamed only when both are complete.
func writeTabular(paths []string, opt Options) ([]*Input, error) {
	if err := needRegularFile(opt.Out, opt.To); err != nil {
		return nil, err
	}
	gapsPath := opt.Out + ".gaps." + opt.To
	out, err := checkedfile.Create(opt.Out)
	if err != nil {
		return nil, err
	}
	defer out.Abort()
	gaps, err := checkedfile.Create(gapsPath)
	if err != nil {
		return nil, err
	}
	defer gaps.Abort()

	cols := dispatchColumns
	if opt.PerKernel {
		cols = kernelColumns
	}
	t, err := newTable(out, opt.To, cols)
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
	gt, err := newTable(gaps, opt.To, gapColumns)
	if err == nil {
		for _, r := range allGapRows(ins, opt.skipped) {
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
	if err := gaps.Commit(); err != nil {
		return nil, err
	}
	if err := out.Commit(); err != nil {
		return nil, err
	}
	return ins, nil
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
	return append(rec, strconv.Itoa(int(r.Input)), r.Path, r.Rank, r.Record, r.Kind, r.Program, itoa(r.Count),
		itoa(r.Used), r.Unit, strconv.FormatBool(r.Note), r.First, r.Summary)
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
