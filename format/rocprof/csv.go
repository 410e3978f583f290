package rocprof

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tallyprof/tally/capture"
	"github.com/tallyprof/tally/format"
	"github.com/tallyprof/tally/internal/decimal"
)

// csvLayout says which columns a CSV file has, found by header name
// (case-insensitively: rocpd convert has been seen writing Vgpr_Count).
type csvLayout struct {
	generation string // "current", "2024", "rocpd-convert", "rocprof-v1", "counter-collection"
	fields     int
	counters   bool // counter_collection.csv: one row per dispatch and counter
	kind       int  // -1 when absent
	agent      int
	queue      int
	dispatch   int
	kernelID   int
	thread     int
	corr       int
	name       int
	start, end int
}

// csvColumns maps the reader's roles to header names, in preference order.
var csvColumns = struct {
	kind, agent, queue, dispatch, kernelID, thread, corr, name, start, end []string
}{
	kind:     []string{"kind"},
	agent:    []string{"agent_id", "gpu-id", "gpu_id"},
	queue:    []string{"queue_id", "queue-id"},
	dispatch: []string{"dispatch_id", "index"},
	kernelID: []string{"kernel_id"},
	thread:   []string{"thread_id", "tid"},
	corr:     []string{"correlation_id"},
	name:     []string{"kernel_name", "kernelname"},
	start:    []string{"start_timestamp", "beginns"},
	end:      []string{"end_timestamp", "endns"},
}

func layoutOf(header [][]byte) (csvLayout, string) {
	idx := map[string]int{}
	for i, h := range header {
		k := strings.ToLower(strings.TrimSpace(string(h)))
		if _, dup := idx[k]; !dup {
			idx[k] = i
		}
	}
	col := func(names []string) int {
		for _, n := range names {
			if i, ok := idx[n]; ok {
				return i
			}
		}
		return -1
	}
	l := csvLayout{
		fields: len(header), kind: col(csvColumns.kind), agent: col(csvColumns.agent), queue: col(csvColumns.queue),
		dispatch: col(csvColumns.dispatch), kernelID: col(csvColumns.kernelID), thread: col(csvColumns.thread), corr: col(csvColumns.corr), name: col(csvColumns.name),
		start: col(csvColumns.start), end: col(csvColumns.end),
	}
	_, hasGUID := idx["guid"]
	_, l.counters = idx["counter_name"]
	switch {
	case l.counters:
		l.generation = "counter-collection"
	case idx["beginns"] >= 0 && col([]string{"beginns"}) >= 0:
		l.generation = "rocprof-v1"
	case hasGUID:
		l.generation = "rocpd-convert"
	case col([]string{"stream_id"}) >= 0:
		l.generation = "current"
	case col([]string{"private_segment_size"}) >= 0:
		l.generation = "2024"
	default:
		l.generation = "unknown"
	}
	var missing []string
	if l.name < 0 {
		missing = append(missing, "Kernel_Name")
	}
	if l.start < 0 {
		missing = append(missing, "Start_Timestamp")
	}
	if l.end < 0 {
		missing = append(missing, "End_Timestamp")
	}
	return l, strings.Join(missing, ", ")
}

// csvReader reads a kernel_trace.csv (or legacy results.csv) stream.
type csvReader struct {
	path string
	br   *bufio.Reader
	line int64  // physical line the current record starts on
	phys int64  // physical lines read so far
	span int64  // physical lines of the current record
	rec  []byte // current record, possibly several physical lines
	b    *builder
	prog capture.ProgramID
	lay  csvLayout

	fields  [][]byte
	scratch []byte
	bytes   int64
	// dropped counts the bytes of the current record past maxRecord, not
	// kept; quotes counts the record's quotes, kept or not, so it ends
	// where a quote-aware reader ends it (and each byte is counted once).
	dropped int64
	quotes  int
	noEOL   bool
	cut     error // the stream ended early (a cut gzip file)
	bad     *capture.Gap
	rowUsed bool // the current row is in the tables
	lastID  uint64
	hasLast bool
	marks   *markerSet
	api     string // the HIP API trace read beside the file, or ""
}

// csvBuffer sizes the line buffer: 1 MiB, or the whole input where it is
// smaller and its size is known (a small file's read is otherwise mostly
// the page faults of a buffer it never fills).
func csvBuffer(r io.Reader) int {
	const most = 1 << 20
	if s, ok := r.(interface{ Size() int64 }); ok && s.Size() >= 0 && s.Size() < most {
		return max(int(s.Size())+1, 4096)
	}
	return most
}

