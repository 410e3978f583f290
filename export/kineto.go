package export

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tallyprof/tally/analysis"
	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/internal/checkedfile"
	"github.com/tallyprof/tally/render"
)

// Kineto JSON layout constants (docs/export.md, "Kineto JSON").
const (
	// kinetoHostPID is the pid of the host track holding launch events: the
	// inputs tally converts record no OS pid, and a fixed number far from
	// device ids keeps host and device rows apart in HTA and TraceLens.
	kinetoHostPID = 1 << 20
	// kinetoUnfinishedTID is the host thread that holds unfinished
	// dispatches when their stream is not recorded.
	kinetoUnfinishedTID = 2
)

// kinetoRecord is one spooled dispatch: the events are written after the
// input has been read, when the time base (the earliest time) and the
// accounting that goes before traceEvents are known. Spooling to a file keeps
// memory O(1) in the number of dispatches.
type kinetoRecord struct {
	kernel, queue, program int32
	link                   capture.Link
	launch                 bool
	run                    int64
	begin, end             int64
	lbegin, lend           int64
	// index and ordinal place the dispatch in its program (args.tally:
	// a read-back keeps them).
	index, ordinal int64
	// coll is 1 + the index of the dispatch's collective args in the
	// spool's colls, 0 for none.
	coll uint32
}

const kinetoRecordSize = 4*3 + 2 + 8*7 + 4

func (r *kinetoRecord) put(b []byte) {
	le := binary.LittleEndian
	le.PutUint32(b[0:], uint32(r.kernel))
	le.PutUint32(b[4:], uint32(r.queue))
	le.PutUint32(b[8:], uint32(r.program))
	b[12] = byte(r.link)
	b[13] = 0
	if r.launch {
		b[13] = 1
	}
	for i, v := range []int64{r.run, r.begin, r.end, r.lbegin, r.lend, r.index, r.ordinal} {
		le.PutUint64(b[14+8*i:], uint64(v))
	}
	le.PutUint32(b[14+8*7:], r.coll)
}

func (r *kinetoRecord) get(b []byte) {
	le := binary.LittleEndian
	r.kernel, r.queue, r.program = int32(le.Uint32(b[0:])), int32(le.Uint32(b[4:])), int32(le.Uint32(b[8:]))
	r.link, r.launch = capture.Link(b[12]), b[13] == 1
	v := [7]*int64{&r.run, &r.begin, &r.end, &r.lbegin, &r.lend, &r.index, &r.ordinal}
	for i := range v {
		*v[i] = int64(le.Uint64(b[14+8*i:]))
	}
	r.coll = le.Uint32(b[14+8*7:])
}

// programSpan is what the spool pass learns of one program's timed
// dispatches: the time they span, device and launch intervals together,
// and how many there are.
type programSpan struct {
	span
	timed int64
}

// unlinkedKernels counts one program's kernels written without a launch
// event, and their device ns.
type unlinkedKernels struct{ n, ns int64 }

// kinetoSkipped counts the records not written as kernel events, by reason.
type kinetoSkipped struct {
	aggregated, aggregatedDispatches int64
	untimed                          int64
	unfinishedUnplaced               int64
	// graph counts dispatches replayed by a graph launch (for INFO).
	graph int64
	// unlinked, unlinkedNS: kernels written without a launch event, and
	// their device time (TraceLens and HTA treat them apart: INFO).
	unlinked, unlinkedNS int64
}

// kinetoFile is --to kineto of one input: one Kineto-compatible JSON trace
// of one rank that HTA and TraceLens load (docs/export.md), or, for an
// input holding several ranks, a directory of them (writeKinetoRanks).
type kinetoFile struct {
	readErr
	opt   Options
	spool *kinetoSpool
}

func openKineto(opt Options) (*kinetoFile, error) {
	sp, err := newKinetoSpool(opt.Out)
	if err != nil {
		return nil, err
	}
	return &kinetoFile{opt: opt, spool: sp}, nil
}

func (w *kinetoFile) workers() int                { return 1 }
func (w *kinetoFile) sink(in *input) capture.Sink { return w.spool.sink(in) }
func (w *kinetoFile) abort()                      { w.spool.close() }

func (w *kinetoFile) write(ins []*input, run *analysis.Run) error {
	return w.spool.write(ins[0], w.opt, run.Skipped, false)
}

