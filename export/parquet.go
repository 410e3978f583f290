package export

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/collectives"
	"github.com/tallyprof/tally/inputs"
	"github.com/tallyprof/tally/internal/checkedfile"
)

// DatasetSchema names the layout of a Parquet dataset (docs/export.md).
const DatasetSchema = "tally.export/v1"

// datasetMarker is the file that makes a directory a tally dataset: it is
// written last, and an existing directory is only replaced when it has one.
const datasetMarker = inputs.OutputMarker

// rowGroupRows sizes row groups for scans: about a million rows is tens of
// MB of column data, large enough for sequential reads and predicate
// pushdown, small enough that the writer's buffers stay bounded.
const rowGroupRows = 1 << 20

// batchRows is how many rows are handed to the Parquet writer at once.
const batchRows = 4096

func parquetOptions() []parquet.WriterOption {
	return []parquet.WriterOption{
		parquet.Compression(&zstd.Codec{Level: zstd.SpeedDefault}),
		parquet.MaxRowsPerRowGroup(rowGroupRows),
		parquet.CreatedBy("tally", DatasetSchema, ""),
	}
}

// parquetSet is --to parquet: a dataset directory OUT with
// dispatches/rank=R/input-NNNNN.parquet (hive-partitioned by rank, one
// file per input and rank) and the kernels, programs, breakdown, gaps and
// inputs tables. It is built under a temporary name and renamed into place.
//
// Each input writes its own files (one per rank it holds), so inputs are
// read in parallel: an input's state is touched only by the goroutine
// reading it. Files of an input that failed midway are closed at the end;
// the whole temporary directory is then removed.
type parquetSet struct {
	readErr
	perOp  bool // ops.parquet too
	out    string
	dir    *checkedfile.PendingDir
	states []parquetInput
	// col keeps each input's collectives; coll is their analysis, made
	// once every input is read (the collectives table).
	col  *collectives.Collector
	coll *collectives.Result
}

func (w *parquetSet) analyze(run *analysis.Run) { w.coll = collectives.Analyze(run, w.col) }

func openParquet(opt Options, n int) (*parquetSet, error) {
	dir, err := checkedfile.CreateDir(opt.Out, datasetMarker)
	if err != nil {
		return nil, err
	}
	return &parquetSet{out: opt.Out, perOp: opt.PerOp, dir: dir, states: make([]parquetInput, n), col: collectives.NewCollector()}, nil
}

func (w *parquetSet) sink(in *input) capture.Sink {
	ps := &w.states[in.Index]
	ps.files = map[string]*parquetFile[DispatchRow]{}
	coll := w.col.Sink(in.Index)
	return capture.SinkFunc(func(c *capture.Capture, d *capture.Dispatch) {
		if d.Collective != nil {
			coll.Dispatch(c, d)
		}
		in.Written.count(c, d)
		if ps.err != nil {
			return
		}
		rank := in.rankOf(c, d.Queue)
		in.ranks.add(rank, c, d)
		f := ps.files[rank]
		if f == nil {
			p := filepath.Join(w.dir.Temp(), "dispatches", "rank="+hiveEscape(rank), fmt.Sprintf("input-%05d.parquet", in.Index))
			if f, ps.err = createParquet[DispatchRow](w.dir, p); ps.err != nil {
				return
			}
			ps.files[rank] = f
		}
		r, st := f.next()
		r.fill(in, c, d, st)
		ps.err = f.flushIfFull()
	})
}

func (w *parquetSet) done(in *input) error {
	if in.Err != nil {
		return in.Err
	}
	ps := &w.states[in.Index]
	if ps.err != nil {
		return ps.err
	}
	if len(ps.files) == 0 {
		// No dispatch row (every event invalid, or none at all): a file of
		// none still holds the schema, so the dispatches/*/*.parquet
		// glob of docs/export.md's queries finds a file and counts 0.
		rank := in.inputRank(in.Capture)
		p := filepath.Join(w.dir.Temp(), "dispatches", "rank="+hiveEscape(rank), fmt.Sprintf("input-%05d.parquet", in.Index))
		f, err := createParquet[DispatchRow](w.dir, p)
		if err != nil {
			return err
		}
		if ps.files == nil {
			ps.files = map[string]*parquetFile[DispatchRow]{}
		}
		ps.files[rank] = f
	}
	for rank, f := range ps.files {
		if err := f.close(); err != nil {
			return err
		}
		delete(ps.files, rank)
	}
	return nil
}

// abort closes the files of inputs that failed and removes the dataset
// being built (nothing once it is committed).
func (w *parquetSet) abort() {
	for i := range w.states {
		for _, f := range w.states[i].files {
			f.abort()
		}
	}
	w.dir.Abort()
}