func readCSV(r io.Reader, path string, sink capture.Sink, ceiling int64) (*capture.Capture, error) {
	c := &capture.Capture{Clock: boottimeClock}
	cr := &csvReader{path: path, br: bufio.NewReaderSize(r, csvBuffer(r)), b: newBuilder(c, sink, "lines")}
	cr.b.setCeiling(ceiling)
	if err := cr.header(); err != nil {
		return nil, err
	}
	if mp := markerPath(path); mp != "" && cr.lay.thread >= 0 {
		m, err := loadMarkers(mp, c)
		s := &c.Inventory[0]
		switch {
		case err != nil:
			s.Add("marker ranges", "not read from "+mp+": "+err.Error())
			sideNotRead(c, mp, "marker ranges not read: every dispatch is under "+wholeCapture+", none under its ROCTx range", err)
		default:
			cr.marks = m
			s.Add("outermost marker ranges", int64(m.set.Len()))
			s.Add("marker file", mp)
		}
	}
	if ap := apiPath(path); ap != "" && cr.lay.corr >= 0 {
		if err := loadAPI(ap, cr.b.link, c); err != nil {
			cr.b.link = newLinker()
			c.Inventory[0].Add("HIP API trace", "not read from "+ap+": "+err.Error())
		} else {
			cr.api = ap
		}
	}
	if err := cr.rows(); err != nil {
		return nil, err
	}
	if cp := copyPath(path); cp != "" {
		if err := cr.readCopies(cp); err != nil {
			c.Inventory[0].Add("memory copies", "not read from "+cp+": "+err.Error())
			sideNotRead(c, cp, "memory copies not read: none is in the tables", err)
		} else {
			c.Inventory[0].Add("memory copy file", cp)
		}
	}
	cr.finish()
	return c, nil
}

// sideNotRead states a file beside kernel_trace.csv that could not be read
// (no needed column, an I/O error) whose data the tables lack (copies) or
// misplace (marker ranges), so the capture is not complete. An unreadable
// HIP API trace only leaves dispatches unlinked: it is named in the
// inventory alone.
func sideNotRead(c *capture.Capture, path, what string, err error) {
	g := c.Accounting.Gap(capture.FailedInput, "")
	if g.Summary == "" {
		g.Summary = "files beside kernel_trace.csv (same <pid>_ prefix) that could not be read: what they hold is not in the report"
	}
	g.Add(capture.Item{What: what + " (" + err.Error() + ")", Where: path})
}

// next reads the next record into cr.rec; a quoted field may span lines.
// It returns false at the end of the input.
func (cr *csvReader) next() (bool, error) {
	cr.rec = cr.rec[:0]
	cr.dropped, cr.quotes = 0, 0
	first := true
	for {
		chunk, err := cr.br.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) {
			cr.add(chunk)
			chunk, err = cr.br.ReadSlice('\n')
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			// A cut gzip stream: what was decompressed is read, the rest
			// is a truncation.
			cr.cut, err = err, io.EOF
		}
		if err != nil && err != io.EOF {
			return false, format.ByteError(cr.path, cr.bytes, "", "reading: %v", err)
		}
		if len(chunk) == 0 && len(cr.rec) == 0 && first {
			return false, nil
		}
		cr.bytes += int64(len(chunk))
		if first {
			cr.line, cr.span = cr.phys+1, 0
			first = false
		}
		if len(chunk) > 0 {
			cr.phys++
			cr.span++
		}
		if len(cr.rec) == 0 && err == nil {
			// The common case: the whole record in the buffer, no copy.
			cr.rec = chunk
			cr.quotes += bytes.Count(chunk, []byte{'"'})
		} else {
			cr.add(chunk)
		}
		if err == io.EOF {
			cr.noEOL = len(cr.rec) > 0
			return true, nil
		}
		if cr.quotes%2 == 0 { // no quoted field left open
			return true, nil
		}
		// A quoted field continues on the next line; the record owns a copy.
		if &cr.rec[0] == &chunk[0] {
			cr.rec = append([]byte(nil), chunk...)
		}
	}
}

// maxRecord bounds the memory of one record: a longer one (a name of
// megabytes, an unterminated quote) is read to its end without keeping
// more, and skipped.
const maxRecord = 4 << 20

// add appends b to the current record, up to maxRecord bytes; what does
// not fit is counted (dropped). Its quotes are counted either way.
func (cr *csvReader) add(b []byte) {
	cr.quotes += bytes.Count(b, []byte{'"'})
	if room := maxRecord - len(cr.rec); cr.dropped == 0 && room >= len(b) {
		cr.rec = append(cr.rec, b...)
		return
	} else if cr.dropped == 0 && room > 0 {
		cr.rec = append(cr.rec, b[:room]...)
		b = b[room:]
	}
	cr.dropped += int64(len(b))
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}