// kinetoDir is --to kineto of several inputs: one trace per input in the
// directory OUT (input-NNNNN.json, the layout HTA and TraceLens read a
// multi-rank run from), built under a temporary name and renamed into
// place. Each input is its own file: inputs are read and written in
// parallel, each on its own goroutine with its own spool.
type kinetoDir struct {
	opt    Options
	dir    *checkedfile.PendingDir
	spools []*kinetoSpool
	errs   []error // per input: its spool could not be created
}

func openKinetoDir(opt Options, n int) (*kinetoDir, error) {
	if opt.Out == "-" {
		return nil, fmt.Errorf("kineto writes one file per input (one rank per file): give a directory with -o for %d inputs", n)
	}
	dir, err := checkedfile.CreateDir(opt.Out, datasetMarker)
	if err != nil {
		return nil, err
	}
	return &kinetoDir{opt: opt, dir: dir, spools: make([]*kinetoSpool, n), errs: make([]error, n)}, nil
}

func (w *kinetoDir) workers() int { return 0 }

// file is input i's trace, under the temporary directory.
func (w *kinetoDir) file(i int) string {
	return filepath.Join(w.dir.Temp(), fmt.Sprintf("input-%05d.json", i))
}

func (w *kinetoDir) sink(in *input) capture.Sink {
	sp, err := newKinetoSpool(w.file(in.Index))
	if err != nil {
		w.errs[in.Index] = err
		return capture.Discard
	}
	w.spools[in.Index] = sp
	return sp.sink(in)
}

// done writes input in's file as soon as it is read.
func (w *kinetoDir) done(in *input) error {
	sub := w.opt
	sub.Out = w.file(in.Index)
	err := w.errs[in.Index]
	if sp := w.spools[in.Index]; sp != nil {
		defer sp.close()
	}
	switch {
	case err != nil:
	case in.Err != nil:
		err = in.Err
	default:
		// The run's skipped files are listed once, in the marker.
		err = w.spools[in.Index].write(in, sub, nil, true)
	}
	if err != nil {
		return errors.New(strings.ReplaceAll(err.Error(), sub.Out, w.dir.Final(sub.Out)))
	}
	return nil
}

func (w *kinetoDir) failed(errs []error, _ int) error { return errors.Join(errs...) }

func (w *kinetoDir) write(ins []*input, run *analysis.Run) error {
	rows := make([]InputRow, len(ins))
	for i, in := range ins {
		rows[i] = inputRow(in)
	}
	if err := writeMarker(w.dir, rows, run.Skipped, wholeGapRows(run)); err != nil {
		return err
	}
	return w.dir.Commit()
}

// abort removes the directory being built (nothing once it is committed).
func (w *kinetoDir) abort() {
	for _, sp := range w.spools {
		if sp != nil {
			sp.close()
		}
	}
	w.dir.Abort()
}

// kinetoSpool is one input's dispatches spooled while it is read: the
// events are written after the input has been read, when the time base
// and the accounting that goes before traceEvents are known.
type kinetoSpool struct {
	f  *os.File
	sw *bufio.Writer
	// window is per program: its clock is known only at the end; unlinked
	// counts, per program, the kernels without a launch and their ns.
	window   map[capture.ProgramID]*programSpan
	unlinked map[capture.ProgramID]*unlinkedKernels
	skipped  kinetoSkipped
	n        int64
	werr     error
	buf      [kinetoRecordSize]byte
	rankSeen map[string]bool
	perFile  tallyCounts
	// colls are the collective dispatches' args, as Kineto writes them on
	// the kernel (O(collective dispatches)).
	colls []string
}

// newKinetoSpool creates the spool of output out: beside it (same disk as
// the result), or in the temporary directory for standard output and
// devices.
func newKinetoSpool(out string) (*kinetoSpool, error) {
	spoolDir := filepath.Dir(out)
	if st, err := os.Stat(out); out == "-" || err == nil && !st.Mode().IsRegular() {
		spoolDir = ""
	}
	f, err := os.CreateTemp(spoolDir, ".tally-kineto-spool*")
	if err != nil {
		return nil, fmt.Errorf("cannot create a spool file beside %s: %w", out, err)
	}
	// Unlinked at once where the system allows it (it is read back through
	// its descriptor): nothing is left beside OUT even after a SIGKILL.
	os.Remove(f.Name())
	return &kinetoSpool{f: f, sw: bufio.NewWriterSize(f, 1<<20), window: map[capture.ProgramID]*programSpan{},
		unlinked: map[capture.ProgramID]*unlinkedKernels{}, rankSeen: map[string]bool{}, perFile: tallyCounts{}}, nil
}