func (w *parquetSet) write(ins []*input, run *analysis.Run) error {
	for i := range w.states {
		for _, f := range w.states[i].files {
			f.abort()
		}
		w.states[i].files = nil
	}
	dir := w.dir
	var (
		kernels   []KernelRow
		programs  []ProgramRow
		breakdown []BreakdownRow
		inputRows []InputRow
	)
	for _, in := range ins {
		kernels = append(kernels, kernelRows(in)...)
		programs = append(programs, programRows(in)...)
		breakdown = append(breakdown, breakdownRows(in)...)
		inputRows = append(inputRows, inputRow(in))
	}
	gaps := allGapRows(ins, run) // with the collectives' gaps: analyze put them in run.Whole
	if err := dir.MkdirAll(filepath.Join(dir.Temp(), "dispatches")); err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Join(w.out, "dispatches"), err)
	}
	if err := writeTable(dir, "kernels.parquet", kernels); err != nil {
		return err
	}
	if err := writeTable(dir, "programs.parquet", programs); err != nil {
		return err
	}
	if err := writeTable(dir, "breakdown.parquet", breakdown); err != nil {
		return err
	}
	if err := writeTable(dir, "gaps.parquet", gaps); err != nil {
		return err
	}
	if w.perOp {
		var ops []OpRow
		for _, in := range ins {
			ops = append(ops, opRows(in)...)
		}
		if err := writeTable(dir, "ops.parquet", ops); err != nil {
			return err
		}
	}
	if err := writeTable(dir, "inputs.parquet", inputRows); err != nil {
		return err
	}
	if err := writeCollectives(dir, w.coll); err != nil {
		return err
	}
	if err := writeMarker(dir, inputRows, run.Skipped, wholeGapRows(run)); err != nil {
		return err
	}
	return dir.Commit()
}

// parquetInput is one input's dispatch files being written, and its first
// write error.
type parquetInput struct {
	files map[string]*parquetFile[DispatchRow]
	err   error
}

// writeMarker writes _tally_export.json: the schema name and the inputs, so
// a dataset says what it is made of even to a reader without Parquet.
func writeMarker(dir *checkedfile.PendingDir, rows []InputRow, skipped []analysis.Skipped, runGaps []GapRow) error {
	p := filepath.Join(dir.Temp(), datasetMarker)
	type skip struct {
		Path   string `json:"path"`
		Reason string `json:"reason"`
	}
	skips := []skip{}
	for _, s := range skipped {
		skips = append(skips, skip{s.Path, s.Reason})
	}
	if runGaps == nil {
		runGaps = []GapRow{}
	}
	b, err := json.MarshalIndent(struct {
		Schema  string     `json:"schema"`
		Inputs  []InputRow `json:"inputs"`
		Skipped []skip     `json:"skipped"`
		RunGaps []GapRow   `json:"run_gaps"`
	}{DatasetSchema, rows, skips, runGaps}, "", "  ")
	if err != nil {
		return err
	}
	f, err := checkedfile.Create(p)
	if err != nil {
		return fmt.Errorf("writing %s: %w", dir.Final(p), err)
	}
	defer f.Abort()
	if _, err := f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("writing %s: %w", dir.Final(p), err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("writing %s: %w", dir.Final(p), err)
	}
	return nil
}

// writeTable writes a small table (O(kernels), O(inputs)) in one go.
func writeTable[T any](dir *checkedfile.PendingDir, name string, rows []T) error {
	p := filepath.Join(dir.Temp(), name)
	f, err := createParquet[T](dir, p)
	if err != nil {
		return err
	}
	for _, r := range rows {
		row, _ := f.next()
		*row = r
		if err := f.flushIfFull(); err != nil {
			f.abort()
			return err
		}
	}
	return f.close()
}

// parquetFile is one Parquet file being written, with a batch of rows
// (and the values their optional fields point to) not yet handed over.
type parquetFile[T any] struct {
	name  string // final name, for errors
	f     *os.File
	w     *parquet.GenericWriter[T]
	rows  []T
	store []rowStore
	n     int
}

// createParquet creates path, a file inside dir's temporary directory.
func createParquet[T any](dir *checkedfile.PendingDir, path string) (*parquetFile[T], error) {
	final := dir.Final(path)
	if err := dir.MkdirAll(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("cannot create %s: %w", final, err)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cannot create %s: %w", final, err)
	}
	return &parquetFile[T]{name: final, f: f, w: parquet.NewGenericWriter[T](f, parquetOptions()...),
		rows: make([]T, batchRows), store: make([]rowStore, batchRows)}, nil
}

// next returns the next row slot and its value store.
func (p *parquetFile[T]) next() (*T, *rowStore) {
	p.n++
	return &p.rows[p.n-1], &p.store[p.n-1]
}

func (p *parquetFile[T]) flushIfFull() error {
	if p.n < len(p.rows) {
		return nil
	}
	return p.flush()
}

func (p *parquetFile[T]) flush() error {
	if p.n == 0 {
		return nil
	}
	for i := range p.rows[:p.n] {
		validRow(&p.rows[i])
	}
	_, err := p.w.Write(p.rows[:p.n])
	p.n = 0
	if err != nil {
		return fmt.Errorf("writing %s: %w", p.name, err)
	}
	return nil
}

// close flushes, writes the footer and closes the file, checking each step.
func (p *parquetFile[T]) close() error {
	err := p.flush()
	if err == nil {
		if err = p.w.Close(); err != nil {
			err = fmt.Errorf("writing %s: %w", p.name, err)
		}
	}
	if err == nil {
		if err = p.f.Sync(); err != nil {
			err = fmt.Errorf("writing %s: %w", p.name, err)
		}
	}
	if cerr := p.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("writing %s: %w", p.name, cerr)
	}
	return err
}

func (p *parquetFile[T]) abort() { p.f.Close() }

// hiveEscape makes a rank value safe as a hive partition directory name
// (rank=VALUE): bytes other than letters, digits, '.', '_' and '-' become
// %XX, as Hive escapes them.
func hiveEscape(s string) string {
	if s == "" {
		return "__HIVE_DEFAULT_PARTITION__"
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