func (cr *csvReader) header() error {
	ok, err := cr.next()
	if err != nil {
		return err
	}
	if !ok {
		return format.FileError(cr.path, nil, "", "no header line")
	}
	rec := trimEOL(format.TrimBOM(cr.rec))
	var good bool
	cr.fields, cr.scratch, good = splitFields(rec, cr.fields[:0], cr.scratch)
	if !good {
		return format.LineError(cr.path, 1, "is this a CSV file written by rocprofv3 or rocprof?", "the header line is not valid CSV")
	}
	lay, missing := layoutOf(cr.fields)
	if missing != "" {
		return format.LineError(cr.path, 1, "tally reads kernel_trace.csv (rocprofv3) or results.csv (rocprof v1); other rocprof CSV files hold no kernel dispatches", "the header has no %s column", missing)
	}
	cr.lay = lay
	cr.b.unit.Read += cr.span
	cr.b.unit.Used += cr.span
	if lay.generation == "rocprof-v1" {
		cr.b.c.Clock = v1Clock
	}
	s := capture.Section{Title: "rocprof CSV"}
	s.Add("header", lay.generation)
	s.Add("columns", lay.fields)
	cr.b.c.Inventory = append(cr.b.c.Inventory, s)
	return nil
}

func (cr *csvReader) rows() error {
	kernelDispatch := []byte("KERNEL_DISPATCH")
	for {
		ok, err := cr.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		cr.b.unit.Read++
		lost := cr.row(kernelDispatch)
		if n := cr.span - 1; n > 0 {
			// A quoted field over several lines (or an unterminated quote,
			// which runs to the end of the file): every line is counted,
			// as its row was.
			cr.b.unit.Read += n
			switch {
			case cr.rowUsed:
				cr.b.unit.Used += n
			case lost != nil:
				cr.b.unit.Lose(lost, "further lines of a lost row", n, cr.where())
			default:
				cr.b.unit.Ignore("further lines of a skipped row", n, cr.where())
			}
		}
	}
}

// row reads the current record. It returns the gap that lists it when
// the row was device work kept out of the tables (nil otherwise) and sets
// rowUsed when the row is in the tables.
func (cr *csvReader) row(kernelDispatch []byte) *capture.Gap {
	cr.rowUsed = false
	if cr.dropped > 0 {
		if cr.bad == nil {
			cr.bad = cr.b.c.Accounting.Gap(capture.SkippedInput, "")
			cr.bad.Summary = "rows that do not parse: not in the tables"
		}
		cr.bad.Add(capture.Item{What: fmt.Sprintf("a row of %d bytes, longer than the %d MiB tally holds (a name of megabytes, or a quote never closed): skipped", int64(len(cr.rec))+cr.dropped, maxRecord>>20), Where: cr.where()})
		cr.b.unit.Lose(cr.bad, "row longer than 4 MiB", 1, cr.where())
		return cr.bad
	}
	rec := trimEOL(cr.rec)
	if len(rec) == 0 {
		cr.b.unit.Ignore("blank line", 1, cr.where())
		return nil
	}
	var good bool
	cr.fields, cr.scratch, good = splitFields(rec, cr.fields[:0], cr.scratch)
	if !good || len(cr.fields) != cr.lay.fields {
		why := "not valid CSV"
		if good {
			why = fmt.Sprintf("%d fields, the header has %d", len(cr.fields), cr.lay.fields)
		}
		return cr.badRow(why)
	}
	if cr.noEOL && len(cr.fields[len(cr.fields)-1]) == 0 {
		// Every layout's last column is a number: empty, with no line
		// ending after it, the file was cut right after the last comma.
		return cr.badRow("the last column is empty")
	}
	f := cr.fields
	if cr.lay.kind >= 0 && !bytes.EqualFold(f[cr.lay.kind], kernelDispatch) {
		// kernel_trace.csv holds KERNEL_DISPATCH rows only: another kind
		// may be a dispatch under a new name.
		kind := strconv.Quote(string(f[cr.lay.kind]))
		g := cr.b.unknownKind(kind, cr.where())
		cr.b.unit.Lose(g, "kind "+kind, 1, cr.where())
		return g
	}
	start, ok1 := decimal.Int(f[cr.lay.start])
	end, ok2 := decimal.Int(f[cr.lay.end])
	if !ok1 || !ok2 {
		return cr.badRow("start or end is not an integer")
	}
	r := row{prog: cr.prog, queue: capture.NoQueue, start: start, end: end}
	if cr.lay.dispatch >= 0 {
		r.dispatchID, r.hasDispatchID = decimal.Uint(f[cr.lay.dispatch])
		if !r.hasDispatchID {
			return cr.badRow("dispatch id is not an integer")
		}
	}
	if cr.lay.counters && r.hasDispatchID {
		// Counter rows of one dispatch follow each other: the first
		// is the dispatch, the others add nothing to its time.
		if cr.hasLast && r.dispatchID == cr.lastID {
			cr.b.unit.Ignore("another counter row of the same dispatch", 1, cr.where())
			return nil
		}
		cr.lastID, cr.hasLast = r.dispatchID, true
	}
	var kid uint64
	hasKID := false
	if cr.lay.kernelID >= 0 {
		kid, hasKID = decimal.Uint(f[cr.lay.kernelID])
	}
	switch {
	case cr.marks != nil:
		tid, _ := decimal.Int(f[cr.lay.thread])
		r.prog, r.instance = cr.marks.program(cr.b, tid, start)
	case len(cr.b.c.Programs) == 0:
		cr.prog = cr.b.program(wholeCapture)
		r.prog = cr.prog
	}
	if cr.lay.agent >= 0 && cr.lay.queue >= 0 {
		r.queue = cr.b.queue(f[cr.lay.agent], f[cr.lay.queue])
	}
	if cr.lay.corr >= 0 {
		r.corr, _ = decimal.Uint(f[cr.lay.corr]) // not a number: no correlation
	}
	r.kernel = cr.b.kernel(r.prog, f[cr.lay.name], kid, hasKID, "kernel")
	g := cr.b.emit(&r, pos{"line", cr.line})
	cr.rowUsed = g == nil
	return g
}