func (k *kinetoSpool) close() { k.f.Close(); os.Remove(k.f.Name()) }

func (k *kinetoSpool) sink(in *input) capture.Sink {
	return capture.SinkFunc(func(c *capture.Capture, d *capture.Dispatch) {
		in.Written.count(c, d)
		rank := in.rankOf(c, d.Queue)
		k.rankSeen[rank] = true
		if d.Aggregate != nil {
			k.skipped.aggregated++
			k.skipped.aggregatedDispatches = capture.SatAdd(k.skipped.aggregatedDispatches, d.Aggregate.Count)
			k.perFile.add(rank, d.Program, 0, d.Aggregate.Count)
			return
		}
		if !d.Device.Valid {
			k.skipped.untimed++
			k.perFile.add(rank, d.Program, 0, 1)
			return
		}
		k.perFile.add(rank, d.Program, 1, 0)
		if d.Link == capture.LinkGraph && d.Launch.Valid {
			k.skipped.graph++
		}
		r := kinetoRecord{kernel: int32(d.Kernel), queue: int32(d.Queue), program: int32(d.Program), link: d.Link,
			launch: d.Launch.Valid, run: d.Instance, begin: d.Device.Begin, end: d.Device.End, lbegin: d.Launch.Begin, lend: d.Launch.End,
			index: d.Index, ordinal: d.Ordinal}
		if d.Collective != nil && len(k.colls) < math.MaxUint32-1 {
			k.colls = append(k.colls, collectiveArgs(d.Collective))
			r.coll = uint32(len(k.colls))
		}
		sp := k.window[d.Program]
		if sp == nil {
			sp = &programSpan{span: *newSpan()}
			k.window[d.Program] = sp
		}
		sp.add(r.begin, r.end)
		sp.timed++
		if !r.launch {
			u := k.unlinked[d.Program]
			if u == nil {
				u = &unlinkedKernels{}
				k.unlinked[d.Program] = u
			}
			u.n, u.ns = u.n+1, capture.SatAdd(u.ns, r.end-r.begin)
		}
		if r.launch {
			sp.add(r.lbegin, r.lend)
		}
		r.put(k.buf[:])
		if k.werr == nil {
			_, k.werr = k.sw.Write(k.buf[:])
		}
		k.n++
	})
}

// write writes input in, read, to opt.Out: a *.json[.gz] file or standard
// output for one rank, a directory of rank files for several. oneRank
// refuses an input of several ranks (a file of a directory of inputs
// cannot be split further); files are the skipped files the trace lists.
func (k *kinetoSpool) write(in *input, opt Options, files []analysis.Skipped, oneRank bool) error {
	if k.werr == nil {
		k.werr = k.sw.Flush()
	}
	if k.werr != nil {
		return fmt.Errorf("writing the spool file %s: %w", k.f.Name(), k.werr)
	}
	// The output's name is checked once the input's ranks are known: one
	// rank is a *.json file, several are a directory of them.
	jsonName := strings.HasSuffix(opt.Out, ".json") || strings.HasSuffix(opt.Out, ".json.gz")
	if len(k.rankSeen) > 1 && (oneRank || opt.Out == "-" || jsonName) {
		return fmt.Errorf("%s holds %d ranks: kineto writes one rank per file, as HTA and TraceLens expect; export it alone with -o DIR (one rank-R.json per rank), or as parquet or csv", in.Path, len(k.rankSeen))
	}
	if len(k.rankSeen) <= 1 && opt.Out != "-" && !jsonName {
		if st, err := os.Stat(opt.Out); err != nil || st.Mode().IsRegular() {
			return fmt.Errorf("cannot write %s: TraceLens loads only files named *.json or *.json.gz; name the output so", opt.Out)
		}
	}
	c := in.Capture
	skipped, n := k.skipped, k.n
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for p, sp := range k.window {
		if c.ProgramClock(p).Unit == "ns" {
			lo, hi = min(lo, sp.lo), max(hi, sp.hi)
			if u := k.unlinked[p]; u != nil {
				skipped.unlinked = capture.SatAdd(skipped.unlinked, u.n)
				skipped.unlinkedNS = capture.SatAdd(skipped.unlinkedNS, u.ns)
			}
		} else {
			// Device ticks: no ns time to place them at (counted in INFO).
			skipped.untimed = capture.SatAdd(skipped.untimed, sp.timed)
			n -= sp.timed
		}
	}
	// Unfinished dispatches with a launch time extend the window: they are
	// drawn from their launch to the capture end.
	for _, g := range c.Accounting.Gaps {
		if g.Kind == capture.UnfinishedDispatch && c.Clock.Unit == "ns" {
			for _, it := range g.Items {
				if it.Time != nil {
					lo, hi = min(lo, *it.Time), max(hi, *it.Time)
				}
			}
		}
	}
	if lo > hi {
		lo, hi = 0, 0
	}
	kw := &kinetoWriter{in: in, c: c, base: lo, end: hi, n: n, skipped: skipped, files: files, perFile: k.perFile, colls: k.colls}
	spool := k.f
	if len(k.rankSeen) > 1 {
		return writeKinetoRanks(opt, kw, k.rankSeen, spool, files)
	}
	return writeSingle(opt, func(w io.Writer) error {
		if _, err := spool.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if !strings.HasSuffix(opt.Out, ".gz") {
			return kw.write(w, bufio.NewReaderSize(spool, 1<<20))
		}
		zw := gzip.NewWriter(w)
		if err := kw.write(zw, bufio.NewReaderSize(spool, 1<<20)); err != nil {
			return err
		}
		return zw.Close()
	})
}

type kinetoWriter struct {
	in        *input
	c         *capture.Capture
	base, end int64
	n         int64
	skipped   kinetoSkipped
	// files are the files of the given directories no reader recognises.
	files []analysis.Skipped
	// devicePID maps a queue's device name to its pid (0, 1, … in order
	// of first appearance among queues).
	devicePID map[string]int
	devices   []string
	w         *bufio.Writer
	// corr is the last correlation id written; graphs maps a graph launch
	// (program, launch begin, launch end) to its correlation, shared by
	// every kernel it replayed (O(graph launches), not O(dispatches)).
	corr   int64
	graphs map[[3]int64]int64
	// rank, when set, writes only that rank's dispatches (an input holding
	// several ranks is split into one file per rank); ranks is how many
	// files the input was split into; unqueued says this file takes the
	// unfinished dispatches whose queue (hence rank) is not recorded.
	rank     string
	ranks    int
	unqueued bool
	// perFile counts each (rank, program)'s dispatches written and not
	// written, for the tally block's programs (kinetotally.go).
	perFile tallyCounts
	// colls are the spool's collective args (kinetoRecord.coll).
	colls []string
}

// inRank reports whether queue q belongs to the file being written.
func (k *kinetoWriter) inRank(q int32) bool {
	return k.rank == "" || k.in.rankOf(k.c, capture.QueueID(q)) == k.rank
}

func (k *kinetoWriter) pidOf(q int32) int {
	if q >= 0 && int(q) < len(k.c.Queues) {
		return k.devicePID[k.c.Queues[q].Device]
	}
	return k.devicePID[""]
}

// tidOf is the stream id: the queue's index + 1, 0 for dispatches of a
// format without queues.
func tidOf(q int32) int { return int(q) + 1 }

// ts writes ns t as µs relative to the base, with exactly three decimals, so
// values stay exact below 2^53 and ns survive.
func (k *kinetoWriter) ts(t int64) string {
	if t < k.base {
		return "-" + dur(t, k.base)
	}
	return dur(k.base, t)
}