func (cr *csvReader) where() string {
	if cr.span > 1 {
		return "lines " + strconv.FormatInt(cr.line, 10) + "–" + strconv.FormatInt(cr.line+cr.span-1, 10)
	}
	return "line " + strconv.FormatInt(cr.line, 10)
}

// badRow counts a row that does not parse — it may have been a dispatch,
// so it is lost — and returns the gap that lists it; a bad last row
// without a line ending is a cut file.
func (cr *csvReader) badRow(why string) *capture.Gap {
	var g *capture.Gap
	if cr.noEOL {
		g = cr.b.c.Accounting.Gap(capture.TruncatedInput, "")
		g.Summary = "the file ends inside a row: it was cut (disk full, process killed while writing, incomplete copy); the rows before it are in the tables"
	} else {
		if cr.bad == nil {
			cr.bad = cr.b.c.Accounting.Gap(capture.SkippedInput, "")
			cr.bad.Summary = "rows that do not parse: not in the tables"
		}
		g = cr.bad
	}
	g.Add(capture.Item{What: why, Where: cr.where()})
	cr.b.unit.Lose(g, "row does not parse", 1, cr.where())
	return g
}

func (cr *csvReader) finish() {
	c := cr.b.c
	c.Accounting.InputFor("bytes").Read = cr.bytes
	c.Accounting.InputFor("bytes").Used = cr.bytes
	if cr.cut != nil {
		g := c.Accounting.Gap(capture.TruncatedInput, "")
		g.Summary = "the compressed file ends early: it was cut (incomplete copy or download); the rows before the cut are in the tables"
		g.Add(capture.Item{What: cr.cut.Error(), Where: "byte " + strconv.FormatInt(cr.bytes, 10) + " of the decompressed data"})
	}
	if cr.lay.counters {
		s := &c.Inventory[0]
		s.Add("note", "counter collection serialises dispatches, so their times describe a serialised run")
	}
	if cr.noEOL && c.Accounting.Find(capture.TruncatedInput) == nil && cr.b.dispatches > 0 {
		// rocprofv3's own docs files end without a newline, so a complete
		// last row is accepted; but a file cut inside the last field of a
		// row looks the same, so say so.
		g := c.Accounting.Gap(lastRowNoEOL, "")
		g.Summary = "the last row has no line ending; it parsed and is in the tables (rocprofv3 writes files like this), but if the file was cut inside that row's last column, its last value is short"
		g.Add(capture.Item{What: "no final newline", Where: cr.where()})
	}
	// A CSV has no end marker: a cut at a row boundary cannot be seen.
	g := c.Accounting.NoEndMarker("row", "a rocprof CSV (rocprofv3 kernel_trace.csv, rocprof v1 results.csv) has no end marker: a file cut exactly at a row boundary (a killed profiler, a partial copy) reads like a complete one, so the rows read are complete only up to the last; compare row counts with the run's own summary when in doubt. rocprofv3's JSON output and rocpd databases have no such blind spot")
	if cr.b.unit.Read > 1 {
		g.Add(capture.Item{What: "the file ends after this row; nothing says whether the profiler had finished", Where: cr.where()})
	} else {
		g.AddN(1)
	}
	cr.b.linkDone(&c.Inventory[0], cr.api)
	why := "the file has only a header. rocprofv3 writes kernel_trace.csv even when kernel tracing recorded nothing (seen on RX 7900 XTX with ROCm 6.3.3–6.4.1); check hip_api_trace.csv for launches"
	cr.b.finish(why)
	s := &c.Inventory[0]
	s.Add("rows", cr.b.unit.Read-1)
	s.Add("dispatches", cr.b.dispatches)
	if cr.b.copies > 0 {
		s.Add("memory copies", cr.b.copies)
	}
}