func (k *kinetoWriter) write(out io.Writer, spool io.Reader) error {
	k.w = bufio.NewWriterSize(out, 1<<20)
	c := k.c
	k.devicePID = map[string]int{}
	k.devices = nil
	k.corr = 0
	for i, q := range c.Queues {
		if !k.inRank(int32(i)) {
			continue
		}
		if _, ok := k.devicePID[q.Device]; !ok {
			k.devicePID[q.Device] = len(k.devices)
			k.devices = append(k.devices, q.Device)
		}
	}
	if _, ok := k.devicePID[""]; !ok && len(c.Queues) == 0 {
		k.devicePID[""] = 0
		k.devices = append(k.devices, "")
	}
	k.header()
	first := true
	ev := func(s string) {
		if !first {
			k.w.WriteString(",\n")
		}
		first = false
		k.w.WriteString(s)
	}
	k.metadata(ev)
	var (
		buf [kinetoRecordSize]byte
		r   kinetoRecord
	)
	k.graphs = map[[3]int64]int64{}
	for {
		if _, err := io.ReadFull(spool, buf[:]); err == io.EOF {
			break
		} else if err != nil {
			return fmt.Errorf("reading the spool file back: %w", err)
		}
		r.get(buf[:])
		if c.ProgramClock(capture.ProgramID(r.program)).Unit != "ns" || !k.inRank(r.queue) {
			continue
		}
		k.dispatch(ev, &r)
	}
	k.unfinished(ev)
	k.w.WriteString("\n]}\n")
	return k.w.Flush()
}

// header writes every top-level key before traceEvents: HTA's metadata
// reader stops at that key.
func (k *kinetoWriter) header() {
	c, in := k.c, k.in
	w := k.w
	w.WriteString("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [")
	for i, d := range k.devices {
		if i > 0 {
			w.WriteString(",")
		}
		name := d
		if name == "" {
			name = "(device not recorded)"
		}
		fmt.Fprintf(w, "\n    {\"id\": %d, \"name\": %s}", i, jstr(name))
	}
	w.WriteString("\n  ],\n")
	rank, from, name := in.inputRank(c), in.rankFrom(), in.Path
	if k.rank != "" {
		rank, from, name = k.rank, "queue", in.Path+" (rank "+k.rank+")"
	}
	if _, err := strconv.ParseUint(rank, 10, 31); err == nil {
		// HTA finds the rank with "rank":\s+(\d+): keep the space.
		fmt.Fprintf(w, "  \"distributedInfo\": {\"rank\": %s, \"tally_rank_from\": %s},\n", rank, jstr(from))
	}
	fmt.Fprintf(w, "  \"baseTimeNanoseconds\": %d,\n  \"displayTimeUnit\": \"ms\",\n  \"traceName\": %s,\n", k.base, jstr(name))
	acct := map[string]any{
		"schema":   TallyKinetoSchema,
		"source":   c.Source,
		"clock":    c.Clock,
		"complete": c.Accounting.Complete(),
		"input":    c.Accounting.Input,
		"gaps":     c.Accounting.Gaps,
		"written":  in.Written,
		"events": map[string]int64{"kernels": k.n, "kernels_without_launch": k.skipped.unlinked, "kernels_without_launch_ns": k.skipped.unlinkedNS,
			"aggregated_records_not_written":    k.skipped.aggregated,
			"aggregated_dispatches_not_written": k.skipped.aggregatedDispatches, "untimed_not_written": k.skipped.untimed},
	}
	k.tallyFields(acct)
	b, _ := json.Marshal(acct)
	fmt.Fprintf(w, "  \"tally\": %s,\n  \"INFO\": [", b)
	for i, line := range k.info() {
		if i > 0 {
			w.WriteString(",")
		}
		w.WriteString("\n    " + jstr(line))
	}
	w.WriteString("\n  ],\n  \"traceEvents\": [\n")
}

func (k *kinetoWriter) info() []string {
	c := k.c
	lines := []string{
		fmt.Sprintf("written by tally export from %s (%s); clock: %s; ts are µs relative to baseTimeNanoseconds", k.in.Path, c.Source.Format, c.Clock.Description),
		fmt.Sprintf("host launch events are on pid %d: the input records no OS pid or tid; their names say which format they came from", kinetoHostPID),
	}
	lines = append(lines, "deviceProperties hold only id and name: the input records no totalGlobalMem, computeMajor/computeMinor, numSms or warpSize, and tally never invents them")
	lines = append(lines, fmt.Sprintf("tally report reads this file back as the input it was exported from (its clock, programs, kernels and gaps): they are in the \"tally\" block (schema %s) and in args.tally of each kernel event", TallyKinetoSchema))
	if k.rank != "" {
		lines = append(lines, fmt.Sprintf("this file holds rank %s of %s, which holds %d ranks (one rank-R.json each, beside this file); the accounting (\"tally\", the lines below) is the whole input's", k.rank, k.in.Path, k.ranks))
	}
	if !c.Accounting.Complete() {
		lines = append(lines, "INCOMPLETE capture: the gaps below happened and are not in the kernels of this file; "+render.ShortVerdict(c))
	} else if c.Accounting.CutUnit != "" {
		lines = append(lines, render.ShortVerdict(c))
	}
	for _, g := range c.Accounting.Gaps {
		label := "GAP"
		if g.Note {
			label = "note"
		}
		lines = append(lines, fmt.Sprintf("%s %s (%d): %s", label, g.Kind, g.Count, g.Summary))
	}
	if k.skipped.aggregated > 0 {
		lines = append(lines, fmt.Sprintf("%d aggregated records (%d dispatches known only by counts and sums) are not written as events: they have no per-dispatch times", k.skipped.aggregated, k.skipped.aggregatedDispatches))
	}
	if k.skipped.untimed > 0 {
		lines = append(lines, fmt.Sprintf("%d dispatches without ns device times are not written as events", k.skipped.untimed))
	}
	if g := c.Accounting.CountOf(capture.UnfinishedDispatch); g > 0 {
		written := int64(0)
		k.eachUnfinished(func(*capture.Item) { written++ })
		lines = append(lines, fmt.Sprintf("%d unfinished dispatches are written as cat \"tally_unfinished\" events ending at the capture end, on their stream's pid/tid when known, else on the host pid's tid %d (no stream/correlation args, so HTA and TraceLens do not count them as GPU work; HTA lists them among CPU-side rows)", written, kinetoUnfinishedTID))
		if g > written {
			// Counted in the gaps, not drawn: no launch time in ns, not
			// listed (a gap lists its first capture.MaxItems), or of
			// another rank's file.
			lines = append(lines, fmt.Sprintf("%d of the %d unfinished dispatches are not written as events (no launch time in ns, beyond the ones the gap lists, or in another rank's file): they are counted in the gaps only", g-written, g))
		}
	}
	if u := k.skipped.unlinked; u > 0 {
		lines = append(lines, fmt.Sprintf("%d kernels (%d ns of device time) are written without a launch event: the input records no launch for them. TraceLens leaves such kernels out of its GPU timeline unless run with --include_unlinked_kernels; HTA keeps them (it drops them only in traces with two or more ProfilerStep events, and this file has none)", u, k.skipped.unlinkedNS))
	}
	if k.skipped.graph > 0 {
		lines = append(lines, fmt.Sprintf("%d dispatches were replayed by graph launches: each graph launch is one cat \"cuda_runtime\" event named \"graph launch (FORMAT)\" (the input does not keep the API name), and every kernel it replayed carries its correlation, with no ac2g flow", k.skipped.graph))
	}
	for _, sk := range k.files {
		lines = append(lines, fmt.Sprintf("skipped file (not read): %s: %s", sk.Path, sk.Reason))
	}
	return lines
}

func (k *kinetoWriter) metadata(ev func(string)) {
	for pid, d := range k.devices {
		name := d
		if name == "" {
			name = "device (not recorded)"
		}
		ev(fmt.Sprintf(`{"ph":"M","name":"process_name","pid":%d,"tid":0,"ts":0,"cat":"__metadata","args":{"name":%s}}`, pid, jstr(name)))
	}
	ev(fmt.Sprintf(`{"ph":"M","name":"process_name","pid":%d,"tid":0,"ts":0,"cat":"__metadata","args":{"name":"host (launches)"}}`, kinetoHostPID))
	for i, q := range k.c.Queues {
		if !k.inRank(int32(i)) {
			continue
		}
		ev(fmt.Sprintf(`{"ph":"M","name":"thread_name","pid":%d,"tid":%d,"ts":0,"cat":"__metadata","args":{"name":%s}}`, k.pidOf(int32(i)), tidOf(int32(i)), jstr("stream "+q.Name)))
	}
}

func kinetoCat(category string) string {
	switch category {
	case "memcpy":
		return "gpu_memcpy"
	case "memset":
		return "gpu_memset"
	}
	return "kernel"
}

func (k *kinetoWriter) dispatch(ev func(string), r *kinetoRecord) {
	c := k.c
	name, cat, prog := "", "kernel", ""
	if int(r.kernel) >= 0 && int(r.kernel) < len(c.Kernels) {
		name, cat = c.Kernels[r.kernel].Name, kinetoCat(c.Kernels[r.kernel].Category)
	}
	if int(r.program) >= 0 && int(r.program) < len(c.Programs) {
		prog = c.Programs[r.program].Name
	}
	pid, tid := k.pidOf(r.queue), tidOf(r.queue)
	// A graph launch is one host event; every kernel it replayed carries
	// its correlation, with no flow (outputs.md (c), "Graph launches").
	graph := r.launch && r.link == capture.LinkGraph
	flow := r.launch && !graph
	var corr int64
	if graph {
		key := [3]int64{int64(r.program), r.lbegin, r.lend}
		if corr = k.graphs[key]; corr == 0 {
			k.corr++
			corr = k.corr
			k.graphs[key] = corr
			ev(fmt.Sprintf(`{"ph":"X","cat":"cuda_runtime","name":%s,"pid":%d,"tid":%d,"ts":%s,"dur":%s,"args":{"correlation":%d}}`,
				jstr("graph launch ("+c.Source.Format+")"), kinetoHostPID, kinetoHostPID, k.ts(r.lbegin), dur(r.lbegin, r.lend), corr))
		}
	} else {
		k.corr++
		corr = k.corr
	}
	if flow {
		ev(fmt.Sprintf(`{"ph":"X","cat":"cuda_runtime","name":%s,"pid":%d,"tid":%d,"ts":%s,"dur":%s,"args":{"correlation":%d}}`,
			jstr("launch ("+c.Source.Format+")"), kinetoHostPID, kinetoHostPID, k.ts(r.lbegin), dur(r.lbegin, r.lend), corr))
		ev(fmt.Sprintf(`{"ph":"s","cat":"ac2g","name":"ac2g","id":%d,"pid":%d,"tid":%d,"ts":%s}`, corr, kinetoHostPID, kinetoHostPID, k.ts(r.lbegin)))
	}
	// args.tally comes first: a reader that stops at the correlation
	// still meets it (docs/export.md, "Reading it back").
	coll := ""
	if r.coll > 0 && int(r.coll) <= len(k.colls) {
		coll = k.colls[r.coll-1]
	}
	ev(fmt.Sprintf(`{"ph":"X","cat":%q,"name":%s,"pid":%d,"tid":%d,"ts":%s,"dur":%s,"args":{"tally":[%d,%d,%d,%d,%d],"device":%d,"stream":%d,"correlation":%d,"program":%s,"run":%d,"link":%q%s}}`,
		cat, jstr(name), pid, tid, k.ts(r.begin), dur(r.begin, r.end), r.kernel, r.run, r.index, r.ordinal, r.link, pid, tid, corr, jstr(prog), r.run, r.link.String(), coll))
	if flow {
		ev(fmt.Sprintf(`{"ph":"f","cat":"ac2g","name":"ac2g","id":%d,"pid":%d,"tid":%d,"ts":%s,"bp":"e"}`, corr, pid, tid, k.ts(r.begin)))
	}
}

// unfinished writes each listed unfinished dispatch with a launch time as a
// tally_unfinished X event from that time to the capture end, on its
// stream's pid/tid when the reader knew the queue (outputs.md (c)).
func (k *kinetoWriter) unfinished(ev func(string)) {
	c := k.c
	k.eachUnfinished(func(it *capture.Item) {
		pid, tid, stream := kinetoHostPID, kinetoUnfinishedTID, ""
		if q := it.Queue; q != nil && *q >= 0 && int(*q) < len(c.Queues) {
			pid, tid = k.pidOf(int32(*q)), tidOf(int32(*q))
			stream = fmt.Sprintf(`,"tally_stream":%d`, tid)
		}
		k.corr++
		ev(fmt.Sprintf(`{"ph":"X","cat":"tally_unfinished","name":%s,"pid":%d,"tid":%d,"ts":%s,"dur":%s,"args":{"tally_correlation":%d,"unfinished":true,"end":"not observed; capture ended","program":%s%s}}`,
			jstr(it.Kernel+" (unfinished)"), pid, tid, k.ts(*it.Time), dur(*it.Time, k.end), k.corr, jstr(it.Program), stream))
	})
}

// eachUnfinished calls fn with each unfinished dispatch this file writes:
// listed, with a launch time in ns, and of this file's rank.
func (k *kinetoWriter) eachUnfinished(fn func(*capture.Item)) {
	c := k.c
	if c.Clock.Unit != "ns" {
		return
	}
	for _, g := range c.Accounting.Gaps {
		if g.Kind != capture.UnfinishedDispatch {
			continue
		}
		for i := range g.Items {
			it := &g.Items[i]
			if it.Time == nil {
				continue
			}
			known := it.Queue != nil && *it.Queue >= 0 && int(*it.Queue) < len(c.Queues)
			if known && !k.inRank(int32(*it.Queue)) || !known && k.rank != "" && !k.unqueued {
				continue
			}
			fn(it)
		}
	}
}

// dur writes end-begin ns as µs with three decimals, 0 when end is before
// begin. The difference is taken in uint64: two int64 times can be further
// apart than int64 reaches (an unfinished dispatch at -2^63 ns, the base of
// a capture ending past 0), and a wrapped one printed "-5.-123", no JSON.
func dur(begin, end int64) string {
	if end < begin {
		return "0.000"
	}
	d := uint64(end) - uint64(begin)
	return strconv.FormatUint(d/1000, 10) + "." + fmt.Sprintf("%03d", d%1000)
}

// jstr is s as a JSON string (valid UTF-8: invalid bytes become U+FFFD).
func jstr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// writeKinetoRanks writes an input that holds several ranks (an L3 swimlane
// run, a merged trace) as directory OUT with one rank-R.json per rank, each
// read back from the one spool, built under a temporary name and renamed
// into place like a multi-input export.
func writeKinetoRanks(opt Options, kw *kinetoWriter, seen map[string]bool, spool *os.File, files []analysis.Skipped) error {
	ranks := make([]string, 0, len(seen))
	for r := range seen {
		ranks = append(ranks, r)
	}
	sortRanks(ranks)
	dir, err := checkedfile.CreateDir(opt.Out, datasetMarker)
	if err != nil {
		return err
	}
	defer dir.Abort()
	in := kw.in
	home := in.inputRank(kw.c)
	if !seen[home] {
		home = ranks[0]
	}
	kw.ranks = len(ranks)
	for _, r := range ranks {
		kw.rank, kw.unqueued = r, r == home
		p := filepath.Join(dir.Temp(), "rank-"+fileSafe(r)+".json")
		err := checkedfile.Write(p, func(w io.Writer) error {
			if _, err := spool.Seek(0, io.SeekStart); err != nil {
				return err
			}
			return kw.write(w, bufio.NewReaderSize(spool, 1<<20))
		})
		if err != nil {
			return fmt.Errorf("writing %s: %w", dir.Final(p), err)
		}
	}
	if err := writeMarker(dir, []InputRow{inputRow(in)}, files, nil); err != nil {
		return err
	}
	return dir.Commit()
}

// fileSafe keeps a rank usable in a file name.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, s)
}

// collectiveArgs are a collective's kernel args as PyTorch's profiler
// writes them (format/kineto reads them back), each known field once,
// with a leading comma.
func collectiveArgs(c *capture.Collective) string {
	var b strings.Builder
	str := func(k, v string) {
		if v != "" {
			b.WriteString(`,"` + k + `":` + jstr(v))
		}
	}
	num := func(k string, v int64) {
		if v >= 0 {
			b.WriteString(`,"` + k + `":` + strconv.FormatInt(v, 10))
		}
	}
	// No name: the reader took the type from the kernel name, and will
	// again.
	str("Collective name", c.Name)
	str("dtype", c.Dtype)
	num("In msg nelems", c.InElems)
	num("Out msg nelems", c.OutElems)
	num("Group size", c.GroupSize)
	str("Process Group Name", c.Group)
	str("Process Group Description", c.GroupDesc)
	str("Process Group Ranks", c.GroupRanks)
	num("Global rank start", c.RankStart)
	num("Global rank stride", c.RankStride)
	num("Rank", c.GroupRank)
	num("Seq", c.Seq)
	return b.String()
}
